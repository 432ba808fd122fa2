import { index, integer, pgTable, serial, text, timestamp } from 'drizzle-orm/pg-core';
import { companies } from './platform.js';
import { tickets } from './messaging.js';
import { queues } from './queues.js';
import { users } from './users.js';

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

/**
 * #30 routing (docs/routing.md): a ticket's stay in a queue's waiting line. `since` orders the line (after
 * priority) and starts the owner's window; `left_at` closes it (the ETA's median wait); `told_*` is the
 * last waiting-line message the customer got.
 */
export const routingWaits = pgTable(
  'routing_waits',
  {
    ticketId: integer('ticket_id')
      .primaryKey()
      .references(() => tickets.id, { onDelete: 'cascade' }),
    companyId: integer('company_id')
      .notNull()
      .references(() => companies.id, { onDelete: 'cascade' }),
    queueId: integer('queue_id').references(() => queues.id, { onDelete: 'set null' }),
    since: ts('since').notNull(),
    leftAt: ts('left_at'),
    toldPosition: integer('told_position'),
    toldAt: ts('told_at'),
  },
  (t) => [index('routing_waits_queue_left_idx').on(t.queueId, t.leftAt)],
);

/** An attendant passed an assigned ticket on (POST /tickets/{id}/skip): counted per user. */
export const routingSkips = pgTable(
  'routing_skips',
  {
    id: serial('id').primaryKey(),
    companyId: integer('company_id')
      .notNull()
      .references(() => companies.id, { onDelete: 'cascade' }),
    ticketId: integer('ticket_id')
      .notNull()
      .references(() => tickets.id, { onDelete: 'cascade' }),
    userId: integer('user_id').references(() => users.id, { onDelete: 'cascade' }),
    queueId: integer('queue_id').references(() => queues.id, { onDelete: 'set null' }),
    createdAt: ts('created_at').notNull().defaultNow(),
  },
  (t) => [
    index('routing_skips_ticket_idx').on(t.ticketId),
    index('routing_skips_company_user_idx').on(t.companyId, t.userId, t.createdAt),
  ],
);

/** Every ticket the engine gave to an attendant: policy ('round_robin', 'least_busy', 'manual') and reason. */
export const routingAssignments = pgTable(
  'routing_assignments',
  {
    id: serial('id').primaryKey(),
    companyId: integer('company_id')
      .notNull()
      .references(() => companies.id, { onDelete: 'cascade' }),
    queueId: integer('queue_id').references(() => queues.id, { onDelete: 'set null' }),
    ticketId: integer('ticket_id')
      .notNull()
      .references(() => tickets.id, { onDelete: 'cascade' }),
    userId: integer('user_id').references(() => users.id, { onDelete: 'set null' }),
    policy: text('policy').notNull(),
    /** 'policy' | 'owner' | 'skip' (passed on by a skip). */
    reason: text('reason').notNull(),
    createdAt: ts('created_at').notNull().defaultNow(),
  },
  (t) => [
    index('routing_assignments_company_created_idx').on(t.companyId, t.createdAt),
    index('routing_assignments_ticket_idx').on(t.ticketId),
  ],
);
