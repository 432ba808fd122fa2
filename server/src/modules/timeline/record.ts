import type { Db, Tx } from '../../db/client.js';
import { ticketEvents } from '../../db/schema/index.js';

/**
 * #32.5 One entry on a ticket's timeline (docs/productivity.md "Ticket timeline"). Pass the transaction
 * that makes the change (`tx`) so the entry is durable with it: no change without its entry, no entry for
 * a change that rolled back.
 */
export interface TicketEventInput {
  companyId: number;
  ticketId: number;
  /** One of TICKET_EVENT_TYPES in contracts/src/timeline.ts. */
  type: string;
  /** The user's id when a person did it. */
  actorId?: number | null;
  /** Defaults to 'user' when actorId is set, 'system' otherwise. */
  actorKind?: 'user' | 'system' | 'bot' | 'flow' | 'api' | 'customer';
  /** e.g. {from:{queueId,userId}, to:{...}}, {tag:{id,name}}, {reasonId, reason, saleValue}. */
  data?: Record<string, unknown>;
  at?: Date;
  /** The outbox event it records (docs/events.md "The outbox"): written once however often it is dispatched. */
  outboxId?: string;
  /** Its place among that event's entries. */
  outboxPart?: number;
}

function row(e: TicketEventInput) {
  return {
    companyId: e.companyId,
    ticketId: e.ticketId,
    type: e.type,
    actorId: e.actorId ?? null,
    actorKind: e.actorKind ?? (e.actorId ? 'user' : 'system'),
    data: e.data ?? {},
    ...(e.at ? { createdAt: e.at } : {}),
    ...(e.outboxId ? { outboxId: e.outboxId, outboxPart: e.outboxPart ?? 0 } : {}),
  };
}

export async function recordTicketEvent(db: Db | Tx, e: TicketEventInput): Promise<void> {
  await db.insert(ticketEvents).values(row(e)).onConflictDoNothing();
}

export async function recordTicketEvents(db: Db | Tx, list: TicketEventInput[]): Promise<void> {
  if (list.length === 0) return;
  await db
    .insert(ticketEvents)
    .values(list.map((e, i) => row(e.outboxId ? { outboxPart: i, ...e } : e)))
    .onConflictDoNothing();
}
