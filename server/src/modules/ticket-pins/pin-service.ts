import { and, eq, sql } from 'drizzle-orm';
import { MAX_PINS, rooms, type TicketPinResult } from '@recado/contracts';
import type { Db } from '../../db/client.js';
import { ticketPins, tickets } from '../../db/schema/index.js';
import { AppError } from '../../http/errors.js';
import type { Tenant } from '../../http/tenant.js';
import type { Events } from '../../realtime/events.js';
import { visibleTicketRow } from '../tickets/ticket-queries.js';

/**
 * #32.9 Pinned tickets (docs/productivity.md "Pin"): each user pins tickets to the top of their own lists.
 * A pin is the user's, not the ticket's: nobody else's list changes, and the user's other tabs hear it in
 * their own room.
 */
export function ticketPinService(deps: { db: Db; events: Events }) {
  const { db, events } = deps;

  const visibleTicket = (t: Tenant, ticketId: number) => visibleTicketRow(db, t, ticketId);

  return {
    async set(t: Tenant, ticketId: number, pinned: boolean): Promise<TicketPinResult> {
      if (pinned) {
        await visibleTicket(t, ticketId);
        await db.transaction(async (tx) => {
          // Serialises one user's pins (the limit holds under concurrent requests).
          await tx.execute(sql`select pg_advisory_xact_lock(hashtext('ticket_pins'), ${t.userId})`);
          const [n] = await tx
            .select({ n: sql<number>`count(*)::int` })
            .from(ticketPins)
            .where(eq(ticketPins.userId, t.userId));
          const [already] = await tx
            .select({ id: ticketPins.ticketId })
            .from(ticketPins)
            .where(and(eq(ticketPins.userId, t.userId), eq(ticketPins.ticketId, ticketId)));
          if (already) return;
          if ((n?.n ?? 0) >= MAX_PINS)
            throw new AppError('ERR_VALIDATION', 400, `pinned: at most ${MAX_PINS} pinned tickets`, {
              field: 'pinned',
            });
          await tx
            .insert(ticketPins)
            .values({ companyId: t.companyId, userId: t.userId, ticketId })
            .onConflictDoNothing();
        });
      } else {
        // Unpinning needs only that the ticket is this company's (a ticket one may no longer see can go too).
        const [row] = await db
          .select({ id: tickets.id })
          .from(tickets)
          .where(and(eq(tickets.id, ticketId), eq(tickets.companyId, t.companyId)));
        if (!row) throw new AppError('ERR_NO_TICKET_FOUND', 404);
        await db
          .delete(ticketPins)
          .where(
            and(
              eq(ticketPins.userId, t.userId),
              eq(ticketPins.ticketId, ticketId),
              eq(ticketPins.companyId, t.companyId),
            ),
          );
      }
      const result = { ticketId, pinned };
      events.toRoom([rooms.user(t.companyId, t.userId)], t.companyId, 'ticketPin', result);
      return result;
    },
  };
}
export type TicketPinService = ReturnType<typeof ticketPinService>;
