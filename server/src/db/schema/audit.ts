import { sql } from 'drizzle-orm';
import {
  bigserial,
  index,
  integer,
  jsonb,
  pgTable,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import { companies } from './platform.js';

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

/**
 * #32.6 The audit log (docs/audit.md): append-only (a trigger refuses UPDATE and any DELETE but the retention
 * purge's and a deleted company's cascade). `companyId` null is the platform's own log. `actorId` has no
 * foreign key: deleting a user keeps the entries, `actorEmail` says who it was.
 */
export const auditLog = pgTable(
  'audit_log',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    companyId: integer('company_id').references(() => companies.id, { onDelete: 'cascade' }),
    actorId: integer('actor_id'),
    actorEmail: text('actor_email'),
    action: text('action').notNull(),
    targetType: text('target_type'),
    targetId: text('target_id'),
    before: jsonb('before'),
    after: jsonb('after'),
    ip: text('ip'),
    userAgent: text('user_agent'),
    createdAt: ts('created_at').notNull().defaultNow(),
    /** The admin action's outbox intent (docs/audit.md "Durable"): the hook and the recovery sweep write it once. */
    outboxId: uuid('outbox_id'),
  },
  (t) => [
    index('audit_log_company_created_idx').on(t.companyId, t.createdAt.desc(), t.id.desc()),
    uniqueIndex('audit_log_outbox_uq')
      .on(t.outboxId)
      .where(sql`outbox_id is not null`),
  ],
);
