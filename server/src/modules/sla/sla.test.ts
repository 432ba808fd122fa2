import { afterAll, describe, expect, test } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { WEEKDAYS } from '@recado/contracts';
import { jobs as jobsTable, slaOutcomes, tickets } from '../../db/schema/index.js';
import { manualClock } from '../../lib/clock.js';
import { expectError, secondProcess, testApp, unique, waitFor, type Session } from '../../../test/helpers.js';
import { webhookReceiver } from '../../../test/webhook-receiver.js';

// Friday 2026-11-27, 17:50 in São Paulo (the default zone, UTC−3): 10 minutes before closing.
const FRIDAY_1750 = new Date('2026-11-27T20:50:00Z');
const clock = manualClock(FRIDAY_1750);
const t = await testApp({ env: { ALLOW_PRIVATE_URLS: 'true' }, deps: { clock, jobs: { autoStart: false } } });
const db = t.database.db;
const { bus, jobs } = t.app.services;
const receiver = await webhookReceiver();
afterAll(() => receiver.close());
const MIN = 60_000;

/** Monday–Friday 08:00–18:00. */
const OFFICE = WEEKDAYS.map((weekdayEn) => ({
  weekday: weekdayEn,
  weekdayEn,
  startTime: weekdayEn === 'saturday' || weekdayEn === 'sunday' ? '' : '08:00',
  endTime: weekdayEn === 'saturday' || weekdayEn === 'sunday' ? '' : '18:00',
}));

let colors = 0;
const color = () => `#${(0x100000 + colors++ * 7919).toString(16).slice(-6)}`;
let numbers = 0;
const newNumber = () =>
  `55119${String(70000000 + ++numbers * 7919 + Math.floor(Math.random() * 1e4)).slice(0, 8)}`;

async function setup(name: string) {
  const c = await t.company(name);
  const w = await (await t.as(c.admin).post('/whatsapp', { name: 'Sim', channel: 'simulator' })).json();
  await waitFor(async () => t.app.sessions.get(w.id));
  const res = await t.as(c.admin).put(`/companies/${c.id}/schedules`, { schedules: OFFICE });
  expect(res.status, await res.clone().text()).toBe(200);
  return { ...c, whatsappId: w.id as number };
}

async function queue(admin: Session, name = unique('Fila ')) {
  const res = await t.as(admin).post('/queue', { name, color: color() });
  expect(res.status, await res.clone().text()).toBe(201);
  return (await res.json()).id as number;
}

async function policy(admin: Session, body: Record<string, unknown>) {
  const res = await t.as(admin).post('/sla-policies', { name: unique('SLA '), ...body });
  expect(res.status, await res.clone().text()).toBe(201);
  return res.json();
}

/** Everything the bus and the due jobs have to do, done. */
const settle = async () => {
  await bus.idle();
  await jobs.runDue();
  await bus.idle();
};

async function openTicket(s: { admin: Session; whatsappId: number }, queueId: number | null) {
  const number = newNumber();
  const contact = await (await t.as(s.admin).post('/contacts', { name: unique('Cliente '), number })).json();
  const res = await t
    .as(s.admin)
    .post('/tickets', { contactId: contact.id, whatsappId: s.whatsappId, queueId, status: 'pending' });
  expect(res.status, await res.clone().text()).toBe(201);
  await settle();
  return { ...(await res.json()), number } as { id: number; uuid: string; number: string };
}

const view = async (admin: Session, id: number) => (await t.as(admin).get(`/tickets/${id}`)).json();
const row = async (id: number) => (await db.select().from(tickets).where(eq(tickets.id, id)))[0]!;
const outcomes = (ticketId: number) =>
  db.select().from(slaOutcomes).where(eq(slaOutcomes.ticketId, ticketId)).orderBy(slaOutcomes.id);

async function reply(admin: Session, ticketId: number, body = 'Olá! Como posso ajudar?') {
  const res = await t.as(admin).post(`/messages/${ticketId}`, { body });
  expect(res.status, await res.clone().text()).toBeLessThan(300);
  await settle();
}

