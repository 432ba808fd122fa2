import type { Db, Tx } from '../../db/client.js';
import { ticketEvents } from '../../db/schema/index.js';
import { groupCommit } from '../../lib/group-commit.js';
import { insertRows } from '../../db/rows.js';

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

const rowsOf = (list: TicketEventInput[]) =>
  list.map((e, i) => row(e.outboxId ? { outboxPart: i, ...e } : e));

/**
 * Entries written outside a transaction (the listeners') leave together: what concurrent events hand in while
 * an insert is on its way goes in the next one (lib/group-commit.ts). An insert that fails is tried again
 * list by list, so one bad entry (its ticket deleted meanwhile) fails only its own caller.
 */
const batchers = new WeakMap<object, (list: TicketEventInput[]) => Promise<void>>();
function batcherOf(db: Db) {
  let batch = batchers.get(db);
  if (!batch) {
    const commit = groupCommit<TicketEventInput[], Error | null>(
      async (lists) => {
        try {
          await insertRows(db, ticketEvents, lists.flatMap(rowsOf), { onConflictDoNothing: true });
          return lists.map(() => null);
        } catch {
          const errors: (Error | null)[] = [];
          for (const list of lists)
            errors.push(
              await db
                .insert(ticketEvents)
                .values(rowsOf(list))
                .onConflictDoNothing()
                .then(
                  () => null,
                  (err: unknown) => (err instanceof Error ? err : new Error(String(err))),
                ),
            );
          return errors;
        }
      },
      // One insert at a time: entries handed in one after another get ids in that order.
      { inFlight: 1, maxWeight: 200, weight: (list) => list.length },
    );
    batch = async (list) => {
      const err = await commit(list);
      if (err) throw err;
    };
    batchers.set(db, batch);
  }
  return batch;
}

/** A transaction's own entries go with it; the pool's are batched with concurrent ones. */
const inTransaction = (db: Db | Tx): db is Tx => 'rollback' in db;

export async function recordTicketEvent(db: Db | Tx, e: TicketEventInput): Promise<void> {
  await recordTicketEvents(db, [e]);
}

export async function recordTicketEvents(db: Db | Tx, list: TicketEventInput[]): Promise<void> {
  if (list.length === 0) return;
  if (!inTransaction(db)) return batcherOf(db)(list);
  await db.insert(ticketEvents).values(rowsOf(list)).onConflictDoNothing();
}
