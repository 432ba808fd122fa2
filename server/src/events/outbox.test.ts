import { and, eq, sql } from 'drizzle-orm';
import { afterAll, describe, expect, test } from 'vitest';
import {
  auditLog,
  contacts,
  eventOutbox,
  queues,
  ticketEvents,
  tickets,
  webhookDeliveries,
} from '../db/schema/index.js';
import { AUDIT_INTENT } from '../modules/audit/audit-hook.js';
import { maskAudit } from '../modules/audit/record.js';
import { executeRows } from '../db/rows.js';
import { testApp, waitFor, type Session } from '../../test/helpers.js';
import { webhookReceiver } from '../../test/webhook-receiver.js';
import type { Emitted } from './bus.js';
import type { DomainEvents } from './domain-events.js';
import { encodePayload, keyedId } from './outbox.js';

// #32 The outbox (docs/events.md "The outbox"): the events that feed the record are written with the change,
// deleted once the timeline and the webhooks wrote, and a replay (the recovery sweep after a crash) never writes
// an entry or a delivery twice. The kill -9 test is server/test/outbox-crash.test.ts.
const t = await testApp({ env: { ALLOW_PRIVATE_URLS: 'true' }, deps: { jobs: { autoStart: false } } });
const db = t.database.db;
const bus = t.app.services.bus;
const receiver = await webhookReceiver();
afterAll(() => receiver.close());

let seq = 0;
const newNumber = () =>
  `55119${String(60000000 + ++seq * 7919 + Math.floor(Math.random() * 1e5)).slice(0, 8)}`;

async function setup(name: string) {
  const c = await t.company(name);
  const w = await (await t.as(c.admin).post('/whatsapp', { name: 'Sim', channel: 'simulator' })).json();
  await waitFor(async () => t.app.sessions.get(w.id));
  const hook = await t.as(c.admin).post('/webhooks', {
    name: 'ERP',
    url: receiver.url,
    events: ['message.created', 'ticket.created', 'ticket.updated'],
  });
  expect(hook.status).toBe(201);
  const webhookId = ((await hook.json()) as { id: number }).id;
  const number = newNumber();
  expect(
    (await t.as(c.admin).post(`/simulator/${w.id}/inbound`, { from: number, name: 'Cliente', body: 'Oi' }))
      .status,
  ).toBe(202);
  const ticket = await waitFor(
    async () =>
      (
        await db
          .select({ id: tickets.id })
          .from(tickets)
          .innerJoin(contacts, eq(contacts.id, tickets.contactId))
          .where(and(eq(tickets.companyId, c.id), eq(contacts.number, number)))
      )[0],
  );
  await bus.idle();
  return { ...c, whatsappId: w.id as number, ticketId: ticket.id, webhookId };
}

const a = await setup('OutboxA');
const b = await setup('OutboxB');

const put = async (s: Session, ticketId: number, body: Record<string, unknown>) => {
  const res = await t.as(s).put(`/tickets/${ticketId}`, body);
  expect(res.status, await res.clone().text()).toBe(200);
};

const entries = (ticketId: number) =>
  db
    .select({ type: ticketEvents.type, outboxId: ticketEvents.outboxId })
    .from(ticketEvents)
    .where(eq(ticketEvents.ticketId, ticketId));
const deliveries = (webhookId: number) =>
  db
    .select({ event: webhookDeliveries.event, outboxId: webhookDeliveries.outboxId })
    .from(webhookDeliveries)
    .where(eq(webhookDeliveries.webhookId, webhookId));
const outboxRows = async (companyId?: number) =>
  (
    await db
      .select({ id: eventOutbox.id })
      .from(eventOutbox)
      .where(companyId ? eq(eventOutbox.companyId, companyId) : undefined)
  ).length;

/** Captures what the bus emitted (name, payload, meta) while `fn` runs. */
async function capture(fn: () => Promise<void>) {
  const seen: Emitted<DomainEvents>[] = [];
  const off = bus.tap((e) => void seen.push(e), 'test');
  try {
    await fn();
    await bus.idle();
  } finally {
    off();
  }
  return seen;
}

/** Puts an event back in the outbox as a crash would leave it: written, older than the sweep's wait. */
const leaveBehind = (e: Emitted<DomainEvents>, id: string, companyId: number) =>
  executeRows(
    db,
    sql`insert into event_outbox (id, company_id, event, payload, created_at)
      values (${id}::uuid, ${companyId}, ${e.event}, ${encodePayload(e.event, e.payload)}, now() - interval '1 minute')`,
  );

