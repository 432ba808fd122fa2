import {
  boolean,
  index,
  integer,
  pgTable,
  primaryKey,
  serial,
  text,
  timestamp,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import { sql } from 'drizzle-orm';
import { PRESENCES } from '@recado/contracts';
import { companies, timestamps } from './platform.js';
import { queues } from './queues.js';

export const users = pgTable(
  'users',
  {
    id: serial('id').primaryKey(),
    companyId: integer('company_id')
      .notNull()
      .references(() => companies.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    email: text('email').notNull(),
    passwordHash: text('password_hash').notNull(),
    profile: text('profile').notNull().default('user'),
    super: boolean('super').notNull().default(false),
    allTicket: text('all_ticket').notNull().default('desabled'),
    showQueuelessTickets: boolean('show_queueless_tickets').notNull().default(true),
    language: text('language').notNull().default('pt'),
    /** Default connection; the foreign key arrives with the connections module. */
    whatsappId: integer('whatsapp_id'),
    online: boolean('online').notNull().default(false),
    lastSeenAt: timestamp('last_seen_at', { withTimezone: true, mode: 'date' }),
    /** #30 routing: the most open tickets routing gives this user (a queue's capacity overrides it); null: no limit. */
    maxTickets: integer('max_tickets'),
    /** When routing last gave this user a ticket (least busy's tie-break: the longest idle first). */
    lastAssignedAt: timestamp('last_assigned_at', { withTimezone: true, mode: 'date' }),
    /** #30.2 'online' | 'away' | 'offline' (PRESENCES in contracts); routing offers tickets to 'online' only. */
    presence: text('presence', { enum: PRESENCES }).notNull().default('offline'),
    /** When presence last changed. */
    presenceAt: timestamp('presence_at', { withTimezone: true, mode: 'date' }),
    /** The user chose the presence (the top-bar switch): a chosen 'away'/'offline' outlasts reloads and activity. */
    presenceManual: boolean('presence_manual').notNull().default(false),
    /** #30.8 When the user last sent a message on a ticket (the live view). */
    lastReplyAt: timestamp('last_reply_at', { withTimezone: true, mode: 'date' }),
    ...timestamps,
  },
  (t) => [
    // Login is by e-mail across the platform, so an e-mail belongs to one user.
    uniqueIndex('users_email_uq').on(t.email),
    index('users_company_name_idx').on(t.companyId, t.name),
    index('users_company_presence_idx').on(t.companyId, t.presence),
  ],
);

export const userQueues = pgTable(
  'user_queues',
  {
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    queueId: integer('queue_id')
      .notNull()
      .references(() => queues.id, { onDelete: 'cascade' }),
  },
  (t) => [primaryKey({ columns: [t.userId, t.queueId] }), index('user_queues_queue_idx').on(t.queueId)],
);

/** One row per signed-in browser: the rotating refresh token's hash lives here. */
export const userSessions = pgTable(
  'user_sessions',
  {
    id: text('id').primaryKey(),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    companyId: integer('company_id').notNull(),
    refreshHash: text('refresh_hash').notNull(),
    /** The token replaced by the last rotation: a second tab may still present it for a few seconds. */
    previousHash: text('previous_hash'),
    rotatedAt: timestamp('rotated_at', { withTimezone: true, mode: 'date' }),
    userAgent: text('user_agent').notNull().default(''),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
    revokedAt: timestamp('revoked_at', { withTimezone: true, mode: 'date' }),
    revokedReason: text('revoked_reason'),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    lastUsedAt: timestamp('last_used_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('user_sessions_refresh_uq').on(t.refreshHash),
    index('user_sessions_user_active_idx')
      .on(t.userId)
      .where(sql`revoked_at is null`),
  ],
);

export const passwordResets = pgTable(
  'password_resets',
  {
    id: serial('id').primaryKey(),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    codeHash: text('code_hash').notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
    usedAt: timestamp('used_at', { withTimezone: true, mode: 'date' }),
    attempts: integer('attempts').notNull().default(0),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [index('password_resets_user_idx').on(t.userId)],
);
