import {
  boolean,
  index,
  integer,
  pgTable,
  primaryKey,
  serial,
  smallint,
  text,
  timestamp,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import { companies, timestamps } from './platform.js';
import { users } from './users.js';

/**
 * Platform announcements (docs/push.md): written by the super user, read by every company's users
 * while active. The attachment lives in the media store under the author's company.
 */
export const announcements = pgTable(
  'announcements',
  {
    id: serial('id').primaryKey(),
    /** The company of the super user who wrote it (its media folder); every company reads it. */
    companyId: integer('company_id')
      .notNull()
      .references(() => companies.id, { onDelete: 'cascade' }),
    title: text('title').notNull(),
    text: text('text').notNull(),
    /** 1 high, 2 medium, 3 low. */
    priority: smallint('priority').notNull().default(3),
    status: boolean('status').notNull().default(true),
    mediaPath: text('media_path'),
    mediaName: text('media_name'),
    ...timestamps,
  },
  (t) => [index('announcements_status_priority_idx').on(t.status, t.priority)],
);

/** Which user has opened which announcement: the top bar's dot shows only for the others. */
export const announcementReads = pgTable(
  'announcement_reads',
  {
    announcementId: integer('announcement_id')
      .notNull()
      .references(() => announcements.id, { onDelete: 'cascade' }),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    seenAt: timestamp('seen_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.announcementId, t.userId] }),
    index('announcement_reads_user_idx').on(t.userId),
  ],
);

/** Web Push subscriptions (docs/push.md): one row per browser of a user. */
export const pushSubscriptions = pgTable(
  'push_subscriptions',
  {
    id: serial('id').primaryKey(),
    companyId: integer('company_id')
      .notNull()
      .references(() => companies.id, { onDelete: 'cascade' }),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    endpoint: text('endpoint').notNull(),
    p256dh: text('p256dh').notNull(),
    auth: text('auth').notNull(),
    ...timestamps,
  },
  (t) => [
    // One row per user and browser: an endpoint posted by another user never moves the owner's row (#28.7).
    uniqueIndex('push_subscriptions_user_endpoint_idx').on(t.userId, t.endpoint),
    index('push_subscriptions_user_idx').on(t.companyId, t.userId),
  ],
);
