import { bigint, index, integer, jsonb, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';
import { companies } from './platform.js';
import { tickets } from './messaging.js';
import { queues } from './queues.js';

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

/**
 * The automation (AI prompt or queue integration) that handles one ticket, kept in the database so that a
 * restart continues the conversation (docs/automation.md): which one took the ticket, for which queue, the
 * provider's session, the newest customer message handled, and how it ended.
 */
export const ticketAutomations = pgTable(
  'ticket_automations',
  {
    ticketId: integer('ticket_id')
      .primaryKey()
      .references(() => tickets.id, { onDelete: 'cascade' }),
    companyId: integer('company_id')
      .notNull()
      .references(() => companies.id, { onDelete: 'cascade' }),
    /** prompt | typebot | n8n | webhook | dialogflow */
    kind: text('kind').notNull(),
    /** queue | connection: where the automation was set. */
    level: text('level').notNull(),
    /** The queue whose automation took the ticket (null: the connection's). */
    queueId: integer('queue_id').references(() => queues.id, { onDelete: 'set null' }),
    promptId: integer('prompt_id'),
    integrationId: integer('integration_id'),
    /** The provider's session (Typebot sessionId); null until one is started. */
    sessionId: text('session_id'),
    /** The last exchange with the provider's session (Typebot sessions expire). */
    sessionAt: ts('session_at'),
    /** Provider state between messages (a Typebot choice list waiting for an answer). */
    data: jsonb('data').$type<Record<string, unknown>>(),
    /** The newest customer message handled: a message is handled once, whoever calls twice. */
    lastMessageId: bigint('last_message_id', { mode: 'number' }).notNull().default(0),
    startedAt: ts('started_at').notNull().defaultNow(),
    endedAt: ts('ended_at'),
    /** handoff | accepted | transferred | closed | error */
    endReason: text('end_reason'),
    updatedAt: ts('updated_at').notNull().defaultNow(),
  },
  (t) => [index('ticket_automations_company_idx').on(t.companyId)],
);

/**
 * One automation's run of failures (docs/automation.md "When automations fail"): failures in a row since its
 * last success; `alertedAt` set once admins were alerted for this incident (cleared by the next success).
 */
export const automationIncidents = pgTable(
  'automation_incidents',
  {
    companyId: integer('company_id')
      .notNull()
      .references(() => companies.id, { onDelete: 'cascade' }),
    /** prompt | integration */
    source: text('source').notNull(),
    /** The prompt's or the integration's id. */
    sourceId: integer('source_id').notNull(),
    kind: text('kind').notNull(),
    failures: integer('failures').notNull().default(0),
    lastError: text('last_error').notNull().default(''),
    lastFailureAt: ts('last_failure_at'),
    alertedAt: ts('alerted_at'),
    updatedAt: ts('updated_at').notNull().defaultNow(),
  },
  (t) => [primaryKey({ name: 'automation_incidents_pk', columns: [t.companyId, t.source, t.sourceId] })],
);
