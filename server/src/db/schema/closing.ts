import { sql } from 'drizzle-orm';
import { bigint, boolean, index, integer, pgTable, serial, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { companies, timestamps } from './platform.js';

/** #32.3 A company's reasons to close a ticket (docs/productivity.md "Closing reasons"). */
export const closingReasons = pgTable(
  'closing_reasons',
  {
    id: serial('id').primaryKey(),
    companyId: integer('company_id')
      .notNull()
      .references(() => companies.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    active: boolean('active').notNull().default(true),
    position: integer('position').notNull().default(0),
    ...timestamps,
  },
  (t) => [
    uniqueIndex('closing_reasons_company_name_uq').on(t.companyId, sql`lower(${t.name})`),
    index('closing_reasons_company_idx').on(t.companyId, t.position),
  ],
);

/**
 * #32.4 The last protocol sequence number of each company. The tickets' BEFORE INSERT trigger
 * (`tickets_assign_protocol`, migration 0047) takes the next one with INSERT ... ON CONFLICT DO UPDATE ...
 * RETURNING inside the inserting transaction: atomic across processes (docs/productivity.md "Protocol numbers").
 */
export const ticketProtocolCounters = pgTable('ticket_protocol_counters', {
  companyId: integer('company_id')
    .primaryKey()
    .references(() => companies.id, { onDelete: 'cascade' }),
  last: bigint('last', { mode: 'number' }).notNull().default(0),
});
