import { bigserial, index, integer, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { companies } from './platform.js';
import { flows } from './flows.js';

/**
 * One step of a flow run, as the analytics count it (docs/flows.md "Analytics"): a conversation entered a
 * node, left it by an exit, or its run ended on it (a drop), and how each run started and ended. Append-only
 * (one multi-row insert per step, no hot counter rows under load); GET /flows/{id}/stats groups them by
 * node and exit over a period.
 */
export const flowStepEvents = pgTable(
  'flow_step_events',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    companyId: integer('company_id')
      .notNull()
      .references(() => companies.id, { onDelete: 'cascade' }),
    flowId: integer('flow_id')
      .notNull()
      .references(() => flows.id, { onDelete: 'cascade' }),
    /** The run (one conversation's walk through the flow; no reference: a deleted ticket's steps still count). */
    runId: integer('run_id').notNull(),
    /** The node's id in the flow's graph ('' for a run's start and end). */
    nodeId: text('node_id').notNull(),
    /** enter | exit | drop | start | end */
    kind: text('kind').notNull(),
    /** exit: the exit's name; end: completed | failed | dropped; '' otherwise. */
    exit: text('exit').notNull().default(''),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [index('flow_step_events_flow_idx').on(t.flowId, t.createdAt)],
);
