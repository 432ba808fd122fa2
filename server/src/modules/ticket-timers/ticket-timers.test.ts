import { beforeEach, describe, expect, test } from 'vitest';
import { and, eq } from 'drizzle-orm';
import type { Socket } from 'socket.io-client';
import { contacts, ticketHistories, tickets } from '../../db/schema/index.js';
import { manualClock } from '../../lib/clock.js';
import { buildApp } from '../../app.js';
import { collectEvents, testApp, unique, type Session, waitFor } from '../../../test/helpers.js';

// Business time starts now (inbound messages stamp tickets with the real time) and moves only when told.
const clock = manualClock(new Date());
const t = await testApp({ deps: { clock, jobs: { autoStart: false } } });
const db = t.database.db;
const MIN = 60_000;

let numberSeq = 0;
/** A unique Brazilian mobile per test, so no test sees another's customer. */
const newNumber = () =>
  `55119${String(Date.now() % 10_000).padStart(4, '0')}${String(numberSeq++).padStart(4, '0')}`;

async function connection(admin: Session, body: Record<string, unknown>) {
  const res = await t.as(admin).post('/whatsapp', { name: unique('Sim '), channel: 'simulator', ...body });
  expect(res.status, await res.clone().text()).toBe(201);
  return (await res.json()) as { id: number };
}

/** The customer writes; resolves with the customer's ticket once the pipeline stored it. */
async function customerWrites(
  admin: Session,
  whatsappId: number,
  number: string,
  body = 'Oi, preciso de ajuda',
) {
  const res = await t
    .as(admin)
    .post(`/simulator/${whatsappId}/inbound`, { from: number, name: 'Cliente', body });
  expect(res.status).toBe(202);
  return waitFor(async () => {
    const [row] = await db
      .select({ ticket: tickets })
      .from(tickets)
      .innerJoin(contacts, eq(contacts.id, tickets.contactId))
      .where(and(eq(contacts.number, number), eq(tickets.whatsappId, whatsappId)));
    return row?.ticket;
  });
}

const phone = async (admin: Session, whatsappId: number, number: string) =>
  (await (await t.as(admin).get(`/simulator/${whatsappId}/conversations/${number}`)).json()) as {
    fromMe: boolean;
    body: string;
  }[];

const ticketRow = async (id: number) => (await db.select().from(tickets).where(eq(tickets.id, id)))[0]!;
const historyOf = (id: number) =>
  db.select().from(ticketHistories).where(eq(ticketHistories.ticketId, id)).orderBy(ticketHistories.id);

async function listen(token: string, companyId: number) {
  const socket: Socket = await t.socket(token);
  await new Promise((r) => socket.emit('joinNotification', r));
  const seen: { action: string; ticket: { id: number; status: string; queueId: number | null } }[] = [];
  socket.on(`company-${companyId}-ticket`, (p) => seen.push(p));
  return { socket, seen };
}

