import { index, integer, pgTable, serial, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { sql } from 'drizzle-orm';
import { companies } from './platform.js';
import { users } from './users.js';

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

/**
 * Personal and company API tokens (docs/api.md "API tokens"). Only the SHA-256 of the token is kept: the
 * token itself is shown once, at creation. `userId` is the owner (kind `user`) or the admin a company token
 * acts through (kind `company`); deleting that user deletes the token.
 */
export const apiTokens = pgTable(
  'api_tokens',
  {
    id: serial('id').primaryKey(),
    companyId: integer('company_id')
      .notNull()
      .references(() => companies.id, { onDelete: 'cascade' }),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** `user` (acts as its user) or `company` (server-to-server, admin-level, managed by the company's admins). */
    kind: text('kind').notNull(),
    name: text('name').notNull(),
    /** `read`, `write` or `admin` (each includes the one before). */
    scope: text('scope').notNull(),
    /** Hex SHA-256 of the whole token: the look-up key. */
    tokenHash: text('token_hash').notNull(),
    /** The first characters of the token (`rec_pat_AbCd`), to recognise it in a list. */
    hint: text('hint').notNull(),
    expiresAt: ts('expires_at'),
    lastUsedAt: ts('last_used_at'),
    revokedAt: ts('revoked_at'),
    createdAt: ts('created_at').notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('api_tokens_hash_uq').on(t.tokenHash),
    index('api_tokens_company_kind_idx')
      .on(t.companyId, t.kind)
      .where(sql`revoked_at is null`),
    index('api_tokens_user_idx').on(t.userId),
  ],
);
