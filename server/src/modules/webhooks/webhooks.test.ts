import { createHmac } from 'node:crypto';
import { afterAll, describe, expect, test } from 'vitest';
import { manualClock } from '../../lib/clock.js';
import { secretBox } from '../../lib/crypto.js';
import { expectError, testApp, waitFor, type Session } from '../../../test/helpers.js';
import { verifySignature, webhookReceiver } from '../../../test/webhook-receiver.js';
import { webhookService, retryDelayMs } from './webhook-service.js';

const clock = manualClock(new Date());
const t = await testApp({ env: { ALLOW_PRIVATE_URLS: 'true' }, deps: { clock, jobs: { autoStart: false } } });
const jobs = t.app.services.jobs;
const bus = t.app.services.bus;
const receiver = await webhookReceiver();
afterAll(() => receiver.close());

let seq = 0;
const newNumber = () =>
  `55119${String(50000000 + ++seq * 7919 + Math.floor(Math.random() * 1e5)).slice(0, 8)}`;

async function setup(name: string) {
  const c = await t.company(name);
  const w = await (await t.as(c.admin).post('/whatsapp', { name: 'Sim', channel: 'simulator' })).json();
  await waitFor(async () => t.app.sessions.get(w.id));
  return { ...c, whatsappId: w.id as number };
}

const createHook = async (admin: Session, events: string[], url = receiver.url) => {
  const res = await t.as(admin).post('/webhooks', { name: 'ERP', url, events });
  expect(res.status, await res.clone().text()).toBe(201);
  return (await res.json()) as { id: number; secret: string; enabled: boolean };
};

/** Events handled, deliveries queued: run what is due now. */
const flush = async () => {
  await bus.idle();
  await jobs.runDue();
};

const inbound = (s: { admin: Session; whatsappId: number }, from: string, body: string) =>
  t.as(s.admin).post(`/simulator/${s.whatsappId}/inbound`, { from, body });

const a = await setup('HookA');
const b = await setup('HookB');

