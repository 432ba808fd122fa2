import { describe, expect, test } from 'vitest';
import { and, eq, inArray } from 'drizzle-orm';
import {
  canSeeTicket,
  statusScope,
  ticketRooms,
  viewerRooms,
  type VisibilityScope,
  type VisibilityTicket,
} from '@recado/contracts';
import { contacts, queues, tickets, userQueues, users } from '../../db/schema/index.js';
import { testApp, unique } from '../../../test/helpers.js';
import { visibleWhere, type Viewer } from './ticket-queries.js';

/**
 * One table of profiles × queues × settings × tickets (queue, assignee, status): the visibility rule of
 * contracts/visibility.ts against docs/visibility.md as written, and every place that applies it — the socket rooms
 * of the notification and status lists, the lists' SQL and GET /tickets/{id} — against the rule.
 */

/** docs/visibility.md in its own words: the oracle the rule is checked against. */
function spec(v: Viewer, t: VisibilityTicket): boolean {
  if (v.profile === 'admin' || v.profile === 'supervisor' || v.super) return true; // admins and supervisors (#30.8) see every ticket
  if (t.userId === v.userId) return true; // their own tickets
  if (t.queueId === null) return v.showQueuelessTickets; // queueless, when allowed
  if (v.queueIds.includes(t.queueId)) return true; // their queues
  return t.status === 'pending' && v.allTicket === 'enabled'; // allTicket: every waiting ticket
}

const t = await testApp();
const db = t.database.db;

// A company with three queues, two users (the viewer and someone else) and one ticket per shape.
const c = await t.company('Visibility');
// A supervisor: the show-all switch is theirs and, since #30.8, they see every queue's tickets like an admin.
const me = await t.user(c.admin, 'supervisor');
const other = await t.user(c.admin, 'user');
const [q1, q2, q3] = await db
  .insert(queues)
  .values(['Q1', 'Q2', 'Q3'].map((name, i) => ({ companyId: c.id, name, color: `#00000${i}` })))
  .returning();
const STATUSES = ['pending', 'open', 'closed', 'group'];
const shapes: (VisibilityTicket & { id: number })[] = [];
for (const queueId of [null, q1!.id, q2!.id])
  for (const userId of [null, me.user.id, other.user.id])
    for (const status of STATUSES) {
      const [contact] = await db
        .insert(contacts)
        .values({
          companyId: c.id,
          name: unique('Vis '),
          number: `55119${String(shapes.length).padStart(8, '0')}`,
        })
        .returning();
      const [row] = await db
        .insert(tickets)
        .values({ companyId: c.id, contactId: contact!.id, queueId, userId, status })
        .returning();
      shapes.push({ id: row!.id, queueId, userId, status });
    }

const viewers: Viewer[] = [];
for (const profile of ['admin', 'user', 'supervisor'])
  for (const sup of [false, true])
    for (const queueIds of [[], [q1!.id], [q1!.id, q3!.id]])
      for (const showQueuelessTickets of [true, false])
        for (const allTicket of ['enabled', 'desabled'])
          viewers.push({
            userId: me.user.id,
            companyId: c.id,
            profile,
            super: sup,
            queueIds,
            showQueuelessTickets,
            allTicket,
          });

describe('one visibility rule (docs/visibility.md)', () => {
  test('the rule and the socket rooms agree with the spec on every profile × queues × settings × ticket', () => {
    let checked = 0;
    for (const v of viewers)
      for (const ticket of shapes) {
        const expected = spec(v, ticket);
        const label = JSON.stringify({ v, ticket });
        expect(canSeeTicket(v, ticket), label).toBe(expected);
        // Notification list and the ticket's status list: a socket shares a room with the ticket's events
        // exactly when it may see the ticket.
        for (const scope of ['notification', statusScope(ticket.status)] as VisibilityScope[]) {
          const mine = new Set(viewerRooms(c.id, scope, v));
          expect(
            ticketRooms(c.id, scope, ticket).some((r) => mine.has(r)),
            `${scope} ${label}`,
          ).toBe(expected);
        }
        // Every room stays inside the company, and a plain user never holds a status list's whole room.
        for (const r of [...viewerRooms(c.id, statusScope(ticket.status), v)]) {
          expect(r.startsWith(`company-${c.id}-`)).toBe(true);
          if (!(v.profile === 'admin' || v.profile === 'supervisor' || v.super))
            expect(r).not.toBe(`company-${c.id}-tickets-${ticket.status}`);
        }
        checked++;
      }
    expect(checked).toBe(72 * 36);
  });

  test('the lists’ SQL selects exactly the tickets the rule lets each viewer see', async () => {
    const ids = shapes.map((s) => s.id);
    for (const v of viewers) {
      const rows = await db
        .select({ id: tickets.id })
        .from(tickets)
        .where(and(eq(tickets.companyId, c.id), inArray(tickets.id, ids), visibleWhere(v)));
      const got = rows.map((r) => r.id).sort((a, b) => a - b);
      const want = shapes.filter((s) => spec(v, s)).map((s) => s.id);
      expect(got, JSON.stringify(v)).toEqual(want.sort((a, b) => a - b));
    }
  });

  test('GET /tickets/{id} and GET /tickets (show-all included) follow the rule for real users', async () => {
    const settings = [
      { showQueuelessTickets: false, allTicket: 'desabled', queueIds: [q1!.id] },
      { showQueuelessTickets: true, allTicket: 'enabled', queueIds: [q1!.id] },
      { showQueuelessTickets: false, allTicket: 'enabled', queueIds: [] },
    ];
    for (const s of settings) {
      await db
        .update(users)
        .set({ showQueuelessTickets: s.showQueuelessTickets, allTicket: s.allTicket })
        .where(eq(users.id, me.user.id));
      await db.delete(userQueues).where(eq(userQueues.userId, me.user.id));
      if (s.queueIds.length)
        await db.insert(userQueues).values(s.queueIds.map((queueId) => ({ userId: me.user.id, queueId })));
      const v: Viewer = { userId: me.user.id, companyId: c.id, profile: 'supervisor', super: false, ...s };
      for (const ticket of shapes) {
        const res = await t.as(me).get(`/tickets/${ticket.id}`);
        expect(res.status, JSON.stringify({ s, ticket })).toBe(spec(v, ticket) ? 200 : 403);
      }
      for (const status of ['pending', 'open', 'closed']) {
        const res = await t.as(me).get(`/tickets?status=${status}&showAll=true`);
        expect(res.status).toBe(200);
        const list = await res.json();
        // The switch does show others' tickets.
        if (status === 'open' && s.queueIds.length)
          expect(list.tickets.some((r: { userId: number }) => r.userId === other.user.id)).toBe(true);
        for (const row of list.tickets as { id: number; queueId: number | null; userId: number | null }[])
          expect(spec(v, { ...row, status }), JSON.stringify({ s, row })).toBe(true);
        const listed = await (await t.as(me).get(`/tickets?status=${status}`)).json();
        for (const row of listed.tickets as { id: number; queueId: number | null; userId: number | null }[])
          expect(spec(v, { ...row, status }), JSON.stringify({ s, row })).toBe(true);
      }
    }
  });
});
