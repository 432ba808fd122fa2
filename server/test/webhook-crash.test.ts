import { createHmac } from 'node:crypto';
import { addRecurrence } from '@recado/contracts';
import { afterAll, expect, test } from 'vitest';
import { startFakeGraph } from '../src/messaging/channels/cloud-api/fake-graph-api.js';
import { asaasFake } from './asaas-fake.js';
import { cloudInbound } from './cloud-api-fixtures.js';
import { waitFor } from './helpers.js';
import { call, login, restartHarness } from './restart.js';

// #28 "Done means" (docs/billing.md "Tests", docs/security.md "Transactions and shutdown"): the real server in a child process takes a
// burst of inbound webhooks — Asaas payment events for several companies' invoices and Meta's Cloud API
// messages — and is killed with SIGKILL in the middle of it, then started again on the same database. Every
// delivery that got no 2xx is sent again (as Asaas and Meta retry), and some that did too (both deliver at
// least once). Every acknowledged delivery had its effect, every resent one too, and none twice: one paid
// invoice and one granted period per payment, one stored message per Meta message id. The Cloud API deliveries
// answer 500 after the restart until the dead process's lease on the connection (20 s) runs out: most of the
// test's time.
const SUPER = { email: 'super@webhook-crash.test', password: 'Super@12345' };
const WEBHOOK_TOKEN = 'whk_crash_0123456789abcdef0123456789abcdef';
const APP_SECRET = 'webhook-crash-app-secret';
const fake = await asaasFake();
const graph = await startFakeGraph();
afterAll(async () => {
  await fake.close();
  await graph.close();
});
const { startServer, withDatabase } = await restartHarness('webhook-crash', {
  env: {
    SUPERUSER_EMAIL: SUPER.email,
    SUPERUSER_PASSWORD: SUPER.password,
    ASAAS_API_URL: fake.url,
    ASAAS_WEBHOOK_TOKEN: WEBHOOK_TOKEN,
    // The Graph double listens on loopback.
    ALLOW_PRIVATE_URLS: 'true',
  },
});

const COMPANIES = 12;
const CUSTOMERS = 9;
const CLOUD_DELIVERIES = 90;
const DUE = '2099-01-01';

/** One webhook delivery, sent again byte for byte as the provider redelivers it; the HTTP status, if any. */
interface Delivery {
  key: string;
  kind: 'asaas' | 'cloud';
  send(base: string): Promise<number | undefined>;
}
const post = (url: string, headers: Record<string, string>, raw: string) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: raw })
    .then(async (r) => (await r.arrayBuffer(), r.status))
    .catch(() => undefined);
const ok = (s: number | undefined) => s !== undefined && s >= 200 && s < 300;

/** An Asaas event for a payment of the fake, as Asaas posts it. */
function asaasDelivery(eventId: string, event: string, paymentId: string): Delivery {
  const raw = JSON.stringify({
    id: eventId,
    event,
    dateCreated: '2026-11-27 12:00:00',
    payment: { ...fake.payments.get(paymentId)!, status: event.replace('PAYMENT_', '') },
  });
  return {
    key: eventId,
    kind: 'asaas',
    send: (base) => post(`${base}/webhooks/asaas`, { 'asaas-access-token': WEBHOOK_TOKEN }, raw),
  };
}

/** A Cloud API delivery of one or more customer texts, signed with the app secret as Meta signs it. */
function cloudDelivery(whatsappId: number, key: string, msgs: { from: string; id: string; body: string }[]) {
  const raw = JSON.stringify(
    cloudInbound(
      graph,
      msgs.map((m) => ({
        from: m.from,
        id: m.id,
        name: `Cliente ${m.from.slice(-2)}`,
        message: { type: 'text', text: { body: m.body } },
      })),
      '1795000000',
    ),
  );
  const signature = `sha256=${createHmac('sha256', APP_SECRET).update(raw).digest('hex')}`;
  const d: Delivery = {
    key,
    kind: 'cloud',
    send: (base) =>
      post(`${base}/webhooks/cloud-api/${whatsappId}`, { 'x-hub-signature-256': signature }, raw),
  };
  return d;
}

