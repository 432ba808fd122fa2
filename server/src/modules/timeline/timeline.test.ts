import { describe, expect, test } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { contacts, ticketEvents, tickets } from '../../db/schema/index.js';
import { manualClock } from '../../lib/clock.js';
import { expectError, testApp, unique, waitFor, type Session } from '../../../test/helpers.js';
import { botKit, newNumber } from '../bot/bot-test-kit.js';
import { chain, flowApi } from '../flows/flow-test-kit.js';

// #32.5 The ticket timeline on a real server and database: every entry comes from doing the real thing over
// HTTP (or the simulator's customer), then GET /tickets/{id}/events reads it back with actor and time.
const clock = manualClock(new Date('2026-11-23T15:00:00Z')); // Monday 12:00 in São Paulo
const t = await testApp({ deps: { clock, jobs: { autoStart: false } } });
const db = t.database.db;
const { bus, jobs } = t.app.services;
const kit = botKit(t);
const MIN = 60_000;

interface Ev {
  id: number;
  type: string;
  actorKind: string;
  actorId: number | null;
  actorName: string | null;
  data: Record<string, unknown>;
  createdAt: string;
}

const settle = async () => {
  await bus.idle();
  await jobs.runDue();
  await bus.idle();
};

async function eventsOf(s: Session, ticketId: number, query = ''): Promise<Ev[]> {
  await bus.idle();
  const res = await t.as(s).get(`/tickets/${ticketId}/events${query}`);
  expect(res.status, await res.clone().text()).toBe(200);
  return (await res.json()).events;
}

async function queue(admin: Session, name: string) {
  const res = await t.as(admin).post('/queue', {
    name,
    color: `#${Math.floor(Math.random() * 0xffffff)
      .toString(16)
      .padStart(6, '0')}`,
  });
  expect(res.status, await res.clone().text()).toBe(201);
  return (await res.json()).id as number;
}

/** A company with a simulator connection that asks for ratings, and a customer's new ticket on it. */
async function scenario(name: string) {
  const c = await t.company(name);
  expect((await t.as(c.admin).put('/settings/userRating', { value: 'enabled' })).status).toBe(200);
  const w = await (
    await t.as(c.admin).post('/whatsapp', {
      name: unique('Sim '),
      channel: 'simulator',
      ratingMessage: 'Avalie o atendimento, por favor.',
    })
  ).json();
  const number = newNumber();
  const says = async (body: string) => {
    const res = await t
      .as(c.admin)
      .post(`/simulator/${w.id}/inbound`, { from: number, name: 'Cliente', body });
    expect(res.status).toBe(202);
  };
  await says('Olá, preciso de ajuda');
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
  return { ...c, whatsappId: w.id as number, number, says, ticketId: ticket.id };
}

const put = async (s: Session, ticketId: number, body: Record<string, unknown>) => {
  const res = await t.as(s).put(`/tickets/${ticketId}`, body);
  expect(res.status, await res.clone().text()).toBe(200);
  await bus.idle();
  return res.json();
};

