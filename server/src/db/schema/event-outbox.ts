import { bigserial, index, integer, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { companies } from './platform.js';

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

/**
 * #32 The event outbox (docs/events.md "The outbox", server/src/events/outbox.ts): an event that feeds the
 * record (timeline, webhooks, audit) is written here in the change's own transaction, or at emit time where the
 * change has none; it is dispatched at once after the commit and deleted once its durable consumers wrote. A
 * row still here some seconds later (the process died in between) is re-dispatched by the recovery sweep; the
 * consumers' unique keys on `id` make that a no-op when they had already written. No route reads this table.
 */
export const eventOutbox = pgTable(
  'event_outbox',
  {
    /** Made by the emitting process: the consumers' idempotency key (ticket_events, webhook_deliveries, audit_log). */
    id: uuid('id').primaryKey(),
    /** The order the sweep re-dispatches in. */
    seq: bigserial('seq', { mode: 'number' }).notNull(),
    companyId: integer('company_id').references(() => companies.id, { onDelete: 'cascade' }),
    event: text('event').notNull(),
    /** The bus payload as JSON (dates kept as {"$date": iso}; secrets of a connection left out). */
    payload: text('payload').notNull(),
    createdAt: ts('created_at').notNull().defaultNow(),
    /** The sweep's lease: another process leaves the row alone until then. */
    claimedUntil: ts('claimed_until'),
    attempts: integer('attempts').notNull().default(0),
  },
  (t) => [index('event_outbox_created_idx').on(t.createdAt, t.seq)],
);
