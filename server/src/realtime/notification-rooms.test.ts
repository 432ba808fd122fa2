import { describe, expect, test } from 'vitest';
import { eq } from 'drizzle-orm';
import type { Socket } from 'socket.io-client';
import { queues, tickets, userQueues, users } from '../db/schema/index.js';
import { testApp, type Session, waitFor } from '../../test/helpers.js';

// The rule itself, its rooms and its SQL are checked on one table in modules/tickets/visibility.test.ts.

const t = await testApp();
const db = t.database.db;

/** Everything a socket hears on the company's ticket and message events, after joinNotification only. */
async function listener(session: Session, companyId: number) {
  const socket: Socket = await t.socket(session.token);
  const heard: { event: string; ticketId: number; body?: string }[] = [];
  socket.onAny(
    (event: string, p: { ticket?: { id: number }; ticketId?: number; message?: { body: string } }) => {
      if (!event.startsWith(`company-${companyId}-`)) heard.push({ event, ticketId: -1 });
      else if (event.endsWith('-ticket') || event.endsWith('-appMessage'))
        heard.push({ event, ticketId: p.ticket?.id ?? p.ticketId ?? -1, body: p.message?.body });
    },
  );
  const ok = await new Promise<{ ok: boolean }>((resolve) => socket.emit('joinNotification', resolve));
  expect(ok.ok).toBe(true);
  return heard;
}

describe('the server sends ticket notifications only to those who may see the ticket', () => {
  test('queue attendants hear their queue, admins hear everything, allTicket users hear waiting tickets', async () => {
    const c = await t.company('Notif');
    const w = await (await t.as(c.admin).post('/whatsapp', { name: 'Sim', channel: 'simulator' })).json();
    const [qa, qb] = await db
      .insert(queues)
      .values([
        { companyId: c.id, name: 'Vendas', color: '#aa0000' },
        { companyId: c.id, name: 'Suporte', color: '#0000aa' },
      ])
      .returning();
    const attendantA = await t.user(c.admin, 'user');
    const attendantB = await t.user(c.admin, 'user');
    const waiting = await t.user(c.admin, 'user');
    await db.insert(userQueues).values([
      { userId: attendantA.user.id, queueId: qa!.id },
      { userId: attendantB.user.id, queueId: qb!.id },
      { userId: waiting.user.id, queueId: qa!.id },
    ]);
    for (const u of [attendantA, attendantB, waiting])
      await db.update(users).set({ showQueuelessTickets: false }).where(eq(users.id, u.user.id));
    await db.update(users).set({ allTicket: 'enabled' }).where(eq(users.id, waiting.user.id));
    const rival = await t.company('NotifRival');

    const heard = {
      admin: await listener(c.admin, c.id),
      a: await listener(attendantA, c.id),
      b: await listener(attendantB, c.id),
      waiting: await listener(waiting, c.id),
      rival: await listener(rival.admin, rival.id),
    };
    const customer = async (from: string, body: string) => {
      await t.as(c.admin).post(`/simulator/${w.id}/inbound`, { from, body });
      return waitFor(async () => {
        const [row] = await db.select().from(tickets).where(eq(tickets.lastMessage, body));
        return row;
      });
    };
    const messageHeard = (list: { body?: string }[], body: string) => list.some((h) => h.body === body);

    // A ticket in queue B.
    const tb = await customer('5511933330001', 'primeira B');
    await db.update(tickets).set({ queueId: qb!.id }).where(eq(tickets.id, tb.id));
    await customer('5511933330001', 'mensagem na fila B');
    await waitFor(() => messageHeard(heard.admin, 'mensagem na fila B'));
    await waitFor(() => messageHeard(heard.b, 'mensagem na fila B'));
    // Pending with a queue: allTicket users hear it too.
    await waitFor(() => messageHeard(heard.waiting, 'mensagem na fila B'));

    // A ticket in queue A.
    const ta = await customer('5511933330002', 'primeira A');
    await db.update(tickets).set({ queueId: qa!.id }).where(eq(tickets.id, ta.id));
    await customer('5511933330002', 'mensagem na fila A');
    await waitFor(() => messageHeard(heard.a, 'mensagem na fila A'));
    await waitFor(() => messageHeard(heard.admin, 'mensagem na fila A'));

    // Once accepted by B's attendant... (an open ticket of queue B is no longer for allTicket users)
    await db.update(tickets).set({ status: 'open', userId: attendantB.user.id }).where(eq(tickets.id, tb.id));
    await customer('5511933330001', 'aberto na fila B');
    await waitFor(() => messageHeard(heard.b, 'aberto na fila B'));
    await waitFor(() => messageHeard(heard.admin, 'aberto na fila B'));

    // The admin transfers A's ticket to queue B: A's attendant hears it leave, B's hears it arrive.
    const moved = await t.as(c.admin).put(`/tickets/${ta.id}`, { queueId: qb!.id });
    expect(moved.status).toBe(200);
    await waitFor(() => heard.a.some((h) => h.ticketId === ta.id && h.event.endsWith('-ticket')));
    await waitFor(() => heard.b.some((h) => h.ticketId === ta.id && h.event.endsWith('-ticket')));
    await customer('5511933330002', 'transferido para B');
    await waitFor(() => messageHeard(heard.b, 'transferido para B'));
    // A last event every socket may hear, so nothing is still in flight for the checks below.
    await customer('5511933330003', 'marco final');
    await waitFor(() => messageHeard(heard.admin, 'marco final'));
    await customer('5511933330001', 'fim B');
    await waitFor(() => messageHeard(heard.b, 'fim B'));

    const bodies = (list: { body?: string }[]) => list.map((h) => h.body).filter(Boolean);
    // Queue A's attendant never heard queue B's messages, nor the queueless ones (showQueuelessTickets off).
    expect(bodies(heard.a)).not.toContain('mensagem na fila B');
    expect(bodies(heard.a)).not.toContain('aberto na fila B');
    expect(bodies(heard.a)).not.toContain('transferido para B');
    expect(bodies(heard.a)).not.toContain('marco final');
    expect(bodies(heard.a)).not.toContain('primeira B');
    // Queue B's attendant never heard queue A's.
    expect(bodies(heard.b)).not.toContain('mensagem na fila A');
    // The allTicket user hears waiting tickets of other queues, not open ones.
    expect(bodies(heard.waiting)).not.toContain('aberto na fila B');
    // The admin heard everything.
    for (const b of [
      'mensagem na fila B',
      'mensagem na fila A',
      'aberto na fila B',
      'transferido para B',
      'marco final',
    ])
      expect(bodies(heard.admin)).toContain(b);
    // Another company heard nothing of this one.
    expect(heard.rival).toEqual([]);
  });
});

