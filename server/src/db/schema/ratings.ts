import { sql } from 'drizzle-orm';
import { index, integer, pgTable, serial, smallint, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { companies } from './platform.js';
import { contacts, tickets, whatsapps } from './messaging.js';
import { users } from './users.js';

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

/** A customer's rating of a resolved ticket and its attendant (docs/bot.md: 1 unsatisfied … 3 very satisfied). */
export const userRatings = pgTable(
  'user_ratings',
  {
    id: serial('id').primaryKey(),
    companyId: integer('company_id')
      .notNull()
      .references(() => companies.id, { onDelete: 'cascade' }),
    ticketId: integer('ticket_id')
      .notNull()
      .references(() => tickets.id, { onDelete: 'cascade' }),
    userId: integer('user_id').references(() => users.id, { onDelete: 'set null' }),
    rate: smallint('rate').notNull(),
    createdAt: ts('created_at').notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('user_ratings_ticket_uq').on(t.ticketId),
    index('user_ratings_company_user_idx').on(t.companyId, t.userId, t.createdAt),
  ],
);

/**
 * A resolved ticket waiting for the customer's rating: the inbound pipeline looks here before a message
 * reaches a ticket, so a rating answer never opens a new one. At most one wait per customer and connection.
 */
export const ratingRequests = pgTable(
  'rating_requests',
  {
    ticketId: integer('ticket_id')
      .primaryKey()
      .references(() => tickets.id, { onDelete: 'cascade' }),
    companyId: integer('company_id')
      .notNull()
      .references(() => companies.id, { onDelete: 'cascade' }),
    whatsappId: integer('whatsapp_id')
      .notNull()
      .references(() => whatsapps.id, { onDelete: 'cascade' }),
    contactId: integer('contact_id')
      .notNull()
      .references(() => contacts.id, { onDelete: 'cascade' }),
    userId: integer('user_id').references(() => users.id, { onDelete: 'set null' }),
    /** waiting | rated | ignored (another answer) | expired (no answer in time) */
    status: text('status').notNull().default('waiting'),
    expiresAt: ts('expires_at').notNull(),
    createdAt: ts('created_at').notNull().defaultNow(),
    updatedAt: ts('updated_at').notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('rating_requests_waiting_uq')
      .on(t.whatsappId, t.contactId)
      .where(sql`status = 'waiting'`),
  ],
);