describe('the event outbox', () => {
  test('a ticket change writes its events with the change; they are gone once the record is written', async () => {
    const seen = await capture(() => put(a.admin, a.ticketId, { status: 'open' }));
    const staged = seen.filter((e) => e.event === 'ticket.announced' || e.event === 'ticket.changed');
    expect(staged.map((e) => e.event).sort()).toEqual(['ticket.announced', 'ticket.changed']);
    for (const e of staged) expect(e.meta.outboxId).toMatch(/^[0-9a-f-]{36}$/);
    const mine = (await entries(a.ticketId)).filter((x) => x.outboxId === staged[0]!.meta.outboxId);
    expect(mine.map((x) => x.type)).toEqual(['accepted']);
    const hook = (await deliveries(a.webhookId)).filter((x) => x.event === 'ticket.updated');
    expect(hook).toHaveLength(1);
    expect(hook[0]!.outboxId).toBe(staged.find((e) => e.event === 'ticket.announced')!.meta.outboxId);
    expect(await outboxRows(a.id)).toBe(0);
  });

  test('a replay of events already handled writes nothing twice (a crash before the purge)', async () => {
    const seen = await capture(() => put(a.admin, a.ticketId, { status: 'pending' }));
    const before = {
      entries: (await entries(a.ticketId)).length,
      hooks: (await deliveries(a.webhookId)).length,
    };
    for (const e of seen) if (e.meta.outboxId) await leaveBehind(e, e.meta.outboxId, a.id);
    expect(await outboxRows(a.id)).toBeGreaterThanOrEqual(2);
    // Twice, and two sweeps at once (two processes): the lease and SKIP LOCKED give each row to one of them.
    await Promise.all([bus.recover(), bus.recover()]);
    await bus.idle();
    for (const e of seen) if (e.meta.outboxId) await leaveBehind(e, e.meta.outboxId, a.id);
    await bus.recover();
    await bus.idle();
    expect((await entries(a.ticketId)).length).toBe(before.entries);
    expect((await deliveries(a.webhookId)).length).toBe(before.hooks);
    expect(await outboxRows(a.id)).toBe(0);
  });

  test('an event the process died before dispatching is recorded once by the sweep, in order', async () => {
    // The change committed with its outbox rows; the process died before the bus saw them.
    const seen = await capture(() => put(a.admin, a.ticketId, { status: 'open' }));
    const announced = seen.find((e) => e.event === 'ticket.announced')!;
    const priorEntries = (await entries(a.ticketId)).length;
    const priorHooks = (await deliveries(a.webhookId)).length;
    const lost: string[] = [crypto.randomUUID(), crypto.randomUUID()];
    for (const id of lost) await leaveBehind(announced, id, a.id);
    // Not yet: a row younger than the wait belongs to a process that may still be dispatching it.
    expect(await bus.recover({ olderThanMs: 5 * 60_000 })).toBe(0);
    expect(await bus.recover()).toBe(2);
    await bus.idle();
    const after = await entries(a.ticketId);
    expect(after.length).toBe(priorEntries + 2);
    expect(after.filter((x) => lost.includes(x.outboxId!)).map((x) => x.type)).toEqual([
      'accepted',
      'accepted',
    ]);
    const hooks = await deliveries(a.webhookId);
    expect(hooks.length).toBe(priorHooks + 2);
    // Replayed again (the purge lost): nothing more.
    for (const id of lost) await leaveBehind(announced, id, a.id);
    expect(await bus.recover()).toBe(2);
    await bus.idle();
    expect((await entries(a.ticketId)).length).toBe(priorEntries + 2);
    expect((await deliveries(a.webhookId)).length).toBe(priorHooks + 2);
    // Numbered in replay order, after what was already numbered.
    const seqs = await db
      .select({ sequence: webhookDeliveries.sequence })
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.webhookId, a.webhookId))
      .orderBy(webhookDeliveries.id);
    const numbers = seqs.map((s) => Number(s.sequence));
    expect([...numbers].sort((x, y) => x - y)).toEqual(numbers);
  });

  test("another company's replayed events reach neither its timeline nor its webhooks; no route reads the outbox", async () => {
    const bEntries = (await entries(b.ticketId)).length;
    const bHooks = (await deliveries(b.webhookId)).length;
    const seen = await capture(() => put(a.admin, a.ticketId, { status: 'pending' }));
    for (const e of seen) if (e.meta.outboxId) await leaveBehind(e, crypto.randomUUID(), a.id);
    await bus.recover();
    await bus.idle();
    expect((await entries(b.ticketId)).length).toBe(bEntries);
    expect((await deliveries(b.webhookId)).length).toBe(bHooks);
    // B's admin cannot read A's ticket's timeline, and there is no outbox route at all.
    expect((await t.as(b.admin).get(`/tickets/${a.ticketId}/events`)).status).toBe(404);
    expect(t.app.app.printRoutes()).not.toMatch(/outbox/i);
    for (const path of ['/outbox', '/event-outbox', '/events/outbox'])
      expect((await t.as(b.admin).get(path)).status).toBe(404);
  });

  test("a snooze, its wake and an attendant's message stage their events in their own transactions", async () => {
    await put(a.admin, a.ticketId, { status: 'open' });
    const seen = await capture(async () => {
      const snoozed = await t.as(a.admin).post(`/tickets/${a.ticketId}/snooze`, { untilReply: true });
      expect(snoozed.status, await snoozed.clone().text()).toBe(200);
      expect((await t.as(a.admin).del(`/tickets/${a.ticketId}/snooze`)).status).toBe(200);
      const sent = await t.as(a.admin).post(`/messages/${a.ticketId}`, { body: 'Já verifico' });
      expect(sent.status, await sent.clone().text()).toBe(200);
    });
    const byEvent = (name: string) => seen.find((e) => e.event === name)!;
    const list = await entries(a.ticketId);
    for (const [event, type] of [
      ['ticket.snoozed', 'snoozed'],
      ['ticket.woken', 'woken'],
    ] as const) {
      const id = byEvent(event).meta.outboxId;
      expect(id, event).toBeTruthy();
      expect(list.filter((x) => x.outboxId === id).map((x) => x.type)).toEqual([type]);
    }
    const sent = byEvent('message.sent');
    expect(sent.meta.outboxId).toBeTruthy();
    expect(
      (await deliveries(a.webhookId)).filter((d) => d.outboxId === sent.meta.outboxId).map((d) => d.event),
    ).toEqual(['message.created']);
    await bus.idle();
    expect(await outboxRows(a.id)).toBe(0);
  });

  test("a ticket's tag change stages its announcement in the tag change's transaction", async () => {
    const tag = await t.as(a.admin).post('/tags', { name: `VIP ${Date.now()}`, color: '#FF0000' });
    expect(tag.status, await tag.clone().text()).toBe(201);
    const tagId = ((await tag.json()) as { id: number }).id;
    const seen = await capture(async () => {
      expect((await t.as(a.admin).put(`/ticket-tags/${a.ticketId}/${tagId}`)).status).toBe(200);
    });
    const announced = seen.find((e) => e.event === 'ticket.announced')!;
    expect(announced.meta.outboxId).toBeTruthy();
    const mine = (await entries(a.ticketId)).filter((x) => x.outboxId === announced.meta.outboxId);
    expect(mine.map((x) => x.type)).toEqual(['tag_added']);
    expect(await outboxRows(a.id)).toBe(0);
  });

  test('an event an at-least-once emitter repeats (keyed: the SLA alert job) is written once', async () => {
    const seen = await capture(() => put(a.admin, a.ticketId, { status: 'pending' }));
    const announced = seen.find((e) => e.event === 'ticket.announced')!;
    const { ticket } = announced.payload as DomainEvents['ticket.announced'];
    const payload: DomainEvents['sla.breached'] = {
      companyId: a.id,
      ticket,
      kind: 'first_response',
      policyId: null,
      dueAt: new Date(Date.now() - 60_000),
      breachedAt: new Date(),
    };
    const key = `sla.breached:test-${Date.now()}`;
    // Twice at once, and once more after the first were handled and purged.
    void bus.emit('sla.breached', payload, { outboxKey: key });
    void bus.emit('sla.breached', payload, { outboxKey: key });
    await bus.idle();
    await bus.emit('sla.breached', payload, { outboxKey: key });
    await bus.idle();
    const mine = (await entries(a.ticketId)).filter((x) => x.outboxId === keyedId(key));
    expect(mine.map((x) => x.type)).toEqual(['sla_breached']);
    expect(await outboxRows(a.id)).toBe(0);
  });

  test('events without a transaction of their own are written at emit time and purged (message.stored)', async () => {
    const number = newNumber();
    const prior = (await deliveries(a.webhookId)).length;
    const seen = await capture(async () => {
      expect(
        (await t.as(a.admin).post(`/simulator/${a.whatsappId}/inbound`, { from: number, body: 'Olá' }))
          .status,
      ).toBe(202);
      await waitFor(async () => {
        await bus.idle();
        return (await deliveries(a.webhookId)).length >= prior + 2;
      });
    });
    const stored = seen.find((e) => e.event === 'message.stored')!;
    expect(stored.meta.outboxId).toBeTruthy();
    const hooks = (await deliveries(a.webhookId)).filter((d) => d.outboxId === stored.meta.outboxId);
    expect(hooks.map((d) => d.event).sort()).toEqual(['message.created', 'ticket.created']);
    // The connection's channel settings (secrets, for some channels) are not written to the outbox.
    expect(encodePayload('message.stored', stored.payload)).not.toMatch(/channelConfig":\{"/);
    await bus.idle();
    expect(await outboxRows(a.id)).toBe(0);
  });
});

