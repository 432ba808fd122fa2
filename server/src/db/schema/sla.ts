import { sql } from 'drizzle-orm';
import {
  boolean,
  index,
  integer,
  pgTable,
  serial,
  smallint,
  text,
  timestamp,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import { companies, timestamps } from './platform.js';
import { tickets } from './messaging.js';

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

/** One SLA clock's bookkeeping (docs/metrics.md "SLA"), inside `tickets.sla_state`. */
export interface SlaClockState {
  /** idle: not started; running: counting since `since`; paused: snoozed; met: satisfied; stopped: ended unmet (resolved first). */
  state: 'idle' | 'running' | 'paused' | 'met' | 'stopped';
  /** While running: since when (ISO). */
  since: string | null;
  /** Business (or calendar) ms counted before `since`. */
  usedMs: number;
  /** When this cycle started (ISO). */
  startedAt: string | null;
  /** This cycle was recorded as breached (no second alert for it). */
  breached: boolean;
}

/** A ticket's SLA state machine, written only by the SLA listener and the breach job (sla-service.ts). */
export interface SlaState {
  v: 1;
  /** When the SLA started for the ticket: its first moment in a queue. */
  startedAt: string;
  policyId: number | null;
  snoozed: boolean;
  closed: boolean;
  clocks: { first_response: SlaClockState; next_response: SlaClockState; resolution: SlaClockState };
}

/** #30.5 SLA policies: targets per kind, in business hours or calendar time, by queue and priority. */
export const slaPolicies = pgTable(
  'sla_policies',
  {
    id: serial('id').primaryKey(),
    companyId: integer('company_id')
      .notNull()
      .references(() => companies.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    firstResponseMinutes: integer('first_response_minutes'),
    nextResponseMinutes: integer('next_response_minutes'),
    resolutionMinutes: integer('resolution_minutes'),
    businessHours: boolean('business_hours').notNull().default(false),
    /** Empty: every queue. */
    queueIds: integer('queue_ids')
      .array()
      .notNull()
      .default(sql`'{}'::integer[]`),
    /** tickets.priority values (0 low … 3 urgent); empty: every priority. */
    priorities: smallint('priorities')
      .array()
      .notNull()
      .default(sql`'{}'::smallint[]`),
    ...timestamps,
  },
  (t) => [index('sla_policies_company_idx').on(t.companyId)],
);

/**
 * Each ended SLA clock cycle that had a target: met before its due time, or breached (recorded by the breach
 * job, or by the listener when the reply came after the due time before the job ran). One row per
 * (ticket, kind, due time): the claim that makes a breach alert once.
 */
export const slaOutcomes = pgTable(
  'sla_outcomes',
  {
    id: serial('id').primaryKey(),
    companyId: integer('company_id')
      .notNull()
      .references(() => companies.id, { onDelete: 'cascade' }),
    ticketId: integer('ticket_id')
      .notNull()
      .references(() => tickets.id, { onDelete: 'cascade' }),
    /** first_response | next_response | resolution */
    kind: text('kind').notNull(),
    /** met | breached */
    outcome: text('outcome').notNull(),
    policyId: integer('policy_id'),
    dueAt: ts('due_at').notNull(),
    /** met: when the clock was met; breached: when the breach was recorded. */
    at: ts('at').notNull(),
    /** The ticket's queue and attendant at that moment (met: the attendant who replied or resolved). */
    queueId: integer('queue_id'),
    userId: integer('user_id'),
  },
  (t) => [
    uniqueIndex('sla_outcomes_cycle_uq').on(t.ticketId, t.kind, t.dueAt),
    index('sla_outcomes_company_at_idx').on(t.companyId, t.at),
  ],
);
