import { sql } from 'drizzle-orm';
import { bigserial, index, integer, jsonb, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { companies } from './platform.js';

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

/**
 * The durable job queue (docs/jobs.md): one row per job; a keyed job is unique per (kind, key),
 * so scheduling it again moves it instead of adding another.
 */
export const jobs = pgTable(
  'jobs',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    kind: text('kind').notNull(),
    key: text('key'),
    companyId: integer('company_id').references(() => companies.id, { onDelete: 'cascade' }),
    payload: jsonb('payload').$type<unknown>().notNull().default({}),
    runAt: ts('run_at').notNull(),
    /** queued | running | done | failed */
    status: text('status').notNull().default('queued'),
    attempts: integer('attempts').notNull().default(0),
    /** Bumped by every schedule(): a run that ends sees whether it was rescheduled meanwhile. */
    revision: integer('revision').notNull().default(0),
    maxAttempts: integer('max_attempts').notNull().default(5),
    /** The process running it, until when (a dead process's job is claimed again after this). */
    lockedBy: text('locked_by'),
    lockedUntil: ts('locked_until'),
    lastError: text('last_error'),
    /** The HTTP request that scheduled it (its log lines carry the same reqId). */
    requestId: text('request_id'),
    createdAt: ts('created_at').notNull().defaultNow(),
    doneAt: ts('done_at'),
  },
  (t) => [
    uniqueIndex('jobs_kind_key_uq')
      .on(t.kind, t.key)
      .where(sql`key is not null`),
    index('jobs_status_run_at_idx').on(t.status, t.runAt),
  ],
);
