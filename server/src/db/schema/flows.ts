import { sql } from 'drizzle-orm';
import {
  boolean,
  index,
  integer,
  jsonb,
  pgTable,
  serial,
  text,
  timestamp,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import type { FlowGraph } from '@recado/contracts';
import { companies } from './platform.js';
import { users } from './users.js';
import { contacts, tickets, whatsapps } from './messaging.js';

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

/**
 * A company's flow (docs/flows.md): its name and DRAFT graph. Publishing copies the draft into an immutable
 * `flow_versions` row and points `published_version` at it; `triggers` is the published start node's data
 * (keywords, precedence, campaign reply, out of hours) so inbound messages find their flow with one query.
 */
export const flows = pgTable(
  'flows',
  {
    id: serial('id').primaryKey(),
    companyId: integer('company_id')
      .notNull()
      .references(() => companies.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    description: text('description').notNull().default(''),
    graph: jsonb('graph').$type<FlowGraph>().notNull(),
    active: boolean('active').notNull().default(true),
    publishedVersion: integer('published_version'),
    publishedAt: ts('published_at'),
    /** The draft differs from the published version. */
    draftChanged: boolean('draft_changed').notNull().default(true),
    triggers: jsonb('triggers').$type<Record<string, unknown> | null>(),
    createdAt: ts('created_at').notNull().defaultNow(),
    updatedAt: ts('updated_at').notNull().defaultNow(),
  },
  (t) => [index('flows_company_idx').on(t.companyId)],
);

/** An immutable published graph: runs started on it finish on it, whatever is published later. */
export const flowVersions = pgTable(
  'flow_versions',
  {
    id: serial('id').primaryKey(),
    companyId: integer('company_id')
      .notNull()
      .references(() => companies.id, { onDelete: 'cascade' }),
    flowId: integer('flow_id')
      .notNull()
      .references(() => flows.id, { onDelete: 'cascade' }),
    version: integer('version').notNull(),
    graph: jsonb('graph').$type<FlowGraph>().notNull(),
    publishedBy: integer('published_by').references(() => users.id, { onDelete: 'set null' }),
    publishedAt: ts('published_at').notNull().defaultNow(),
  },
  (t) => [uniqueIndex('flow_versions_flow_version_uq').on(t.flowId, t.version)],
);

/**
 * One conversation's walk through a flow: where it is (`current_node_id`), what it collected (`variables`),
 * the messages it already consumed (`processed_message_ids`, the last 50: a redelivered message never
 * advances twice) and `seq`, bumped on every move, so a wait/timeout job scheduled for an older position
 * does nothing. At most one active run (running | waiting | held) per ticket.
 */
export const flowRuns = pgTable(
  'flow_runs',
  {
    id: serial('id').primaryKey(),
    companyId: integer('company_id')
      .notNull()
      .references(() => companies.id, { onDelete: 'cascade' }),
    flowId: integer('flow_id')
      .notNull()
      .references(() => flows.id, { onDelete: 'cascade' }),
    /** The published version it runs on; null for a try of the draft (graph in try_graph). */
    versionId: integer('version_id').references(() => flowVersions.id, { onDelete: 'cascade' }),
    version: integer('version'),
    tryGraph: jsonb('try_graph').$type<FlowGraph | null>(),
    ticketId: integer('ticket_id')
      .notNull()
      .references(() => tickets.id, { onDelete: 'cascade' }),
    contactId: integer('contact_id').references(() => contacts.id, { onDelete: 'cascade' }),
    whatsappId: integer('whatsapp_id').references(() => whatsapps.id, { onDelete: 'set null' }),
    currentNodeId: text('current_node_id'),
    /** running | waiting (question/wait) | held (ai_prompt/typebot/n8n) | completed | failed | cancelled */
    status: text('status').notNull().default('running'),
    variables: jsonb('variables').$type<Record<string, unknown>>().notNull().default({}),
    /** Executor state of the current node (retries of a question, a hold's data). */
    nodeState: jsonb('node_state').$type<Record<string, unknown>>().notNull().default({}),
    seq: integer('seq').notNull().default(0),
    processedMessageIds: text('processed_message_ids')
      .array()
      .notNull()
      .default(sql`'{}'::text[]`),
    /** How it started: connection | keyword | campaign | out_of_hours | ticket | flow | try */
    trigger: text('trigger').notNull().default('connection'),
    error: text('error'),
    createdAt: ts('created_at').notNull().defaultNow(),
    updatedAt: ts('updated_at').notNull().defaultNow(),
    endedAt: ts('ended_at'),
  },
  (t) => [
    uniqueIndex('flow_runs_active_ticket_uq')
      .on(t.ticketId)
      .where(sql`status in ('running', 'waiting', 'held')`),
    index('flow_runs_flow_idx').on(t.flowId, t.createdAt),
  ],
);
