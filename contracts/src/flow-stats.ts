import { z } from 'zod';
import { Day, spanDays } from './days.js';
import { type Wire } from './responses.js';

/** The longest period one stats request may cover, in days. */
export const FLOW_STATS_MAX_DAYS = 366;
/** Without `from`, the stats cover this many days up to `to` (today by default). */
export const FLOW_STATS_DEFAULT_DAYS = 30;

const MAX_ID = 2_147_483_647;
// A Day (./days.ts) here is a UTC day: the stats count the steps taken from 00:00 of `from` to 24:00 of `to`.

/**
 * GET /flows/{id}/stats?from&to (docs/flows.md "Analytics"): both days included, UTC days. `to` defaults to
 * today, `from` to FLOW_STATS_DEFAULT_DAYS days before `to`.
 */
export const FlowStatsQuery = z
  .object({ from: Day.optional(), to: Day.optional() })
  .refine((q) => !q.from || !q.to || q.from <= q.to, { message: 'from after to', path: ['from'] })
  .refine((q) => !q.from || !q.to || spanDays(q.from, q.to) <= FLOW_STATS_MAX_DAYS, {
    message: `at most ${FLOW_STATS_MAX_DAYS} days`,
    path: ['from'],
  });
export type FlowStatsQuery = z.infer<typeof FlowStatsQuery>;

/** One node's figures in the period. */
export const FlowNodeStats = z
  .looseObject({
    nodeId: z.string(),
    /** Times a conversation entered the node (a loop back counts again). */
    entered: z.number(),
    /** Distinct conversations that entered it. */
    conversations: z.number(),
    /** Times a conversation left it, by exit name (`next`, `error`, `timeout`, a branch's name, …). */
    exits: z.record(z.string(), z.number()),
    /** Conversations whose run ended (failed, expired, taken by a person, ended) while on this node. */
    dropped: z.number(),
  })
  .meta({ id: 'FlowNodeStats' });
export type FlowNodeStats = Wire<typeof FlowNodeStats>;

export const FlowStats = z
  .looseObject({
    flowId: z.number(),
    from: z.string(),
    to: z.string(),
    /** Runs that started, and how the runs that ended in the period ended. */
    runs: z.looseObject({
      started: z.number(),
      completed: z.number(),
      failed: z.number(),
      dropped: z.number(),
    }),
    /** Only nodes with a step in the period; a node absent here was not reached. */
    nodes: z.array(FlowNodeStats),
  })
  .meta({ id: 'FlowStats' });
export type FlowStats = Wire<typeof FlowStats>;

/**
 * POST /flows/convert (docs/flows.md "From the queue menu"): the connection's greeting, queues and option
 * trees become a draft flow of the company; `assign` also sets it as the connection's flow (published first).
 */
export const FlowConvertInput = z.object({
  whatsappId: z.number().int().positive().max(MAX_ID),
  name: z.string().trim().min(1).max(100).optional(),
  assign: z.boolean().default(false),
});
export type FlowConvertInput = z.input<typeof FlowConvertInput>;