async function customerWrites(s: { admin: Session; whatsappId: number }, ticketId: number, number: string) {
  const before = (await row(ticketId)).lastMessage;
  const body = unique('mensagem ');
  const res = await t.as(s.admin).post(`/simulator/${s.whatsappId}/inbound`, { from: number, body });
  expect(res.status).toBe(202);
  await waitFor(async () => (await row(ticketId)).lastMessage === body || undefined);
  void before;
  await settle();
}

const a = await setup('SlaA');
const b = await setup('SlaB');

describe('SLA policies', () => {
  test('admins create, read, change and delete policies; bad input is 400 with the field named', async () => {
    const q = await queue(a.admin);
    const created = await policy(a.admin, {
      firstResponseMinutes: 30,
      resolutionMinutes: 480,
      businessHours: true,
      queueIds: [q],
      priorities: ['high', 'urgent'],
    });
    expect(created).toMatchObject({
      firstResponseMinutes: 30,
      nextResponseMinutes: null,
      resolutionMinutes: 480,
      businessHours: true,
      queueIds: [q],
      priorities: ['high', 'urgent'],
    });
    expect((await t.as(a.admin).get(`/sla-policies/${created.id}`)).status).toBe(200);
    const changed = await t.as(a.admin).put(`/sla-policies/${created.id}`, { nextResponseMinutes: 15 });
    expect(await changed.json()).toMatchObject({ nextResponseMinutes: 15, firstResponseMinutes: 30 });
    const list = await (await t.as(a.admin).get('/sla-policies')).json();
    expect(list.map((p: { id: number }) => p.id)).toContain(created.id);

    for (const [field, value] of [
      ['firstResponseMinutes', 0],
      ['nextResponseMinutes', -5],
      ['resolutionMinutes', 1.5],
      ['name', ''],
      ['priorities', ['soon']],
      ['businessHours', 'yes'],
    ] as const) {
      const res = await t
        .as(a.admin)
        .post('/sla-policies', { name: 'Bad', firstResponseMinutes: 10, [field]: value });
      const body = await expectError(res, 400, 'ERR_VALIDATION');
      expect(JSON.stringify(body.fields)).toContain(field);
    }
    const zeroUpdate = await t.as(a.admin).put(`/sla-policies/${created.id}`, { firstResponseMinutes: 0 });
    expect(JSON.stringify((await expectError(zeroUpdate, 400, 'ERR_VALIDATION')).fields)).toContain(
      'firstResponseMinutes',
    );
    // Another company's queue is an unknown queue.
    const foreign = await queue(b.admin);
    const res = await t
      .as(a.admin)
      .post('/sla-policies', { name: 'Xyz', firstResponseMinutes: 5, queueIds: [foreign] });
    expect(JSON.stringify((await expectError(res, 400, 'ERR_VALIDATION')).fields)).toContain('queueIds');
    const none = await t.as(a.admin).post('/sla-policies', { name: 'No target' });
    await expectError(none, 400, 'ERR_VALIDATION');
    // Nothing of the refused ones was stored.
    const after = await (await t.as(a.admin).get('/sla-policies')).json();
    expect(after).toHaveLength(list.length);

    // Attendants may not manage policies.
    const attendant = await t.user(a.admin, 'user');
    expect((await t.as(attendant).get('/sla-policies')).status).toBe(403);
    expect(
      (await t.as(attendant).post('/sla-policies', { name: 'Mine', firstResponseMinutes: 5 })).status,
    ).toBe(403);

    expect((await t.as(a.admin).del(`/sla-policies/${created.id}`)).status).toBe(200);
    await expectError(await t.as(a.admin).get(`/sla-policies/${created.id}`), 404, 'ERR_NO_SLA_POLICY_FOUND');
  });

  test('a second company cannot read, change or delete the first one’s policies', async () => {
    const p = await policy(a.admin, { firstResponseMinutes: 10 });
    await expectError(await t.as(b.admin).get(`/sla-policies/${p.id}`), 404, 'ERR_NO_SLA_POLICY_FOUND');
    await expectError(
      await t.as(b.admin).put(`/sla-policies/${p.id}`, { firstResponseMinutes: 1 }),
      404,
      'ERR_NO_SLA_POLICY_FOUND',
    );
    await expectError(await t.as(b.admin).del(`/sla-policies/${p.id}`), 404, 'ERR_NO_SLA_POLICY_FOUND');
    const bList = await (await t.as(b.admin).get('/sla-policies')).json();
    expect(bList.map((x: { id: number }) => x.id)).not.toContain(p.id);
    expect(await (await t.as(a.admin).get(`/sla-policies/${p.id}`)).json()).toMatchObject({
      firstResponseMinutes: 10,
    });
    await t.as(a.admin).del(`/sla-policies/${p.id}`);
  });
});

