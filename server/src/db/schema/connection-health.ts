import { sql } from 'drizzle-orm';
import { index, integer, pgTable, serial, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { companies } from './platform.js';
import { whatsapps } from './messaging.js';

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

/**
 * #33.2 Every state a connection went through (docs/connection-health.md): one row per change of status, with
 * the channel's reason. Uptime is read from it (the time between one row and the next is in its status).
 */
export const connectionStates = pgTable(
  'connection_states',
  {
    id: serial('id').primaryKey(),
    companyId: integer('company_id')
      .notNull()
      .references(() => companies.id, { onDelete: 'cascade' }),
    whatsappId: integer('whatsapp_id')
      .notNull()
      .references(() => whatsapps.id, { onDelete: 'cascade' }),
    status: text('status').notNull(),
    reason: text('reason'),
    detail: text('detail'),
    at: ts('at').notNull(),
  },
  (t) => [index('connection_states_connection_at_idx').on(t.whatsappId, t.at, t.id)],
);

/**
 * #33.1 One outage: the connection left CONNECTED at `startedAt`. `alertedAt` is set once, by the job that told
 * the admins (the outage lasted the company's threshold); `endedAt` when it came back; `backAt` once the
 * "back" notice went. Each is claimed with a conditional UPDATE, so every notice goes once per incident.
 */
export const connectionIncidents = pgTable(
  'connection_incidents',
  {
    id: serial('id').primaryKey(),
    companyId: integer('company_id')
      .notNull()
      .references(() => companies.id, { onDelete: 'cascade' }),
    whatsappId: integer('whatsapp_id')
      .notNull()
      .references(() => whatsapps.id, { onDelete: 'cascade' }),
    /** The first state after CONNECTED, and its reason. */
    status: text('status').notNull(),
    reason: text('reason'),
    startedAt: ts('started_at').notNull(),
    alertedAt: ts('alerted_at'),
    endedAt: ts('ended_at'),
    backAt: ts('back_at'),
  },
  (t) => [
    uniqueIndex('connection_incidents_open_uq')
      .on(t.whatsappId)
      .where(sql`ended_at is null`),
    index('connection_incidents_company_idx').on(t.companyId, t.startedAt),
  ],
);
