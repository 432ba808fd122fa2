import { index, integer, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';
import { users } from './users.js';

/**
 * #30.2 A process's hold on a user's presence (docs/routing.md "Presence"): one row per (user, process)
 * while that process has sockets of the user. The process renews `expiresAt`; when the user's last socket
 * there closes it shortens `expiresAt` to the grace period. Once every row of a user has expired (the
 * sockets closed, or the process died and stopped renewing), the sweep turns the user offline.
 */
export const presenceLeases = pgTable(
  'presence_leases',
  {
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    processId: text('process_id').notNull(),
    companyId: integer('company_id').notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.userId, t.processId] }),
    index('presence_leases_expires_idx').on(t.expiresAt),
  ],
);
