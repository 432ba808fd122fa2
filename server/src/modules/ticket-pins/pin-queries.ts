import { and, eq } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { ticketPins } from '../../db/schema/index.js';

/** #32.9 The tickets one user pinned (at most MAX_PINS): the ticket list reads them first. */
export async function pinnedTicketIds(db: Db, companyId: number, userId: number): Promise<number[]> {
  const rows = await db
    .select({ id: ticketPins.ticketId })
    .from(ticketPins)
    .where(and(eq(ticketPins.userId, userId), eq(ticketPins.companyId, companyId)));
  return rows.map((r) => r.id);
}

export async function isPinned(db: Db, companyId: number, userId: number, ticketId: number) {
  const [r] = await db
    .select({ id: ticketPins.ticketId })
    .from(ticketPins)
    .where(
      and(
        eq(ticketPins.userId, userId),
        eq(ticketPins.ticketId, ticketId),
        eq(ticketPins.companyId, companyId),
      ),
    );
  return Boolean(r);
}