describe('ticket timers', () => {
  // Messages stamp tickets and histories with the real time: each test starts the clock at the real time
  // again, and with it the sweep's next run (it would otherwise wait where an earlier test left the clock).
  beforeEach(async () => {
    clock.set(new Date());
    await t.app.services.jobs.schedule(t.app.services.ticketTimers.jobs.sweep, {
      key: 'every',
      runAt: clock.now(),
      payload: {},
    });
  });

  test('expiresTicket closes an inactive open ticket once, and the customer gets the message once', async () => {
    const a = await t.company('Expira');
    const w = await connection(a.admin, {
      expiresTicket: 5,
      expiresInactiveMessage: 'Encerramos por falta de interação.',
    });
    const number = newNumber();
    const ticket = await customerWrites(a.admin, w.id, number);
    expect((await t.as(a.admin).put(`/tickets/${ticket.id}`, { status: 'open' })).status).toBe(200);
    const { seen } = await listen(a.admin.token, a.id);

    clock.advance(4 * MIN);
    await t.app.services.jobs.runDue();
    expect((await ticketRow(ticket.id)).status).toBe('open');

    clock.advance(2 * MIN);
    await t.app.services.jobs.runDue();
    const closed = await ticketRow(ticket.id);
    expect(closed.status).toBe('closed');
    expect(closed.closedAt).not.toBeNull();
    const last = (await historyOf(ticket.id)).at(-1)!;
    expect(last).toMatchObject({ action: 'close', status: 'closed', userId: null });
    expect(last.data).toMatchObject({ by: 'expiry' });
    await waitFor(async () => seen.some((e) => e.ticket.id === ticket.id && e.ticket.status === 'closed'));

    const expiryMessages = async () =>
      (await phone(a.admin, w.id, number)).filter((m) => m.fromMe && m.body.includes('falta de interação'));
    await waitFor(async () => (await expiryMessages()).length === 1);

    // Later sweeps (and a retried one) find nothing more to do.
    clock.advance(10 * MIN);
    await t.app.services.jobs.runDue();
    await t.app.services.ticketTimers.sweep();
    expect((await historyOf(ticket.id)).filter((h) => h.action === 'close')).toHaveLength(1);
    expect(await expiryMessages()).toHaveLength(1);
  });

  test('a ticket with recent activity, a pending one, and a connection with expiresTicket 0 are left alone', async () => {
    const a = await t.company('Ativo');
    const w = await connection(a.admin, { expiresTicket: 5 });
    const off = await connection(a.admin, { expiresTicket: 0 });
    const busy = await customerWrites(a.admin, w.id, newNumber());
    await t.as(a.admin).put(`/tickets/${busy.id}`, { status: 'open' });
    const waiting = await customerWrites(a.admin, w.id, newNumber());
    const never = await customerWrites(a.admin, off.id, newNumber());
    await t.as(a.admin).put(`/tickets/${never.id}`, { status: 'open' });

    clock.advance(4 * MIN);
    // The attendant answers: the inactivity counts from here.
    await db.update(tickets).set({ updatedAt: clock.now() }).where(eq(tickets.id, busy.id));
    clock.advance(3 * MIN);
    await t.app.services.jobs.runDue();
    expect((await ticketRow(busy.id)).status).toBe('open');
    expect((await ticketRow(waiting.id)).status).toBe('pending');
    expect((await ticketRow(never.id)).status).toBe('open');
    clock.advance(3 * MIN);
    await t.app.services.jobs.runDue();
    expect((await ticketRow(busy.id)).status).toBe('closed');
    expect((await ticketRow(never.id)).status).toBe('open');
  });

  test('a restart between the due time and the sweep loses nothing: a fresh process closes it once', async () => {
    const a = await t.company('Reinicio');
    const w = await connection(a.admin, {
      expiresTicket: 2,
      expiresInactiveMessage: 'Atendimento encerrado (reinício).',
    });
    const number = newNumber();
    const ticket = await customerWrites(a.admin, w.id, number);
    await t.as(a.admin).put(`/tickets/${ticket.id}`, { status: 'open' });

    // Time passes while no process sweeps (the old one died); a new process starts with nothing in memory.
    clock.advance(5 * MIN);
    const fresh = await buildApp({
      config: t.config,
      database: t.database,
      logger: false,
      clock: manualClock(clock.now()),
      jobs: { autoStart: false },
      sessions: { autoStart: false },
    });
    try {
      await fresh.services.jobs.runDue();
    } finally {
      await fresh.close();
    }
    expect((await ticketRow(ticket.id)).status).toBe('closed');
    // The connection runs in the first process: the message went out from there, once.
    const sent = async () =>
      (await phone(a.admin, w.id, number)).filter((m) => m.fromMe && m.body.includes('reinício'));
    await waitFor(async () => (await sent()).length === 1);
    await t.app.services.jobs.runDue();
    expect((await historyOf(ticket.id)).filter((h) => h.action === 'close')).toHaveLength(1);
    expect(await sent()).toHaveLength(1);
  });

  test('timeToTransfer moves an unattended pending ticket to the transfer queue, once; it stays pending', async () => {
    const a = await t.company('Transfere');
    const queueRes = await t.as(a.admin).post('/queue', { name: 'Suporte N2', color: '#0B8043' });
    expect(queueRes.status).toBe(201);
    const queue = (await queueRes.json()) as { id: number };
    const w = await connection(a.admin, { timeToTransfer: 3, transferQueueId: queue.id });
    const attendant = await t.user(a.admin, 'user');
    await t.as(a.admin).put(`/users/${attendant.user.id}`, {
      queueIds: [queue.id],
      showQueuelessTickets: false,
    });
    const { seen } = await listen(a.admin.token, a.id);
    const ticket = await customerWrites(a.admin, w.id, newNumber());
    const taken = await customerWrites(a.admin, w.id, newNumber());
    await t.as(a.admin).put(`/tickets/${taken.id}`, { status: 'open' });

    clock.advance(2 * MIN);
    await t.app.services.jobs.runDue();
    expect((await ticketRow(ticket.id)).queueId).toBeNull();

    clock.advance(2 * MIN);
    await t.app.services.jobs.runDue();
    const moved = await ticketRow(ticket.id);
    expect(moved).toMatchObject({ status: 'pending', queueId: queue.id, userId: null });
    const last = (await historyOf(ticket.id)).at(-1)!;
    expect(last).toMatchObject({ action: 'transfer', queueId: queue.id, userId: null });
    expect(last.data).toMatchObject({ by: 'timer', from: { queueId: null } });
    await waitFor(async () => seen.some((e) => e.ticket.id === ticket.id && e.ticket.queueId === queue.id));
    // The ticket an attendant took is not moved.
    expect((await ticketRow(taken.id)).queueId).toBeNull();

    // The queue's attendant now sees it.
    expect((await t.as(attendant).get(`/tickets/${ticket.id}`)).status).toBe(200);

    clock.advance(10 * MIN);
    await t.app.services.jobs.runDue();
    expect((await historyOf(ticket.id)).filter((h) => h.action === 'transfer')).toHaveLength(1);
  });

  test("another company's connection settings never touch the first company's tickets, nor reach its sockets", async () => {
    const a = await t.company('Primeira');
    const b = await t.company('Segunda');
    const wa = await connection(a.admin, { expiresTicket: 0 });
    const aTicket = await customerWrites(a.admin, wa.id, newNumber());
    await t.as(a.admin).put(`/tickets/${aTicket.id}`, { status: 'open' });
    const aPending = await customerWrites(a.admin, wa.id, newNumber());

    // B cannot point its transfer at A's queue.
    const aQueue = (await (
      await t.as(a.admin).post('/queue', { name: 'Fila A', color: '#E67C73' })
    ).json()) as {
      id: number;
    };
    const refused = await t.as(b.admin).post('/whatsapp', {
      name: 'Sim B',
      channel: 'simulator',
      transferQueueId: aQueue.id,
      timeToTransfer: 1,
    });
    expect(refused.status).toBeGreaterThanOrEqual(400);
    expect(refused.status).toBeLessThan(500);
    // Nor change A's connection timers.
    expect((await t.as(b.admin).put(`/whatsapp/${wa.id}`, { expiresTicket: 1 })).status).toBe(404);

    const bQueue = (await (
      await t.as(b.admin).post('/queue', { name: 'Fila B', color: '#E67C73' })
    ).json()) as {
      id: number;
    };
    const wb = await connection(b.admin, { expiresTicket: 1, timeToTransfer: 1, transferQueueId: bQueue.id });
    const bTicket = await customerWrites(b.admin, wb.id, newNumber());
    await t.as(b.admin).put(`/tickets/${bTicket.id}`, { status: 'open' });

    const bSocket = await t.socket(b.admin.token);
    bSocket.emit('joinNotification');
    const aEventsAtB = collectEvents(bSocket, `company-${a.id}-ticket`, 800);
    clock.advance(30 * MIN);
    await t.app.services.jobs.runDue();
    expect((await ticketRow(bTicket.id)).status).toBe('closed');
    expect((await ticketRow(aTicket.id)).status).toBe('open');
    expect(await ticketRow(aPending.id)).toMatchObject({ status: 'pending', queueId: null });
    expect(await aEventsAtB).toEqual([]);
  });
});