describe('ticket timeline', () => {
  test('every action through HTTP is recorded with its actor, time and details, oldest first', async () => {
    const s = await scenario('TimelineA');
    const adminId = s.admin.user.id;
    const vendas = await queue(s.admin, 'Vendas');
    const suporte = await queue(s.admin, 'Suporte');
    const ana = await t.user(s.admin);
    // Ana works in both queues.
    expect((await t.as(s.admin).put(`/users/${ana.user.id}`, { queueIds: [vendas, suporte] })).status).toBe(
      200,
    );

    await put(s.admin, s.ticketId, { status: 'open' });
    await put(s.admin, s.ticketId, { priority: 'urgent' });
    const tag = await (await t.as(s.admin).post('/tags', { name: 'VIP', color: '#aa0000' })).json();
    expect((await t.as(s.admin).put(`/ticket-tags/${s.ticketId}/${tag.id}`)).status).toBe(200);
    expect((await t.as(s.admin).del(`/ticket-tags/${s.ticketId}/${tag.id}`)).status).toBe(200);
    // The tag's entries come from a listener after the answer; the note's is written with the note. A
    // person's next action comes seconds later: here, once the listener wrote.
    await bus.idle();
    const note = await t
      .as(s.admin)
      .post('/ticket-notes', { ticketId: s.ticketId, note: 'Cliente pediu 2ª via' });
    expect(note.status).toBe(201);
    await put(s.admin, s.ticketId, { queueId: vendas });
    await put(ana, s.ticketId, { status: 'open' });
    await put(ana, s.ticketId, { queueId: suporte, userId: adminId });
    await put(s.admin, s.ticketId, { status: 'pending' });
    await put(s.admin, s.ticketId, { status: 'open' });
    const snooze = await t.as(s.admin).post(`/tickets/${s.ticketId}/snooze`, { untilReply: true });
    expect(snooze.status, await snooze.clone().text()).toBe(200);
    await bus.idle();
    expect((await t.as(s.admin).del(`/tickets/${s.ticketId}/snooze`)).status).toBe(200);
    await bus.idle();
    // Closing reasons (#32.3) when the company has one.
    const reason = await t.as(s.admin).post('/closing-reasons', { name: 'Venda feita' });
    const reasonId = reason.status === 201 ? ((await reason.json()).id as number) : undefined;
    await put(s.admin, s.ticketId, {
      status: 'closed',
      ...(reasonId ? { closingReasonId: reasonId, saleValue: 150.5 } : {}),
    });
    await s.says('3');
    await waitFor(async () => (await eventsOf(s.admin, s.ticketId)).some((e) => e.type === 'rated'));
    await put(s.admin, s.ticketId, { status: 'open' });

    const events = await eventsOf(s.admin, s.ticketId);
    expect(events.map((e) => e.type)).toEqual([
      'created',
      'accepted',
      'priority',
      'tag_added',
      'tag_removed',
      'note',
      'transferred',
      'accepted',
      'transferred',
      'returned',
      'accepted',
      'snoozed',
      'woken',
      'resolved',
      'rated',
      'reopened',
    ]);
    const ids = events.map((e) => e.id);
    expect([...ids].sort((a, b) => a - b)).toEqual(ids);
    for (const e of events) expect(Number.isNaN(Date.parse(e.createdAt))).toBe(false);
    const [created, accepted, priority, tagAdded, tagRemoved, noted, toVendas, anaAccepts, toSuporte] =
      events;
    expect(created).toMatchObject({ actorKind: 'customer', actorId: null });
    expect(accepted).toMatchObject({
      actorKind: 'user',
      actorId: adminId,
      actorName: 'TimelineA Admin',
      data: { to: { userId: adminId, userName: 'TimelineA Admin' } },
    });
    expect(priority).toMatchObject({ actorId: adminId, data: { from: 'normal', to: 'urgent' } });
    expect(tagAdded).toMatchObject({ actorId: adminId, data: { tag: { id: tag.id, name: 'VIP' } } });
    expect(tagRemoved).toMatchObject({ actorId: adminId, data: { tag: { id: tag.id, name: 'VIP' } } });
    expect(noted).toMatchObject({ actorId: adminId, data: { note: 'Cliente pediu 2ª via' } });
    expect(toVendas).toMatchObject({
      actorId: adminId,
      data: {
        from: { queueId: null, userId: adminId, userName: 'TimelineA Admin' },
        to: { queueId: vendas, queueName: 'Vendas', userId: null },
      },
    });
    expect(anaAccepts).toMatchObject({ actorId: ana.user.id, actorName: 'A user' });
    expect(toSuporte).toMatchObject({
      actorId: ana.user.id,
      data: {
        from: { queueId: vendas, queueName: 'Vendas', userId: ana.user.id, userName: 'A user' },
        to: { queueId: suporte, queueName: 'Suporte', userId: adminId, userName: 'TimelineA Admin' },
      },
    });
    const byType = (type: string) => events.filter((e) => e.type === type);
    expect(byType('returned')[0]).toMatchObject({ actorId: adminId, data: { from: { queueId: suporte } } });
    expect(byType('snoozed')[0]).toMatchObject({ actorId: adminId, data: { untilReply: true } });
    expect(byType('woken')[0]).toMatchObject({ actorId: adminId, data: { reason: 'manual' } });
    expect(byType('resolved')[0]).toMatchObject({ actorId: adminId, actorKind: 'user' });
    if (reasonId)
      expect(byType('resolved')[0]!.data).toMatchObject({
        reasonId,
        reason: 'Venda feita',
        saleValue: 150.5,
      });
    expect(byType('rated')[0]).toMatchObject({ actorKind: 'customer', data: { rate: 3 } });
    expect(byType('reopened')[0]).toMatchObject({ actorId: adminId });

    // Paging: oldest first after a cursor, the page before a cursor, and the limit.
    const first = await (await t.as(s.admin).get(`/tickets/${s.ticketId}/events?limit=5`)).json();
    expect(first).toMatchObject({ count: events.length, hasMore: true });
    expect(first.events.map((e: Ev) => e.id)).toEqual(ids.slice(0, 5));
    const next = await eventsOf(s.admin, s.ticketId, `?after=${ids[4]}&limit=5`);
    expect(next.map((e) => e.id)).toEqual(ids.slice(5, 10));
    const before = await (
      await t.as(s.admin).get(`/tickets/${s.ticketId}/events?before=${ids[10]}&limit=3`)
    ).json();
    expect(before.events.map((e: Ev) => e.id)).toEqual(ids.slice(7, 10));
    expect(before.hasMore).toBe(true);
    await expectError(
      await t.as(s.admin).get(`/tickets/${s.ticketId}/events?limit=0`),
      400,
      'ERR_VALIDATION',
    );
    await expectError(
      await t.as(s.admin).get(`/tickets/${s.ticketId}/events?before=x`),
      400,
      'ERR_VALIDATION',
    );
    await expectError(await t.as(s.admin).get(`/tickets/abc/events`), 400, 'ERR_VALIDATION');
    await expectError(await t.as(s.admin).get(`/tickets/99999999/events`), 404, 'ERR_NO_TICKET_FOUND');
  });

  test('another company cannot read the events; an attendant who cannot see the ticket gets what the ticket route gives', async () => {
    const s = await scenario('TimelineB');
    const vendas = await queue(s.admin, 'Vendas');
    await put(s.admin, s.ticketId, { queueId: vendas });
    expect(await eventsOf(s.admin, s.ticketId)).not.toHaveLength(0);

    const other = await t.company('TimelineOther');
    await expectError(
      await t.as(other.admin).get(`/tickets/${s.ticketId}/events`),
      404,
      'ERR_NO_TICKET_FOUND',
    );
    // Nothing to change: the timeline is append-only.
    expect((await t.as(s.admin).del(`/tickets/${s.ticketId}/events`)).status).toBe(404);
    expect((await t.as(s.admin).put(`/tickets/${s.ticketId}/events`, {})).status).toBe(404);

    // An attendant without the queue: the ticket route refuses, and so does the timeline.
    const outsider = await t.user(s.admin);
    const ticketRoute = await t.as(outsider).get(`/tickets/${s.ticketId}`);
    expect(ticketRoute.status).toBe(403);
    await expectError(await t.as(outsider).get(`/tickets/${s.ticketId}/events`), 403, 'ERR_NO_PERMISSION');
    // Given the queue, the attendant reads it.
    expect((await t.as(s.admin).put(`/users/${outsider.user.id}`, { queueIds: [vendas] })).status).toBe(200);
    const outsiderAgain = await t.login(outsider.user.email, 'User@123');
    expect((await t.as(outsiderAgain).get(`/tickets/${s.ticketId}/events`)).status).toBe(200);
    // Only the company's own rows were ever written for it.
    const rows = await db.select().from(ticketEvents).where(eq(ticketEvents.ticketId, s.ticketId));
    expect(rows.every((r) => r.companyId === s.id)).toBe(true);
  });

  test("the bot's menu choices are bot steps, not transfers", async () => {
    const c = await t.company('TimelineBot');
    const { whatsappId, queues, options } = await kit.setup(c.admin, [
      {
        name: 'Vendas',
        orderQueue: 1,
        options: [{ title: 'Planos', children: [{ title: 'Fibra', message: 'Um momento.' }] }],
      },
      { name: 'Suporte', orderQueue: 2 },
    ]);
    const number = newNumber();
    await kit.say(c.admin, whatsappId, number, 'Oi');
    await kit.say(c.admin, whatsappId, number, '1');
    await kit.say(c.admin, whatsappId, number, '1');
    await kit.say(c.admin, whatsappId, number, '1');
    const ticket = await kit.ticketOf(c.id, whatsappId, number);
    const events = await eventsOf(c.admin, ticket.id);
    expect(events.map((e) => e.type)).toEqual(['created', 'bot', 'bot', 'bot']);
    expect(events[1]).toMatchObject({
      actorKind: 'bot',
      actorId: null,
      data: { queue: { id: queues['Vendas'], name: 'Vendas' } },
    });
    expect(events[2]!.data).toMatchObject({ option: { id: options['Planos'], title: 'Planos' } });
    expect(events[3]!.data).toMatchObject({ option: { id: options['Fibra'], title: 'Fibra' } });
  });

  test('a flow records the nodes it entered', async () => {
    const c = await t.company('TimelineFlow');
    const { whatsappId } = await kit.setup(c.admin, [{ name: 'Fila' }]);
    await flowApi(t, c.admin).onConnection(
      whatsappId,
      chain([{ id: 'hello', type: 'message', label: 'Boas-vindas', data: { text: 'Olá do fluxo' } }]),
    );
    const number = newNumber();
    await kit.say(c.admin, whatsappId, number, 'Oi');
    const ticket = await kit.ticketOf(c.id, whatsappId, number);
    const events = await waitFor(async () => {
      const list = await eventsOf(c.admin, ticket.id);
      return list.some((e) => e.type === 'flow') && list;
    });
    expect(events[0]!.type).toBe('created');
    const flow = events.find((e) => e.type === 'flow')!;
    expect(flow.actorKind).toBe('flow');
    expect(flow.data).toMatchObject({ nodes: [{ id: 'hello', label: 'Boas-vindas' }] });
  });

  test("a run's later steps are labelled too (from the version the listener kept)", async () => {
    const c = await t.company('TimelineFlowSteps');
    const { whatsappId } = await kit.setup(c.admin, [{ name: 'Fila' }]);
    const flow = await flowApi(t, c.admin).onConnection(
      whatsappId,
      chain([
        { id: 'ask', type: 'question', label: 'Nome', data: { text: 'Seu nome?', variable: 'name' } },
        { id: 'bye', type: 'message', label: 'Despedida', data: { text: 'Até logo' } },
      ]),
    );
    const number = newNumber();
    await kit.say(c.admin, whatsappId, number, 'Oi');
    const ticket = await kit.ticketOf(c.id, whatsappId, number);
    await waitFor(
      async () => (await eventsOf(c.admin, ticket.id)).some((e) => e.type === 'flow') || undefined,
    );
    await kit.say(c.admin, whatsappId, number, 'Maria');
    const entries = await waitFor(async () => {
      const list = (await eventsOf(c.admin, ticket.id)).filter((e) => e.type === 'flow');
      return list.length === 2 && list;
    });
    const nodes = entries.map((e) => (e.data as { nodes: unknown[] }).nodes).flat();
    expect(nodes).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ id: 'ask', label: 'Nome' }),
        expect.objectContaining({ id: 'bye', label: 'Despedida' }),
      ]),
    );
    for (const e of entries) expect(e.data).toMatchObject({ flow: { id: flow.id } });
    expect(entries.every((e) => (e.data as { flow: { name: string | null } }).flow.name)).toBe(true);
  });

  test('an SLA breach is on the timeline, by the system', async () => {
    const c = await t.company('TimelineSla');
    const q = await queue(c.admin, 'Fila SLA');
    const p = await t
      .as(c.admin)
      .post('/sla-policies', { name: 'Rápido', firstResponseMinutes: 5, queueIds: [q] });
    expect(p.status, await p.clone().text()).toBe(201);
    const w = await (await t.as(c.admin).post('/whatsapp', { name: 'Sim', channel: 'simulator' })).json();
    const contact = await (
      await t.as(c.admin).post('/contacts', { name: 'Cliente', number: newNumber() })
    ).json();
    const res = await t
      .as(c.admin)
      .post('/tickets', { contactId: contact.id, whatsappId: w.id, queueId: q, status: 'pending' });
    expect(res.status, await res.clone().text()).toBe(201);
    const ticketId = (await res.json()).id as number;
    await settle();
    clock.advance(6 * MIN);
    await settle();
    const events = await waitFor(async () => {
      const list = await eventsOf(c.admin, ticketId);
      return list.some((e) => e.type === 'sla_breached') && list;
    });
    expect(events[0]).toMatchObject({ type: 'created', actorKind: 'user', actorId: c.admin.user.id });
    expect(events.find((e) => e.type === 'sla_breached')).toMatchObject({
      actorKind: 'system',
      actorId: null,
      data: { kind: 'first_response' },
    });
  });
});
