import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createServer } from 'node:http';
import { afterAll, describe, expect, test } from 'vitest';
import { manualClock } from '../../lib/clock.js';
import { connectionStates } from '../../db/schema/connection-health.js';
import { and, eq, like } from 'drizzle-orm';
import { jobs as jobsTable, whatsapps } from '../../db/schema/index.js';
import {
  collectEvents,
  expectError,
  secondProcess,
  testApp,
  waitFor,
  type Session,
} from '../../../test/helpers.js';
import { browserKeys, pushEndpoint } from '../../../test/push-endpoint.js';
import { verifySignature, webhookReceiver } from '../../../test/webhook-receiver.js';
import { formatOutage } from './health-texts.js';
import { uptimeRatio } from './health-service.js';

const START = new Date('2026-11-20T12:00:00Z');
const clock = manualClock(START);
const t = await testApp({
  env: { ALLOW_PRIVATE_URLS: 'true', METRICS_TOKEN: 'health-metrics-token' },
  deps: { clock, jobs: { autoStart: false } },
});
const jobs = t.app.services.jobs;
const bus = t.app.services.bus;
const push = await pushEndpoint();
const receiver = await webhookReceiver();
// The company's own alert URL (connectionAlertUrl): records each POST.
const external: { body: Record<string, unknown> }[] = [];
const externalServer = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    external.push({ body: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
    res.writeHead(200).end('ok');
  });
});
await new Promise<void>((ok) => externalServer.listen(0, '127.0.0.1', ok));
const externalAddress = externalServer.address();
const externalUrl = `http://127.0.0.1:${typeof externalAddress === 'object' && externalAddress ? externalAddress.port : 0}/alert`;
afterAll(async () => {
  await push.close();
  await receiver.close();
  await new Promise<void>((ok) => externalServer.close(() => ok()));
});

/** Everything due now has run, and what it queued too (notify jobs, then push.send, webhook deliveries). */
async function settle(...queues: { runDue(): Promise<number> }[]) {
  await bus.idle();
  const all = queues.length ? queues : [jobs];
  for (let i = 0; i < 10; i++) {
    const ran = (await Promise.all(all.map((q) => q.runDue()))).reduce((a, b) => a + b, 0);
    await bus.idle();
    if (!ran) return;
  }
}

const mails = (to: string) =>
  existsOutbox()
    ? readdirSync(join(t.dataDir, 'outbox'))
        .filter((f) => f.includes(to))
        .map((f) => readFileSync(join(t.dataDir, 'outbox', f), 'utf8'))
    : [];
const existsOutbox = () => {
  try {
    readdirSync(join(t.dataDir, 'outbox'));
    return true;
  } catch {
    return false;
  }
};

async function company(name: string) {
  const c = await t.company(name);
  const keys = browserKeys();
  const endpoint = `${push.base}/${name.toLowerCase()}-${c.id}`;
  expect((await t.as(c.admin).post('/push/subscriptions', { endpoint, keys: keys.keys })).status).toBe(201);
  const pushes = () =>
    push.received
      .filter((r) => r.path === new URL(endpoint).pathname)
      .map((r) => JSON.parse(keys.decrypt(r.body)) as { title: string; body: string; url: string });
  return { ...c, pushes };
}

async function connection(admin: Session, name: string) {
  const res = await t.as(admin).post('/whatsapp', { name, channel: 'simulator' });
  expect(res.status).toBeLessThan(300);
  const w = (await res.json()) as { id: number };
  await waitFor(async () => {
    await bus.idle();
    const h = await (await t.as(admin).get(`/whatsapp/${w.id}/health`)).json();
    return h.timeline?.[0]?.status === 'CONNECTED';
  });
  return w.id;
}

/** The connection drops (its session logged out: DISCONNECTED through the channel's state). */
const drop = async (admin: Session, id: number) => {
  expect((await t.as(admin).del(`/whatsappsession/${id}`)).status).toBe(200);
  await bus.idle();
};
/** It comes back (started again: CONNECTED through the channel's state). */
const back = async (admin: Session, id: number) => {
  expect((await t.as(admin).post(`/whatsappsession/${id}`)).status).toBe(200);
  await waitFor(() => t.app.sessions.get(id));
  await bus.idle();
};

const a = await company('HealthA');
const b = await company('HealthB');
await t.as(a.admin).put('/settings/connectionAlertEmails', { value: 'ops@alerts.test; noc@alerts.test' });
await t.as(a.admin).put('/settings/connectionAlertUrl', { value: externalUrl });
const hookRes = await t
  .as(a.admin)
  .post('/webhooks', { name: 'NOC', url: receiver.url, events: ['connection.updated'] });
expect(hookRes.status).toBe(201);
const hook = (await hookRes.json()) as { secret: string };

