import { bigint, index, integer, jsonb, pgTable, serial, text, timestamp } from 'drizzle-orm/pg-core';
import { companies } from './platform.js';

/**
 * #35.4 A company export (migration 0060, docs/migration.md): its job's status and progress; the archive is a
 * file under DATA_DIR/company-exports. Not re-exported from ./index.ts: the company-transfer module imports it.
 */
export const companyExports = pgTable(
  'company_exports',
  {
    id: serial('id').primaryKey(),
    companyId: integer('company_id')
      .notNull()
      .references(() => companies.id, { onDelete: 'cascade' }),
    requestedBy: integer('requested_by'),
    status: text('status').notNull().default('queued'),
    progress: jsonb('progress').notNull().default({}),
    size: bigint('size', { mode: 'number' }),
    error: text('error'),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    finishedAt: timestamp('finished_at', { withTimezone: true, mode: 'date' }),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }),
  },
  (t) => [index('company_exports_company_idx').on(t.companyId, t.id)],
);