test('kill -9 mid-burst of Asaas and Cloud API webhooks, restart, redeliver: every effect once', async () => {
  const first = await startServer();
  const su = await login(first.base, SUPER);
  expect((await call(first.base, 'PUT', '/settings/asaas', su, { value: fake.apiKey })).status).toBe(200);

  // Companies on the Empresarial plan (R$ 497), half paying a checkout's Pix charge (`invoice:<id>`), half a
  // subscription's charge (`company:<id>`: the webhook makes the period's invoice), each with CONFIRMED and
  // RECEIVED events (one payment: one period).
  const companies: { id: number; admin: { email: string; password: string }; paymentId: string }[] = [];
  for (let i = 0; i < COMPANIES; i++) {
    const admin = { email: `admin${i}@webhook-crash.test`, password: 'Admin@123' };
    const created = await call(first.base, 'POST', '/companies', su, {
      name: `Webhook ${i}`,
      email: admin.email,
      planId: 5,
      dueDate: DUE,
      adminName: 'Admin',
      adminPassword: admin.password,
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = created.body.id as number;
    let paymentId: string;
    if (i % 2 === 0) {
      const pix = await call(first.base, 'POST', '/subscription', await login(first.base, admin), {
        firstName: 'Maria',
        lastName: `Souza ${i}`,
        address2: 'Rua das Flores, 10',
        city: 'Recife',
        state: 'PE',
        zipcode: '50000-000',
        country: 'BR',
        document: '24971563792',
      });
      expect(pix.status, JSON.stringify(pix.body)).toBe(200);
      paymentId = pix.body.paymentId as string;
    } else {
      paymentId = `pay_sub_crash_${i}`;
      fake.payments.set(paymentId, {
        object: 'payment',
        id: paymentId,
        customer: `cus_sub_crash_${i}`,
        value: 497,
        netValue: 497,
        billingType: 'PIX',
        status: 'PENDING',
        dueDate: DUE,
        externalReference: `company:${id}`,
        dateCreated: '2026-11-27',
      });
    }
    companies.push({ id, admin, paymentId });
  }

  // A company's Cloud API connection on the Graph double.
  const cloudAdmin = await login(first.base, companies[0]!.admin);
  const conn = await call(first.base, 'POST', '/whatsapp', cloudAdmin, {
    name: 'Cloud',
    channel: 'cloud_api',
    channelConfig: {
      phoneNumberId: graph.phoneNumberId,
      accessToken: graph.token,
      appSecret: APP_SECRET,
      verifyToken: 'verify-crash',
      graphBaseUrl: graph.url,
    },
  });
  expect(conn.status, JSON.stringify(conn.body)).toBe(201);
  const whatsappId = conn.body.id as number;
  await waitFor(
    async () =>
      (await call(first.base, 'GET', `/whatsapp/${whatsappId}`, cloudAdmin)).body?.status === 'CONNECTED',
    30_000,
  );

  // The burst: every Asaas event and Meta delivery (every tenth carries two messages), interleaved.
  const asaas = companies.flatMap((c, i) =>
    ['PAYMENT_CONFIRMED', 'PAYMENT_RECEIVED'].map((e) =>
      asaasDelivery(`evt_crash_${i}_${e}`, e, c.paymentId),
    ),
  );
  const wamids: { id: string; from: string; body: string }[] = [];
  const cloud: Delivery[] = [];
  for (let k = 0; k < CLOUD_DELIVERIES; k++) {
    const from = `55119770000${k % CUSTOMERS}`;
    const msgs = [{ from, id: `wamid.CRASH${k}`, body: `webhook burst ${k}` }];
    if (k % 10 === 9) msgs.push({ from, id: `wamid.CRASH${k}b`, body: `webhook burst ${k}b` });
    wamids.push(...msgs);
    cloud.push(cloudDelivery(whatsappId, `cloud-${k}`, msgs));
  }
  const burst: Delivery[] = [];
  let a = 0;
  cloud.forEach((d, k) => {
    burst.push(d);
    if (k % 4 === 3 && a < asaas.length) burst.push(asaas[a++]!);
  });
  burst.push(...asaas.slice(a));
  expect(burst).toHaveLength(asaas.length + cloud.length);

  // 12 deliveries in flight at a time; SIGKILL as soon as a third are acknowledged (two of each kind at least).
  const acked: Delivery[] = [];
  const ackedOf = (kind: Delivery['kind']) => acked.filter((d) => d.kind === kind);
  let next = 0;
  let killed = false;
  const worker = async () => {
    while (!killed && next < burst.length) {
      const d = burst[next++]!;
      if (ok(await d.send(first.base))) acked.push(d);
      if (
        !killed &&
        acked.length >= burst.length / 3 &&
        ackedOf('asaas').length >= 2 &&
        ackedOf('cloud').length >= 2
      ) {
        killed = true;
        first.kill();
      }
    }
  };
  await Promise.all(Array.from({ length: 12 }, worker));
  await first.exited;
  expect(killed).toBe(true);
  expect(acked.length).toBeLessThan(burst.length);

  // Started again: what got no 2xx is delivered until it does (Meta's calls fail until the dead process's
  // lease on the connection runs out and this one runs it), and every other acknowledged one of each kind
  // again; the acknowledged ones not sent again prove the first answer was kept.
  const second = await startServer();
  const duplicates = (['asaas', 'cloud'] as const).flatMap((k) => ackedOf(k).filter((_, i) => i % 2 === 1));
  const pending = new Set([...burst.filter((d) => !acked.includes(d)), ...duplicates]);
  await waitFor(async () => {
    await Promise.all(
      [...pending].map(async (d) => {
        if (ok(await d.send(second.base))) pending.delete(d);
      }),
    );
    return pending.size === 0;
  }, 60_000);
  second.child.kill('SIGTERM');
  await second.exited;

  await withDatabase(async (database) => {
    const q = async (text: string, params: unknown[] = []) => (await database.raw(text, params)).rows;
    // Asaas: every event recorded once; each payment granted exactly one period on exactly one paid invoice.
    const events = await q(`select id from billing_events where id like 'evt_crash_%'`);
    expect(events.map((e) => e.id).sort()).toEqual(asaas.map((d) => d.key).sort());
    for (const c of companies) {
      const [company] = await q(`select due_date::text as due, recurrence from companies where id = $1`, [
        c.id,
      ]);
      const granted = addRecurrence(DUE, company!.recurrence as string);
      expect(company!.due, `company ${c.id}`).toBe(granted);
      expect(
        await q(
          `select provider_payment_id, status, due_before::text, due_after::text from billing_payments where company_id = $1`,
          [c.id],
        ),
      ).toEqual([
        { provider_payment_id: c.paymentId, status: 'granted', due_before: DUE, due_after: granted },
      ]);
      expect(
        await q(`select status, provider_payment_id from invoices where company_id = $1`, [c.id]),
        `company ${c.id}`,
      ).toEqual([{ status: 'paid', provider_payment_id: c.paymentId }]);
    }
    // Cloud API: one stored message per Meta message id, with its text; one contact and one ticket a customer.
    const stored = await q(
      `select provider_id, body, count(*) over (partition by provider_id)::int as n
       from messages where whatsapp_id = $1 and not from_me`,
      [whatsappId],
    );
    expect(stored.filter((m) => m.n !== 1)).toEqual([]);
    expect(new Map(stored.map((m) => [m.provider_id, m.body]))).toEqual(
      new Map(wamids.map((m) => [m.id, m.body])),
    );
    const perCustomer = await q(
      `select c.number, count(distinct t.id)::int as tickets from contacts c
       join tickets t on t.contact_id = c.id where c.company_id = $1 and t.whatsapp_id = $2 group by c.number`,
      [companies[0]!.id, whatsappId],
    );
    expect(perCustomer).toHaveLength(CUSTOMERS);
    expect(perCustomer.filter((r) => r.tickets !== 1)).toEqual([]);
  });
}, 120_000);