describe('connection health', () => {
  test('a 1-minute blip records its states and tells nobody', async () => {
    const id = await connection(a.admin, 'Blip');
    const pushesBefore = a.pushes().length;
    const externalBefore = external.length;
    await drop(a.admin, id);
    clock.advance(60_000);
    await back(a.admin, id);
    clock.advance(10 * 60_000);
    await settle();
    expect(a.pushes().length).toBe(pushesBefore);
    expect(external.length).toBe(externalBefore);
    expect(mails('ops@alerts.test').length).toBe(0);
    const h = await (await t.as(a.admin).get(`/whatsapp/${id}/health`)).json();
    expect(h.timeline.map((e: { status: string }) => e.status)).toEqual([
      'CONNECTED',
      'DISCONNECTED',
      'CONNECTED',
    ]);
    expect(h.timeline[1].seconds).toBe(60);
    expect(h.incidents).toHaveLength(1);
    expect(h.incidents[0]).toMatchObject({ alertedAt: null, seconds: 60 });
    expect((await (await t.as(a.admin).get('/connection-alerts')).json()).alerts).toEqual([]);
  });

  test('a 5-minute outage: one alert (top bar, push, e-mail, URL, webhook) and one "back" with its length', async () => {
    const id = await connection(a.admin, 'Vendas');
    const socketA = await t.socket(a.admin.token);
    const socketB = await t.socket(b.admin.token);
    const seenA: { action: string; alert: { name: string; seconds: number } }[] = [];
    socketA.on(`company-${a.id}-connectionAlert`, (p) => seenA.push(p));
    const seenB = collectEvents(socketB, `company-${a.id}-connectionAlert`, 1500);
    const pushesBefore = a.pushes().length;
    const hooksBefore = receiver.received.length;

    await drop(a.admin, id);
    clock.advance(119_000);
    await settle();
    expect(a.pushes().length).toBe(pushesBefore); // 1 min 59 s: not yet
    clock.advance(2_000);
    await settle();
    await waitFor(() => a.pushes().length === pushesBefore + 1 && seenA.length === 1);
    expect(a.pushes().at(-1)).toMatchObject({ title: 'Conexão Vendas fora do ar' });
    expect(seenA[0]).toMatchObject({ action: 'down', alert: { name: 'Vendas' } });
    const alerts = (await (await t.as(a.admin).get('/connection-alerts')).json()).alerts;
    expect(alerts).toHaveLength(1);
    expect(alerts[0]).toMatchObject({ whatsappId: id, endedAt: null });
    expect(mails(a.adminEmail)).toHaveLength(1);
    expect(mails('ops@alerts.test')).toHaveLength(1);
    expect(mails('noc@alerts.test')[0]).toContain('Conexão Vendas fora do ar');
    expect(external.at(-1)!.body).toMatchObject({ alert: 'down', connection: { id, name: 'Vendas' } });

    // Still down at 5 minutes: nothing more.
    clock.advance(179_000);
    await settle();
    expect(a.pushes().length).toBe(pushesBefore + 1);
    await back(a.admin, id);
    await settle();
    await waitFor(() => a.pushes().length === pushesBefore + 2 && seenA.length === 2);
    expect(a.pushes().at(-1)).toMatchObject({
      title: 'Conexão Vendas voltou',
      body: 'Ficou fora do ar por 5 min.',
    });
    expect(seenA[1]).toMatchObject({ action: 'back', alert: { seconds: 300 } });
    expect(mails('ops@alerts.test')).toHaveLength(2);
    expect(mails('ops@alerts.test').some((m) => m.includes('Ficou fora do ar por 5 min.'))).toBe(true);
    expect(external.at(-1)!.body).toMatchObject({ alert: 'back', outageSeconds: 300 });
    expect(await seenB).toEqual([]);
    // The other company's admin got no push and no e-mail of it.
    expect(b.pushes()).toEqual([]);
    expect(mails(b.adminEmail)).toEqual([]);

    // connection.updated: every change of state, the alert and the "back", signed like every delivery.
    await waitFor(async () => {
      await settle();
      return receiver.received.slice(hooksBefore).filter((r) => r.json.data.alert === 'back').length === 1;
    });
    // (its first state, CONNECTED at creation, may arrive here too: left out)
    const got = receiver.received
      .slice(hooksBefore)
      .filter((r) => r.json.event === 'connection.updated')
      .filter((r) => (r.json.data.connection as { id: number }).id === id)
      .filter((r) => r.json.data.previousStatus !== null || r.json.data.alert !== null);
    expect(got.map((r) => [r.json.data.status, r.json.data.alert])).toEqual([
      ['DISCONNECTED', null],
      ['DISCONNECTED', 'down'],
      ['CONNECTED', null],
      ['CONNECTED', 'back'],
    ]);
    expect(got[3]!.json.data).toMatchObject({ outageSeconds: 300, connection: { id, name: 'Vendas' } });
    for (const r of got) expect(verifySignature(hook.secret, r, clock.now())).toBe(true);

    // Nothing is told twice, however often the jobs run.
    clock.advance(60 * 60_000);
    await settle();
    expect(a.pushes().length).toBe(pushesBefore + 2);
    expect(mails('ops@alerts.test')).toHaveLength(2);
  });

  test('two processes on one database tell an outage once', async () => {
    const id = await connection(a.admin, 'Suporte');
    const other = await secondProcess(t, {
      clock,
      jobs: { autoStart: false },
      sessions: { autoStart: false },
    });
    try {
      const pushesBefore = a.pushes().length;
      const mailsBefore = mails('ops@alerts.test').length;
      await drop(a.admin, id);
      clock.advance(5 * 60_000);
      await settle(jobs, other.app.services.jobs);
      await waitFor(() => a.pushes().length >= pushesBefore + 1);
      await back(a.admin, id);
      await settle(jobs, other.app.services.jobs);
      await waitFor(() => a.pushes().length >= pushesBefore + 2);
      await settle(jobs, other.app.services.jobs);
      expect(a.pushes().length).toBe(pushesBefore + 2);
      expect(mails('ops@alerts.test').length).toBe(mailsBefore + 2);
    } finally {
      await other.close();
    }
  });

  test('after a restart the check is still there: a process that did not schedule it tells the outage, once', async () => {
    const id = await connection(a.admin, 'Financeiro');
    const pushesBefore = a.pushes().length;
    const mailsBefore = mails('ops@alerts.test').length;
    await drop(a.admin, id);
    // The process that saw the drop never runs its jobs again (as if it stopped); a new one starts later.
    clock.advance(3 * 60_000);
    const restarted = await secondProcess(t, {
      clock,
      jobs: { autoStart: false },
      sessions: { autoStart: false },
    });
    try {
      await settle(restarted.app.services.jobs);
      await waitFor(() => a.pushes().length === pushesBefore + 1);
      expect(a.pushes().at(-1)).toMatchObject({ title: 'Conexão Financeiro fora do ar' });
      expect(mails('ops@alerts.test').length).toBe(mailsBefore + 1);
      // The first process wakes up and runs what is due: nothing is told again.
      await settle(jobs, restarted.app.services.jobs);
      // A process that died after telling and before marking its job done: the job runs again, tells nothing.
      await t.database.db
        .update(jobsTable)
        .set({ status: 'queued', runAt: clock.now(), lockedBy: null, lockedUntil: null })
        .where(and(eq(jobsTable.kind, 'connection-health.alert'), like(jobsTable.key, 'down:%')));
      await settle(restarted.app.services.jobs, jobs);
      expect(a.pushes().length).toBe(pushesBefore + 1);
      expect(mails('ops@alerts.test').length).toBe(mailsBefore + 1);
    } finally {
      await restarted.close();
    }
    await back(a.admin, id);
    await settle();
    await waitFor(() => a.pushes().length === pushesBefore + 2);
    expect(a.pushes().at(-1)).toMatchObject({
      title: 'Conexão Financeiro voltou',
      body: 'Ficou fora do ar por 3 min.',
    });
  });

  test('a return stored but never recorded (its process died in between): no alert, the history heals', async () => {
    const id = await connection(a.admin, 'Compras');
    const pushesBefore = a.pushes().length;
    await drop(a.admin, id);
    clock.advance(30_000);
    // applyState wrote CONNECTED; the listener that would have recorded it never ran.
    await t.database.db.update(whatsapps).set({ status: 'CONNECTED' }).where(eq(whatsapps.id, id));
    clock.advance(3 * 60_000);
    await settle();
    expect(a.pushes().length).toBe(pushesBefore);
    const h = await (await t.as(a.admin).get(`/whatsapp/${id}/health`)).json();
    expect(h.timeline[0].status).toBe('CONNECTED');
    expect(h.incidents[0]).toMatchObject({ alertedAt: null, seconds: 210 });
    expect(h.incidents[0].endedAt).not.toBeNull();
    // The next drop is a new outage, told as usual.
    await waitFor(() => t.app.sessions.get(id));
    await drop(a.admin, id);
    clock.advance(3 * 60_000);
    await settle();
    await waitFor(() => a.pushes().length === pushesBefore + 1);
    await back(a.admin, id);
    await settle();
    await waitFor(() => a.pushes().length === pushesBefore + 2);
  });

  test('uptime over 7 and 30 days from a seeded history, in the API and in /metrics', async () => {
    const id = await connection(a.admin, 'Seeded');
    const now = clock.now().getTime();
    const day = 86_400_000;
    const db = t.database.db;
    await db.delete(connectionStates).where(eq(connectionStates.whatsappId, id));
    const at = (ms: number) => new Date(now - ms);
    await db.insert(connectionStates).values(
      [
        ['CONNECTED', 40 * day],
        ['DISCONNECTED', 10 * day],
        ['CONNECTED', 9 * day],
        ['TIMEOUT', 2 * day],
        ['CONNECTED', 1.5 * day],
      ].map(([status, ago]) => ({
        companyId: a.id,
        whatsappId: id,
        status: status as string,
        reason: status === 'TIMEOUT' ? 'unreachable' : null,
        at: at(ago as number),
      })),
    );
    const h = await (await t.as(a.admin).get(`/whatsapp/${id}/health`)).json();
    expect(h.uptime['30d']).toBeCloseTo(28.5 / 30, 6);
    expect(h.uptime['7d']).toBeCloseTo(6.5 / 7, 6);
    expect(h.timeline[1]).toMatchObject({ status: 'TIMEOUT', reason: 'unreachable', seconds: 43_200 });

    const text = await (
      await fetch(`${t.url}/metrics`, { headers: { authorization: 'Bearer health-metrics-token' } })
    ).text();
    const line = (w: string) =>
      text
        .split('\n')
        .find(
          (l) =>
            l.startsWith('recado_connection_uptime_ratio{') &&
            l.includes(`connection="${id}"`) &&
            l.includes(`window="${w}"`),
        );
    expect(Number(line('30d')?.split(' ').at(-1))).toBeCloseTo(0.95, 6);
    expect(Number(line('7d')?.split(' ').at(-1))).toBeCloseTo(6.5 / 7, 6);
  });

  test("another company's admin reads neither the history nor the alerts", async () => {
    const id = await connection(a.admin, 'Privada');
    await expectError(await t.as(b.admin).get(`/whatsapp/${id}/health`), 404, 'ERR_NO_WAPP_FOUND');
    expect((await (await t.as(b.admin).get('/connection-alerts')).json()).alerts).toEqual([]);
    const user = await t.user(a.admin, 'user');
    await expectError(await t.as(user).get(`/whatsapp/${id}/health`), 403, 'ERR_NO_PERMISSION');
  });

  test('settings: the alert URL passes the outbound guard and the e-mail list is addresses', async () => {
    await expectError(
      await t.as(a.admin).put('/settings/connectionAlertUrl', { value: 'http://169.254.169.254/latest' }),
      400,
      'ERR_URL_NOT_ALLOWED',
    );
    await expectError(
      await t.as(a.admin).put('/settings/connectionAlertEmails', { value: 'ops@alerts.test, nope' }),
      400,
      'ERR_VALIDATION',
    );
    await expectError(
      await t.as(a.admin).put('/settings/connectionAlertMinutes', { value: '0' }),
      400,
      'ERR_VALIDATION',
    );
  });

  test('a daily purge keeps 90 days of history and the state it starts in', async () => {
    const id = await connection(a.admin, 'Antiga');
    const db = t.database.db;
    await db.delete(connectionStates).where(eq(connectionStates.whatsappId, id));
    const day = 86_400_000;
    const at = (days: number) => new Date(clock.now().getTime() - days * day);
    await db.insert(connectionStates).values(
      (
        [
          ['DISCONNECTED', 120],
          ['OPENING', 100],
          ['CONNECTED', 50],
        ] as const
      ).map(([status, days]) => ({ companyId: a.id, whatsappId: id, status, at: at(days) })),
    );
    const statuses = async () =>
      (
        await db
          .select({ status: connectionStates.status })
          .from(connectionStates)
          .where(eq(connectionStates.whatsappId, id))
          .orderBy(connectionStates.at)
      ).map((r) => r.status);
    clock.advance(day + 1000);
    await waitFor(async () => {
      await settle();
      return (await statuses()).length === 2;
    });
    expect(await statuses()).toEqual(['OPENING', 'CONNECTED']);
  });

  test('uptime and outage lengths by hand', () => {
    const d = (h: number) => new Date(Date.UTC(2026, 0, 1, h));
    const rows = [
      { status: 'CONNECTED', at: d(0) },
      { status: 'DISCONNECTED', at: d(6) },
      { status: 'CONNECTED', at: d(9) },
    ];
    expect(uptimeRatio(rows, d(0), d(12))).toBe(0.75);
    expect(uptimeRatio(rows, d(3), d(12))).toBeCloseTo(6 / 9);
    expect(uptimeRatio([], d(0), d(12))).toBeNull();
    expect(uptimeRatio(rows, new Date(Date.UTC(2025, 0, 1)), d(12))).toBe(0.75); // unobserved time left out
    expect([45, 300, 4800, 7200, 93_600].map(formatOutage)).toEqual([
      '45 s',
      '5 min',
      '1 h 20 min',
      '2 h',
      '1 d 2 h',
    ]);
  });
});