/** Joins every room a client may ask for, and records every event it hears. */
async function everyRoom(session: Session, asks: string[]) {
  const socket: Socket = await t.socket(session.token);
  const heard: { event: string; payload: unknown }[] = [];
  socket.onAny((event: string, payload: unknown) => heard.push({ event, payload }));
  const answers: Record<string, boolean> = {};
  for (const ask of ['notification', 'open', 'pending', 'closed', 'group', ...asks])
    answers[ask] = (await new Promise<{ ok: boolean }>((resolve) => socket.emit('join', ask, resolve))).ok;
  return { heard, answers };
}

describe('status lists and simulator events reach only those who may see the ticket', () => {
  test('an attendant of queue 1 hears 0 events of a queue 2 ticket on every room it can join', async () => {
    const c = await t.company('StatusRooms');
    const w = await (await t.as(c.admin).post('/whatsapp', { name: 'Sim', channel: 'simulator' })).json();
    const [q1, q2] = await db
      .insert(queues)
      .values([
        { companyId: c.id, name: 'Um', color: '#aa0000' },
        { companyId: c.id, name: 'Dois', color: '#0000aa' },
      ])
      .returning();
    const one = await t.user(c.admin, 'user');
    const two = await t.user(c.admin, 'user');
    await db.insert(userQueues).values([
      { userId: one.user.id, queueId: q1!.id },
      { userId: two.user.id, queueId: q2!.id },
    ]);
    for (const u of [one, two])
      await db.update(users).set({ showQueuelessTickets: false }).where(eq(users.id, u.user.id));
    const customer = async (from: string, body: string) => {
      await t.as(c.admin).post(`/simulator/${w.id}/inbound`, { from, body });
      return waitFor(async () => {
        const [row] = await db.select().from(tickets).where(eq(tickets.lastMessage, body));
        return row;
      });
    };
    // The queue 2 ticket exists before anyone listens, so its room can be asked for by id.
    const tk = await customer('5511944440002', 'fila dois: oi');
    await db.update(tickets).set({ queueId: q2!.id }).where(eq(tickets.id, tk.id));

    const asks = [`ticket-${tk.id}`, `simulator-${w.id}-5511944440002`, `simulator-${w.id}`];
    const attendant = await everyRoom(one, asks);
    const owner = await everyRoom(two, asks);
    const admin = await everyRoom(c.admin, asks);
    // An admin's browser that is not on the simulator page hears nothing of the customers' phones.
    const elsewhere = await everyRoom(c.admin, []);
    // The attendant of queue 1 is refused the queue 2 ticket's and conversation's rooms; the others are not.
    expect(attendant.answers).toMatchObject({
      notification: true,
      open: true,
      pending: true,
      [asks[0]!]: false,
      [asks[1]!]: false,
    });
    expect(owner.answers).toMatchObject({ [asks[0]!]: true, [asks[1]!]: true });
    expect(admin.answers).toMatchObject({ [asks[0]!]: true, [asks[1]!]: true, [asks[2]!]: true });
    // The whole connection's phone traffic is for those who read every conversation (managers) only.
    expect(attendant.answers[asks[2]!]).toBe(false);
    expect(owner.answers[asks[2]!]).toBe(false);

    // Everything that can happen to the queue 2 ticket: messages in, the attendant's reply, reading,
    // accepting, closing, and the simulator's customer-side events.
    await customer('5511944440002', 'fila dois: mensagem');
    expect((await t.as(two).get(`/messages/${tk.id}`)).status).toBe(200);
    expect((await t.as(two).put(`/tickets/${tk.id}`, { status: 'open' })).status).toBe(200);
    const sent = await t.as(two).post(`/messages/${tk.id}`, { body: 'fila dois: resposta' });
    expect(sent.status, await sent.clone().text()).toBeLessThan(300);
    expect((await t.as(two).put(`/tickets/${tk.id}`, { status: 'closed' })).status).toBe(200);
    const said = (list: { payload: unknown }[], text: string) =>
      list.some((h) => JSON.stringify(h.payload).includes(text));
    await waitFor(() => said(owner.heard, 'fila dois: resposta') && said(admin.heard, 'fila dois: resposta'));
    await waitFor(
      () =>
        owner.heard.some((h) => h.event === `company-${c.id}-simulator`) &&
        admin.heard.some((h) => h.event === `company-${c.id}-simulator`),
    );
    await waitFor(() =>
      admin.heard.some(
        (h) =>
          h.event.endsWith('-ticket') &&
          (h.payload as { ticket?: { status?: string } }).ticket?.status === 'closed',
      ),
    );
    // A last event the attendant may hear (a queue 1 ticket), so nothing is still in flight.
    const mine = await customer('5511944440001', 'fila um: oi');
    await db.update(tickets).set({ queueId: q1!.id }).where(eq(tickets.id, mine.id));
    await customer('5511944440001', 'fila um: marco');
    await waitFor(() => said(attendant.heard, 'fila um: marco'));

    const aboutQueue2 = attendant.heard.filter((h) => {
      const p = h.payload as { ticket?: { id?: number }; ticketId?: number; message?: { ticketId?: number } };
      return (
        JSON.stringify(p).includes('fila dois') ||
        p?.ticket?.id === tk.id ||
        p?.ticketId === tk.id ||
        p?.message?.ticketId === tk.id
      );
    });
    expect(aboutQueue2).toEqual([]);
    expect(attendant.heard.filter((h) => h.event === `company-${c.id}-simulator`)).toEqual([]);
    // The admin's other browser heard the ticket's events but not one phone event.
    expect(said(elsewhere.heard, 'fila um: marco')).toBe(true);
    expect(elsewhere.heard.filter((h) => h.event === `company-${c.id}-simulator`)).toEqual([]);
  });
});