describe('SLA clocks', { timeout: 120_000 }, () => {
  test('first response breaches at the exact due time, counted in business hours across a weekend', async () => {
    clock.set(FRIDAY_1750);
    const q = await queue(a.admin);
    const p = await policy(a.admin, { firstResponseMinutes: 30, businessHours: true, queueIds: [q] });
    const hook = await t
      .as(a.admin)
      .post('/webhooks', { name: 'SLA', url: receiver.url, events: ['sla.breached'] });
    expect(hook.status).toBe(201);
    const supervisor = await t.user(a.admin, 'supervisor');
    const attendant = await t.user(a.admin, 'user');
    const watched: unknown[] = [];
    const notWatched: unknown[] = [];
    const supSocket = await t.socket(supervisor.token);
    supSocket.on(`company-${a.id}-slaBreach`, (e) => watched.push(e));
    const attSocket = await t.socket(attendant.token);
    attSocket.on(`company-${a.id}-slaBreach`, (e) => notWatched.push(e));
    const bSocket = await t.socket(b.admin.token);
    bSocket.on(`company-${a.id}-slaBreach`, (e) => notWatched.push(e));

    const ticket = await openTicket(a, q);
    // 10 minutes on Friday, 20 on Monday from 08:00: Monday 08:20 local.
    const due = '2026-11-30T11:20:00.000Z';
    expect((await view(a.admin, ticket.id)).sla).toEqual({
      firstResponseDueAt: due,
      nextResponseDueAt: null,
      resolutionDueAt: null,
      breached: [],
      atRiskAt: '2026-11-30T11:12:30.000Z', // 22.5 of 30 minutes used: Monday 08:12:30
    });

    // The whole weekend and Monday up to a millisecond before: nothing.
    clock.set(new Date(Date.parse(due) - 1));
    await settle();
    expect((await row(ticket.id)).slaBreached).toEqual([]);
    expect(await outcomes(ticket.id)).toEqual([]);

    clock.set(new Date(due));
    await settle();
    expect((await view(a.admin, ticket.id)).sla.breached).toEqual(['first_response']);
    const stored = await outcomes(ticket.id);
    expect(stored).toHaveLength(1);
    expect(stored[0]).toMatchObject({
      kind: 'first_response',
      outcome: 'breached',
      policyId: p.id,
      queueId: q,
    });
    expect(stored[0]!.dueAt.toISOString()).toBe(due);

    // The alert goes out from its own job, queued with the claim.
    await waitFor(async () => {
      await settle();
      return watched.length === 1 || undefined;
    });
    expect(watched[0]).toMatchObject({
      action: 'create',
      breach: { ticketId: ticket.id, kind: 'first_response' },
    });
    // Admins and supervisors hear it; attendants and other companies do not; the top bar lists it.
    const list = await (await t.as(supervisor).get('/sla-breaches')).json();
    expect(list.breaches.map((x: { ticketId: number }) => x.ticketId)).toContain(ticket.id);
    expect((await t.as(attendant).get('/sla-breaches')).status).toBe(403);
    const bList = await (await t.as(b.admin).get('/sla-breaches')).json();
    expect(bList.breaches.map((x: { ticketId: number }) => x.ticketId)).not.toContain(ticket.id);

    // The webhook event, documented in contracts.
    await waitFor(async () => {
      await settle();
      return (
        receiver.received.some(
          (r) =>
            r.json.event === 'sla.breached' &&
            (r.json.data as { ticket: { id: number } }).ticket.id === ticket.id,
        ) || undefined
      );
    });
    const delivery = receiver.received.find((r) => r.json.event === 'sla.breached')!;
    expect(delivery.json.data).toMatchObject({ kind: 'first_response', policyId: p.id, dueAt: due });

    // The list's filters (server side), validated; another company does not see it.
    const breached = await (
      await t.as(a.admin).get('/tickets?sla=breached&showAll=true&status=pending')
    ).json();
    expect(breached.tickets.map((x: { id: number }) => x.id)).toContain(ticket.id);
    const atRisk = await (await t.as(a.admin).get('/tickets?sla=at_risk&showAll=true&status=pending')).json();
    expect(atRisk.tickets.map((x: { id: number }) => x.id)).not.toContain(ticket.id);
    const bBreached = await (await t.as(b.admin).get('/tickets?sla=breached&showAll=true')).json();
    expect(bBreached.tickets.map((x: { id: number }) => x.id)).not.toContain(ticket.id);
    await expectError(await t.as(a.admin).get('/tickets?sla=late'), 400, 'ERR_VALIDATION');

    // Running the jobs again changes nothing: one breach.
    clock.advance(60 * MIN);
    await settle();
    expect(await outcomes(ticket.id)).toHaveLength(1);
    expect(watched).toHaveLength(1);
    expect(notWatched).toEqual([]);
    await t.as(a.admin).del(`/sla-policies/${p.id}`);
  });

  test('at risk: amber once less than a quarter of the target is left, on the list filter', async () => {
    clock.set(new Date('2026-11-25T13:00:00Z')); // Wednesday 10:00
    const q = await queue(a.admin);
    const p = await policy(a.admin, { firstResponseMinutes: 20, queueIds: [q] });
    const ticket = await openTicket(a, q);
    const sla = (await view(a.admin, ticket.id)).sla;
    expect(sla.firstResponseDueAt).toBe('2026-11-25T13:20:00.000Z');
    expect(sla.atRiskAt).toBe('2026-11-25T13:15:00.000Z');
    const ids = async (filter: string) =>
      (
        await (await t.as(a.admin).get(`/tickets?sla=${filter}&showAll=true&status=pending`)).json()
      ).tickets.map((x: { id: number }) => x.id);
    expect(await ids('at_risk')).not.toContain(ticket.id);
    clock.set(new Date('2026-11-25T13:16:00Z'));
    expect(await ids('at_risk')).toContain(ticket.id);
    expect(await ids('breached')).not.toContain(ticket.id);
    await t.as(a.admin).del(`/sla-policies/${p.id}`);
  });

  test('met targets never breach; next response runs only while the customer waits', async () => {
    clock.set(new Date('2026-11-25T13:00:00Z')); // Wednesday 10:00, calendar time
    const q = await queue(a.admin);
    const p = await policy(a.admin, {
      firstResponseMinutes: 5,
      nextResponseMinutes: 10,
      resolutionMinutes: 600,
      queueIds: [q],
    });
    const ticket = await openTicket(a, q);
    expect((await view(a.admin, ticket.id)).sla.firstResponseDueAt).toBe('2026-11-25T13:05:00.000Z');
    expect((await t.as(a.admin).put(`/tickets/${ticket.id}`, { status: 'open' })).status).toBe(200);
    await settle();

    clock.set(new Date('2026-11-25T13:02:00Z'));
    await reply(a.admin, ticket.id);
    let sla = (await view(a.admin, ticket.id)).sla;
    expect(sla.firstResponseDueAt).toBeNull();
    // Waiting on the customer: no next-response clock.
    expect(sla.nextResponseDueAt).toBeNull();
    expect(sla.resolutionDueAt).toBe('2026-11-25T23:00:00.000Z');
    const met = await outcomes(ticket.id);
    expect(met).toMatchObject([{ kind: 'first_response', outcome: 'met' }]);
    // Its breach job is gone.
    const left = await db
      .select()
      .from(jobsTable)
      .where(and(eq(jobsTable.kind, 'sla.breach'), eq(jobsTable.key, `${ticket.id}:first_response`)));
    expect(left).toEqual([]);

    // Three hours waiting on the customer count nothing.
    clock.set(new Date('2026-11-25T16:00:00Z'));
    await settle();
    expect((await row(ticket.id)).slaBreached).toEqual([]);

    await customerWrites(a, ticket.id, ticket.number);
    sla = (await view(a.admin, ticket.id)).sla;
    expect(sla.nextResponseDueAt).toBe('2026-11-25T16:10:00.000Z');
    // A second customer message does not restart it.
    clock.set(new Date('2026-11-25T16:04:00Z'));
    await customerWrites(a, ticket.id, ticket.number);
    expect((await view(a.admin, ticket.id)).sla.nextResponseDueAt).toBe('2026-11-25T16:10:00.000Z');
    clock.set(new Date('2026-11-25T16:09:00Z'));
    await reply(a.admin, ticket.id, 'Resolvido?');
    expect((await view(a.admin, ticket.id)).sla.nextResponseDueAt).toBeNull();

    // Resolved within its target.
    clock.set(new Date('2026-11-25T17:00:00Z'));
    expect((await t.as(a.admin).put(`/tickets/${ticket.id}`, { status: 'closed' })).status).toBe(200);
    await settle();
    clock.set(new Date('2026-11-26T17:00:00Z'));
    await settle();
    expect((await view(a.admin, ticket.id)).sla).toMatchObject({
      firstResponseDueAt: null,
      nextResponseDueAt: null,
      resolutionDueAt: null,
      breached: [],
    });
    expect((await outcomes(ticket.id)).map((o) => [o.kind, o.outcome])).toEqual([
      ['first_response', 'met'],
      ['next_response', 'met'],
      ['resolution', 'met'],
    ]);
    await t.as(a.admin).del(`/sla-policies/${p.id}`);
  });

  test('a snooze pauses the clocks; waking resumes them with the time left', async () => {
    clock.set(new Date('2026-11-25T13:00:00Z'));
    const q = await queue(a.admin);
    const p = await policy(a.admin, { firstResponseMinutes: 60, queueIds: [q] });
    const ticket = await openTicket(a, q);
    clock.set(new Date('2026-11-25T13:20:00Z'));
    await db.update(tickets).set({ snoozedAt: clock.now() }).where(eq(tickets.id, ticket.id));
    await t.app.services.sla.handle(a.id, ticket.id, { type: 'sync' });
    expect((await view(a.admin, ticket.id)).sla.firstResponseDueAt).toBeNull();
    clock.set(new Date('2026-11-25T18:00:00Z'));
    await settle();
    expect((await row(ticket.id)).slaBreached).toEqual([]);
    await db.update(tickets).set({ snoozedAt: null }).where(eq(tickets.id, ticket.id));
    await t.app.services.sla.handle(a.id, ticket.id, { type: 'sync' });
    // 20 minutes used before the snooze: 40 left from the wake.
    expect((await view(a.admin, ticket.id)).sla.firstResponseDueAt).toBe('2026-11-25T18:40:00.000Z');
    await t.as(a.admin).del(`/sla-policies/${p.id}`);
  });

  test('precedence: queue and priority, then queue, then priority, then the default', async () => {
    clock.set(new Date('2026-11-25T13:00:00Z'));
    const q = await queue(b.admin);
    const byDefault = await policy(b.admin, { firstResponseMinutes: 100 });
    const byPriority = await policy(b.admin, { firstResponseMinutes: 50, priorities: ['normal'] });
    const byQueue = await policy(b.admin, { firstResponseMinutes: 20, queueIds: [q] });
    const ticket = await openTicket(b, q);
    expect((await row(ticket.id)).slaState?.policyId).toBe(byQueue.id);
    const both = await policy(b.admin, { firstResponseMinutes: 10, queueIds: [q], priorities: ['normal'] });
    await settle();
    expect((await row(ticket.id)).slaState?.policyId).toBe(both.id);
    expect((await view(b.admin, ticket.id)).sla.firstResponseDueAt).toBe('2026-11-25T13:10:00.000Z');
    for (const x of [both, byQueue]) await t.as(b.admin).del(`/sla-policies/${x.id}`);
    await settle();
    expect((await row(ticket.id)).slaState?.policyId).toBe(byPriority.id);
    await t.as(b.admin).del(`/sla-policies/${byPriority.id}`);
    await settle();
    expect((await row(ticket.id)).slaState?.policyId).toBe(byDefault.id);
    await t.as(b.admin).del(`/sla-policies/${byDefault.id}`);
    await settle();
    expect((await view(b.admin, ticket.id)).sla.firstResponseDueAt).toBeNull();
  });

  test('a breach job survives a restart and fires once', async () => {
    clock.set(new Date('2026-11-25T13:00:00Z'));
    const q = await queue(b.admin);
    const p = await policy(b.admin, { firstResponseMinutes: 5, queueIds: [q] });
    const ticket = await openTicket(b, q);
    const [job] = await db
      .select()
      .from(jobsTable)
      .where(and(eq(jobsTable.kind, 'sla.breach'), eq(jobsTable.key, `${ticket.id}:first_response`)));
    expect(job?.status).toBe('queued');
    // The process that scheduled it stops; another starts on the same database.
    const other = await secondProcess(t, { clock, jobs: { autoStart: false } });
    try {
      clock.set(new Date('2026-11-25T13:05:00Z'));
      await other.app.services.jobs.runDue();
      await other.app.services.bus.idle();
      await jobs.runDue();
      await other.app.services.jobs.runDue();
      await settle();
      const stored = await outcomes(ticket.id);
      expect(stored.map((o) => [o.kind, o.outcome])).toEqual([['first_response', 'breached']]);
      expect((await row(ticket.id)).slaBreached).toEqual(['first_response']);
    } finally {
      await other.close();
    }
    await t.as(b.admin).del(`/sla-policies/${p.id}`);
  });

  test('a policy change re-syncs the open tickets in a durable job, not in the request', async () => {
    clock.set(new Date('2026-11-25T13:00:00Z'));
    const q = await queue(b.admin);
    const ticket = await openTicket(b, q);
    expect((await view(b.admin, ticket.id)).sla.firstResponseDueAt).toBeNull();
    const p = await policy(b.admin, { firstResponseMinutes: 15, queueIds: [q] });
    const [job] = await db
      .select()
      .from(jobsTable)
      .where(and(eq(jobsTable.kind, 'sla.resync'), eq(jobsTable.key, String(b.id))));
    expect(job?.companyId).toBe(b.id);
    await settle();
    expect((await view(b.admin, ticket.id)).sla.firstResponseDueAt).toBe('2026-11-25T13:15:00.000Z');
    // The other company's tickets are not its business.
    const aTicket = await openTicket(a, await queue(a.admin));
    expect((await view(a.admin, aTicket.id)).sla.firstResponseDueAt).toBeNull();
    await t.as(b.admin).del(`/sla-policies/${p.id}`);
    await settle();
    expect((await view(b.admin, ticket.id)).sla.firstResponseDueAt).toBeNull();
  });

  test('policies are cached per process: a sync another process made with the old ones is redone after the TTL', async () => {
    clock.set(new Date('2026-11-25T13:00:00Z'));
    const q = await queue(b.admin);
    const ticket = await openTicket(b, q);
    const other = await secondProcess(t, { clock, jobs: { autoStart: false } });
    try {
      // The other process has read the company's policies (none for this queue) before the change.
      await other.app.services.sla.handle(b.id, ticket.id, { type: 'sync' });
      await policy(b.admin, { firstResponseMinutes: 15, queueIds: [q] });
      await settle();
      expect((await row(ticket.id)).firstResponseDueAt?.toISOString()).toBe('2026-11-25T13:15:00.000Z');
      // Within its cache's TTL, the other process syncs the ticket with what it read: no policy, no due time.
      await other.app.services.sla.handle(b.id, ticket.id, { type: 'sync' });
      const [late] = await db
        .select()
        .from(jobsTable)
        .where(and(eq(jobsTable.kind, 'sla.resync'), eq(jobsTable.key, `${b.id}:late`)));
      expect(late?.runAt.getTime()).toBeGreaterThan(clock.now().getTime());
      // The change's second pass, after the TTL, reads the policies again.
      clock.set(new Date(late!.runAt.getTime() + 1));
      await settle();
      expect((await row(ticket.id)).firstResponseDueAt?.toISOString()).toBe('2026-11-25T13:15:00.000Z');
    } finally {
      await other.close();
    }
  });

  test('the alert is queued in the claim transaction: a crash after the claim still alerts, once', async () => {
    clock.set(new Date('2026-11-25T13:00:00Z'));
    const q = await queue(b.admin);
    const p = await policy(b.admin, { firstResponseMinutes: 5, queueIds: [q] });
    const ticket = await openTicket(b, q);
    const heard: unknown[] = [];
    const socket = await t.socket(b.admin.token);
    socket.on(`company-${b.id}-slaBreach`, (e) => heard.push(e));
    clock.set(new Date('2026-11-25T13:05:00Z'));
    // The claim alone, as a process that dies right after its commit would leave it.
    const due = new Date('2026-11-25T13:05:00Z');
    expect(await t.app.services.sla.breach(b.id, ticket.id, 'first_response', due, p.id)).toBe(true);
    const [outcome] = await outcomes(ticket.id);
    const [alert] = await db
      .select()
      .from(jobsTable)
      .where(and(eq(jobsTable.kind, 'sla.alert'), eq(jobsTable.key, String(outcome!.id))));
    expect(alert?.status).toBe('queued');
    // A second claim of the same breach queues nothing more.
    expect(await t.app.services.sla.breach(b.id, ticket.id, 'first_response', due, p.id)).toBe(false);
    await settle();
    await waitFor(() => heard.length === 1 || undefined);
    await settle();
    expect(heard).toHaveLength(1);
    socket.disconnect();
    await t.as(b.admin).del(`/sla-policies/${p.id}`);
  });

  test('a late reply is a breach recorded once, not a met target', async () => {
    clock.set(new Date('2026-11-25T13:00:00Z'));
    const q = await queue(b.admin);
    const p = await policy(b.admin, { firstResponseMinutes: 5, queueIds: [q] });
    const ticket = await openTicket(b, q);
    expect((await t.as(b.admin).put(`/tickets/${ticket.id}`, { status: 'open' })).status).toBe(200);
    await bus.idle();
    clock.set(new Date('2026-11-25T13:07:00Z'));
    // The reply comes before the job ran.
    await t.as(b.admin).post(`/messages/${ticket.id}`, { body: 'Desculpe a demora' });
    await bus.idle();
    await settle();
    expect((await outcomes(ticket.id)).map((o) => [o.kind, o.outcome])).toEqual([
      ['first_response', 'breached'],
    ]);
    await t.as(b.admin).del(`/sla-policies/${p.id}`);
  });
});