describe('an admin write\'s audit entry (docs/audit.md "Durable")', () => {
  const auditOf = (targetId: number) =>
    db
      .select({ action: auditLog.action, before: auditLog.before, after: auditLog.after })
      .from(auditLog)
      .where(
        and(
          eq(auditLog.companyId, a.id),
          eq(auditLog.targetType, 'queue'),
          eq(auditLog.targetId, String(targetId)),
        ),
      )
      .orderBy(auditLog.id);

  /** What the hook leaves in the outbox before the route runs, aged as a crash leaves it. */
  async function intentLeftBehind(queueId: number, before: unknown, id = crypto.randomUUID()) {
    await executeRows(
      db,
      sql`insert into event_outbox (id, company_id, event, payload, created_at)
        values (${id}::uuid, ${a.id}, ${AUDIT_INTENT}, ${encodePayload(AUDIT_INTENT, {
          method: 'PUT',
          url: '/api/queue/:id',
          role: 'admin',
          companyId: a.id,
          actorId: a.admin.user.id,
          targetId: String(queueId),
          params: { id: String(queueId) },
          before: maskAudit(before),
          body: { name: 'renamed' },
          ip: '127.0.0.1',
          userAgent: 'test',
        })}, now() - interval '1 minute')`,
    );
    return id;
  }

  test('the hook writes the entry and deletes its intent; a crash in between is recovered once, checked against the target', async () => {
    const created = await t.as(a.admin).post('/queue', { name: `Fila ${Date.now()}`, color: '#112233' });
    expect(created.status).toBe(201);
    const queueId = ((await created.json()) as { id: number }).id;
    await bus.idle();
    expect((await auditOf(queueId)).map((e) => e.action)).toEqual(['queue.created']);
    expect(await outboxRows(a.id)).toBe(0);

    // The process died after the rename committed, before the entry: the sweep reads the queue again.
    const [before] = await db.select().from(queues).where(eq(queues.id, queueId));
    const id = await intentLeftBehind(queueId, before);
    await db.update(queues).set({ name: 'Renomeada' }).where(eq(queues.id, queueId));
    await bus.recover();
    await bus.idle();
    let entries = await auditOf(queueId);
    expect(entries.map((e) => e.action)).toEqual(['queue.created', 'queue.updated']);
    expect(entries[1]).toMatchObject({ before: { name: before!.name }, after: { name: 'Renomeada' } });
    // Replayed again: no second entry.
    await intentLeftBehind(queueId, before, id);
    await bus.recover();
    await bus.idle();
    expect((await auditOf(queueId)).length).toBe(2);

    // A write that did not happen (the queue is as it was): no entry.
    const [now] = await db.select().from(queues).where(eq(queues.id, queueId));
    await intentLeftBehind(queueId, now);
    await bus.recover();
    await bus.idle();
    entries = await auditOf(queueId);
    expect(entries.length).toBe(2);
    expect(await outboxRows(a.id)).toBe(0);
  });
});
