import { index, integer, pgTable, primaryKey, timestamp } from 'drizzle-orm/pg-core';
import { companies } from './platform.js';
import { tickets } from './messaging.js';
import { users } from './users.js';

/** #32.9 A user's pinned tickets: first in that user's ticket lists (docs/productivity.md "Pin"). */
export const ticketPins = pgTable(
  'ticket_pins',
  {
    companyId: integer('company_id')
      .notNull()
      .references(() => companies.id, { onDelete: 'cascade' }),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    ticketId: integer('ticket_id')
      .notNull()
      .references(() => tickets.id, { onDelete: 'cascade' }),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.ticketId] }), index('ticket_pins_ticket_idx').on(t.ticketId)],
);