describe('SLA achievement', { timeout: 120_000 }, () => {
  test('percent met per kind, per queue and attendant; another company sees none of it', async () => {
    const res = await t.as(a.admin).get('/dashboard/sla?initialDate=2026-11-20&finalDate=2026-11-30');
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.total.first_response.met).toBeGreaterThanOrEqual(1);
    expect(body.total.first_response.breached).toBeGreaterThanOrEqual(1);
    const { met, breached, percent } = body.total.first_response;
    expect(percent).toBe(Math.round((met / (met + breached)) * 1000) / 10);
    expect(body.queues.length).toBeGreaterThan(0);
    expect(body.users.length).toBeGreaterThan(0);
    const bBody = await (
      await t.as(b.admin).get('/dashboard/sla?initialDate=2026-11-20&finalDate=2026-11-30')
    ).json();
    expect(bBody.total.next_response.met).toBe(0);
    const attendant = await t.user(a.admin, 'user');
    expect(
      (await t.as(attendant).get('/dashboard/sla?initialDate=2026-11-20&finalDate=2026-11-30')).status,
    ).toBe(403);
    await expectError(
      await t.as(a.admin).get('/dashboard/sla?initialDate=2026-11-30&finalDate=2026-11-20'),
      400,
      'ERR_VALIDATION',
    );
  });
});
