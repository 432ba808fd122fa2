import { describe, expect, test } from 'vitest';
import { eq } from 'drizzle-orm';
import type { Socket } from 'socket.io-client';
import { queues, tickets, userQueues, users } from '../db/schema/index.js';
import { canSeeTicket, type Viewer } from '../modules/tickets/ticket-queries.js';
import { testApp, type Session, waitFor } from '../../test/helpers.js';
import { notificationRooms, ticketNotificationRooms } from './room-policy.js';

describe('notification rooms mirror ticket visibility (core §6)', () => {
  test('a viewer shares a room with a ticket exactly when canSeeTicket says it may see it', () => {
    const viewers: Viewer[] = [];
    for (const profile of ['admin', 'user', 'supervisor'])
      for (const sup of [false, true])
        for (const queueIds of [[], [1], [1, 3]])
          for (const showQueuelessTickets of [true, false])
            for (const allTicket of ['enabled', 'desabled'])
              viewers.push({
                userId: 7,
                companyId: 3,
                profile,
                super: sup,
                queueIds,
                showQueuelessTickets,
                allTicket,
              });
    let checked = 0;
    for (const v of viewers)
      for (const queueId of [null, 1, 2])
        for (const userId of [null, 7, 8])
          for (const status of ['pending', 'open', 'closed']) {
            const ticket = { queueId, userId, status };
            const mine = new Set(notificationRooms(v));
            const shared = ticketNotificationRooms(3, ticket).some((r) => mine.has(r));
            expect(shared, JSON.stringify({ v, ticket })).toBe(canSeeTicket(v, ticket));
            checked++;
          }
    expect(checked).toBe(viewers.length * 27);
  });

  test('every room stays inside the company', () => {
    const v = {
      userId: 7,
      companyId: 3,
      profile: 'user',
      super: false,
      queueIds: [1, 2],
      showQueuelessTickets: true,
      allTicket: 'enabled',
    };
    for (const r of [
      ...notificationRooms(v),
      ...ticketNotificationRooms(3, { queueId: 1, userId: 7, status: 'pending' }),
    ])
      expect(r.startsWith('company-3-')).toBe(true);
  });
});

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