describe('webhooks', () => {
  test('a customer message is delivered signed, with a timestamp, with its ticket.created', async () => {
    const hook = await createHook(a.admin, ['message.created', 'ticket.created']);
    expect(hook.secret).toMatch(/^whsec_/);
    const number = newNumber();
    const before = receiver.received.length;
    expect((await inbound(a, number, 'Olá, quero um orçamento')).status).toBe(202);
    await waitFor(async () => {
      await flush();
      return receiver.received.length >= before + 2;
    });
    const got = receiver.received.slice(before);
    expect(got.map((r) => r.json.event).sort()).toEqual(['message.created', 'ticket.created']);
    const created = got.find((r) => r.json.event === 'ticket.created');
    const message = got.find((r) => r.json.event === 'message.created');
    expect(created!.json.data).toMatchObject({
      ticket: { status: 'pending', contact: { number }, channel: { channel: 'simulator' }, queue: null },
      actor: 'customer',
    });
    expect(message!.json).toMatchObject({
      event: 'message.created',
      companyId: a.id,
      data: { direction: 'inbound', message: { body: 'Olá, quero um orçamento', fromMe: false } },
    });
    for (const r of [created!, message!]) {
      expect(verifySignature(hook.secret, r, clock.now())).toBe(true);
      expect(verifySignature('wrong', r, clock.now())).toBe(false);
      expect(Number(r.headers['x-recado-timestamp'])).toBe(Math.floor(clock.now().getTime() / 1000));
      // The timestamp is signed: the captured request replayed later with a fresh timestamp is refused…
      const later = new Date(clock.now().getTime() + 3600_000);
      const replay = {
        raw: r.raw,
        headers: { ...r.headers, 'x-recado-timestamp': String(Math.floor(later.getTime() / 1000)) },
      };
      expect(verifySignature(hook.secret, replay, later)).toBe(false);
      // …and so is the same request once it is older than the tolerance.
      expect(verifySignature(hook.secret, r, later)).toBe(false);
      // The scheme, spelled out as a receiver in another language would: HMAC of "<timestamp>.<body>".
      const expected = createHmac('sha256', hook.secret)
        .update(`${r.headers['x-recado-timestamp']}.${r.raw}`)
        .digest('hex');
      expect(r.headers['x-recado-signature']).toBe(`sha256=${expected}`);
    }
    // Outbound through the API, and the attendant's accept (ticket.updated with the status change).
    await t.as(a.admin).put(`/webhooks/${hook.id}`, { events: ['message.created', 'ticket.updated'] });
    const ticketId = (message!.json.data.message as { ticketId: number }).ticketId;
    const start = receiver.received.length;
    const accepted = await t
      .as(a.admin)
      .put(`/tickets/${ticketId}`, { status: 'open', userId: a.admin.user.id });
    expect(accepted.status, await accepted.clone().text()).toBe(200);
    await t.as(a.admin).post(`/messages/${ticketId}`, { body: 'Claro! Qual produto?' });
    await waitFor(async () => {
      await flush();
      return receiver.received.length >= start + 2;
    });
    const events = receiver.received.slice(start).map((r) => r.json);
    const updated = events.find((e) => e.event === 'ticket.updated')!;
    expect(updated.data).toMatchObject({ changes: { status: { from: 'pending', to: 'open' } } });
    const out = events.find((e) => e.event === 'message.created')!;
    expect(out.data).toMatchObject({
      direction: 'outbound',
      message: { body: 'Claro! Qual produto?', fromMe: true },
    });
    await t.as(a.admin).del(`/webhooks/${hook.id}`);
  });

  test('a receiver failing three times gets the event once more per retry; the log shows it', async () => {
    const hook = await createHook(a.admin, ['contact.created']);
    receiver.answer(500, 503, 500);
    const start = receiver.received.length;
    const res = await t.as(a.admin).post('/contacts', { name: 'Novo', number: newNumber() });
    expect(res.status, await res.clone().text()).toBe(201);
    await flush();
    expect(receiver.received.length).toBe(start + 1);
    for (let attempt = 1; attempt <= 3; attempt++) {
      // Not before its time…
      clock.advance(retryDelayMs(attempt) - 1000);
      await flush();
      expect(receiver.received.length).toBe(start + attempt);
      // …then exactly once.
      clock.advance(1000);
      await flush();
      expect(receiver.received.length).toBe(start + attempt + 1);
    }
    const got = receiver.received.slice(start);
    expect(got.map((r) => r.status)).toEqual([500, 503, 500, 200]);
    expect(new Set(got.map((r) => r.json.id)).size).toBe(1);
    const log = await (await t.as(a.admin).get(`/webhooks/${hook.id}/deliveries`)).json();
    expect(log.deliveries[0]).toMatchObject({
      event: 'contact.created',
      status: 'delivered',
      attempts: 4,
      lastStatusCode: 200,
    });
    // Re-send from the log: delivered once more, same body.
    const again = await t.as(a.admin).post(`/webhooks/${hook.id}/deliveries/${log.deliveries[0].id}/resend`);
    expect(again.status).toBe(200);
    await flush();
    expect(receiver.received.length).toBe(start + 5);
    expect(receiver.received.at(-1)!.raw).toBe(got[0]!.raw);
    await t.as(a.admin).del(`/webhooks/${hook.id}`);
  });

  test('a day of failures switches the webhook off, and admins hear about it', async () => {
    const hook = await createHook(a.admin, ['contact.created']);
    const admin = await t.socket(a.admin.token);
    const notices: { action: string; webhook?: { enabled: boolean } }[] = [];
    admin.on(`company-${a.id}-webhook`, (p) => notices.push(p));
    receiver.answer(...Array(30).fill(500));
    await t.as(a.admin).post('/contacts', { name: 'Falha', number: newNumber() });
    await flush();
    for (let i = 1; i <= 12; i++) {
      clock.advance(retryDelayMs(i));
      await flush();
    }
    const [row] = (await (await t.as(a.admin).get('/webhooks')).json()).filter(
      (w: { id: number }) => w.id === hook.id,
    );
    expect(row).toMatchObject({ enabled: false });
    expect(row.disabledReason).toMatch(/HTTP 500/);
    await waitFor(() => notices.some((n) => n.webhook?.enabled === false));
    const log = await (await t.as(a.admin).get(`/webhooks/${hook.id}/deliveries`)).json();
    expect(log.deliveries[0].status).toBe('failed');
    receiver.clearAnswers();
    await t.as(a.admin).del(`/webhooks/${hook.id}`);
  });

  test('secret: revealed only to admins on request, regenerated; other companies see nothing', async () => {
    const hook = await createHook(a.admin, ['message.ack']);
    const shown = await (await t.as(a.admin).get(`/webhooks/${hook.id}/secret`)).json();
    expect(shown.secret).toBe(hook.secret);
    const list = await (await t.as(a.admin).get('/webhooks')).json();
    expect(JSON.stringify(list)).not.toContain(hook.secret);
    const fresh = await (await t.as(a.admin).post(`/webhooks/${hook.id}/secret`)).json();
    expect(fresh.secret).not.toBe(hook.secret);
    const user = await t.user(a.admin, 'user');
    await expectError(await t.as(user).get('/webhooks'), 403, 'ERR_NO_PERMISSION');
    await expectError(await t.as(user).get(`/webhooks/${hook.id}/secret`), 403, 'ERR_NO_PERMISSION');
    for (const res of [
      await t.as(b.admin).get(`/webhooks/${hook.id}`),
      await t.as(b.admin).get(`/webhooks/${hook.id}/secret`),
      await t.as(b.admin).post(`/webhooks/${hook.id}/secret`),
      await t.as(b.admin).put(`/webhooks/${hook.id}`, { url: 'http://127.0.0.1:1/x' }),
      await t.as(b.admin).get(`/webhooks/${hook.id}/deliveries`),
      await t.as(b.admin).del(`/webhooks/${hook.id}`),
    ])
      await expectError(res, 404, 'ERR_NO_WEBHOOK_FOUND');
    expect(await (await t.as(b.admin).get('/webhooks')).json()).toEqual([]);
    // B's events never reach A's webhook.
    const start = receiver.received.length;
    await inbound(b, newNumber(), 'B only');
    await flush();
    expect(receiver.received.slice(start).filter((r) => r.json.companyId === a.id)).toHaveLength(0);
  });

  test('a private-address URL is refused without ALLOW_PRIVATE_URLS', async () => {
    const strict = webhookService({
      db: t.database.db,
      events: t.app.events,
      box: secretBox('x'.repeat(40)),
      clock,
      jobs,
      log: { warn: () => undefined },
      allowPrivateUrls: false,
    });
    const admin = {
      userId: a.admin.user.id,
      companyId: a.id,
      profile: 'admin',
      super: false,
      sessionId: 'x',
    };
    for (const url of [
      'http://127.0.0.1:8080/x',
      'http://10.0.0.5/x',
      'http://localhost/x',
      'http://[::1]/x',
      'ftp://example.com/x',
    ])
      await expect(strict.create(admin, { url, events: ['message.created'] })).rejects.toMatchObject({
        code: 'ERR_URL_NOT_ALLOWED',
      });
    // Through the API (this app allows private URLs for its tests): the metadata address stays refused.
    await expectError(
      await t
        .as(a.admin)
        .post('/webhooks', { url: 'http://169.254.169.254/latest', events: ['message.created'] }),
      400,
      'ERR_URL_NOT_ALLOWED',
    );
    await expectError(
      await t.as(a.admin).post('/webhooks', { url: receiver.url, events: [] }),
      400,
      'ERR_VALIDATION',
    );
    await expectError(
      await t.as(a.admin).post('/webhooks', { url: receiver.url, events: ['nope'] }),
      400,
      'ERR_VALIDATION',
    );
  });

  test('a ticket opened when an API schedule fires sends ticket.created once', async () => {
    const s = await setup('HookSched');
    await createHook(s.admin, ['ticket.created']);
    const { token } = await (await t.as(s.admin).get(`/whatsapp/${s.whatsappId}/token`)).json();
    const sendAt = new Date(clock.now().getTime() + 10 * 60_000).toISOString();
    const res = await t.request('POST', '/messages/schedule', {
      token,
      body: { number: newNumber(), body: 'Lembrete do pedido', sendAt },
    });
    expect(res.status, await res.clone().text()).toBe(201);
    const { scheduleId } = (await res.json()) as { scheduleId: number };
    const mine = () =>
      receiver.received.filter((r) => r.json.event === 'ticket.created' && r.json.companyId === s.id);
    await flush();
    expect(mine()).toHaveLength(0); // nothing before the schedule fires
    clock.advance(11 * 60_000);
    let sentTicketId: number | null = null;
    await waitFor(async () => {
      await flush();
      const list = await (await t.as(s.admin).get('/schedules')).json();
      sentTicketId = list.schedules.find((x: { id: number }) => x.id === scheduleId)?.sentTicketId ?? null;
      return sentTicketId !== null && mine().length >= 1;
    });
    // The same full ticket view as every ticket event (it carried only its id before).
    expect(mine()).toHaveLength(1);
    expect(mine()[0]!.json.data).toMatchObject({
      ticket: { id: sentTicketId, status: expect.any(String), contact: { number: expect.any(String) } },
      actor: 'schedule',
    });
    expect(mine()[0]!.json.data.ticket).toHaveProperty('channel.channel', 'simulator');
  });
});
