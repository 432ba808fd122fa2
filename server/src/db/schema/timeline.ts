import { sql } from 'drizzle-orm';
import {
  bigserial,
  index,
  integer,
  jsonb,
  pgTable,
  smallint,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import { companies } from './platform.js';
import { tickets } from './messaging.js';
import { users } from './users.js';

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

/**
 * #32.5 The ticket timeline (docs/productivity.md "Ticket timeline"): what happened to a ticket, by whom
 * and when. Append-only; written by recordTicketEvent (modules/timeline/record.ts).
 */
export const ticketEvents = pgTable(
  'ticket_events',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    companyId: integer('company_id')
      .notNull()
      .references(() => companies.id, { onDelete: 'cascade' }),
    ticketId: integer('ticket_id')
      .notNull()
      .references(() => tickets.id, { onDelete: 'cascade' }),
    /** One of TICKET_EVENT_TYPES (contracts/src/timeline.ts). */
    type: text('type').notNull(),
    /** user | system | bot | flow | api | customer */
    actorKind: text('actor_kind').notNull().default('system'),
    actorId: integer('actor_id').references(() => users.id, { onDelete: 'set null' }),
    data: jsonb('data')
      .$type<Record<string, unknown>>()
      .notNull()
      .default(sql`'{}'::jsonb`),
    createdAt: ts('created_at').notNull().defaultNow(),
    /** The outbox event it came from and its place among that event's entries: a re-dispatch writes nothing. */
    outboxId: uuid('outbox_id'),
    outboxPart: smallint('outbox_part'),
  },
  (t) => [
    index('ticket_events_company_ticket_idx').on(t.companyId, t.ticketId, t.id),
    uniqueIndex('ticket_events_outbox_uq')
      .on(t.outboxId, t.outboxPart)
      .where(sql`outbox_id is not null`),
  ],
);
