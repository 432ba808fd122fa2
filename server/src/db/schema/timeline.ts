import { sql } from 'drizzle-orm';
import { bigserial, index, integer, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
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
  },
  (t) => [index('ticket_events_company_ticket_idx').on(t.companyId, t.ticketId, t.id)],
);
