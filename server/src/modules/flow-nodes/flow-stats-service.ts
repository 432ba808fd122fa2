import { and, eq, gte, lt, sql } from 'drizzle-orm';
import {
  FLOW_STATS_DEFAULT_DAYS,
  type FlowNodeStats,
  type FlowStats,
  type FlowStatsQuery,
} from '@recado/contracts';
import type { Db } from '../../db/client.js';
import { flowStepEvents, flows } from '../../db/schema/index.js';
import { executeRows, insertRows } from '../../db/rows.js';
import { groupCommit } from '../../lib/group-commit.js';
import { AppError } from '../../http/errors.js';
import type { Clock } from '../../lib/clock.js';

/** One counted step (flow_step_events); the runtime hands a step's list over at once. */
export interface StepEvent {
  companyId: number;
  flowId: number;
  runId: number;
  nodeId: string;
  kind: 'enter' | 'exit' | 'drop' | 'start' | 'end';
  exit?: string;
}

const DAY_MS = 86_400_000;
const dayOf = (d: Date) => d.toISOString().slice(0, 10);

/**
 * Flow analytics (docs/flows.md "Analytics"): the runtime's steps are appended to flow_step_events, one
 * multi-row insert per step or for several steps at once (no counter row that 200 conversations would queue
 * on); GET /flows/{id}/stats groups a period's events by node and exit. Try runs (the editor's test panel) are not counted.
 */
export function flowStatsService(deps: { db: Db; clock: Clock; log: { warn(o: object, m: string): void } }) {
  const { db, clock, log } = deps;

  /**
   * #31 The steps of concurrent runs (handed in during one turn of the loop, or while the previous insert
   * runs) go in one multi-row insert: under load a step costs a fraction of a statement.
   */
  const append = groupCommit<{ events: StepEvent[]; at: Date }, void>(
    async (steps) => {
      // One prepared statement, the rows as one parameter (db/rows.ts insertRows).
      await insertRows(
        db,
        flowStepEvents,
        steps.flatMap(({ events, at }) =>
          events.map((e) => ({
            companyId: e.companyId,
            flowId: e.flowId,
            runId: e.runId,
            nodeId: e.nodeId,
            kind: e.kind,
            exit: e.exit ?? '',
            createdAt: at,
          })),
        ),
      );
      return steps.map(() => undefined);
    },
    { maxWeight: 2000, weight: (s) => s.events.length },
  );

  return {
    /** Appends a step's events (with other runs' steps at once); a failure is logged and never stops the run. */
    async record(events: StepEvent[]): Promise<void> {
      if (!events.length) return;
      try {
        // The app's clock (as the stats' default period reads it), not the database's.
        await append({ events, at: clock.now() });
      } catch (err) {
        log.warn({ err, flowId: events[0]!.flowId }, 'flow step events not recorded');
      }
    },

    /** GET /flows/{id}/stats: a flow of the caller's company (another's: 404, like a missing one). */
    async stats(companyId: number, flowId: number, q: FlowStatsQuery): Promise<FlowStats> {
      const [flow] = await db
        .select({ id: flows.id })
        .from(flows)
        .where(and(eq(flows.id, flowId), eq(flows.companyId, companyId)));
      if (!flow) throw new AppError('ERR_NO_FLOW_FOUND', 404);
      const to = q.to ?? dayOf(clock.now());
      const from =
        q.from ?? dayOf(new Date(Date.parse(`${to}T00:00:00Z`) - (FLOW_STATS_DEFAULT_DAYS - 1) * DAY_MS));
      if (from > to)
        throw new AppError('ERR_VALIDATION', 400, 'from after to', {
          fields: [{ path: 'from', message: 'from after to' }],
        });
      const since = new Date(`${from}T00:00:00Z`);
      const until = new Date(Date.parse(`${to}T00:00:00Z`) + DAY_MS);
      const period = and(
        eq(flowStepEvents.companyId, companyId),
        eq(flowStepEvents.flowId, flowId),
        gte(flowStepEvents.createdAt, since),
        lt(flowStepEvents.createdAt, until),
      );
      const rows = await db
        .select({
          nodeId: flowStepEvents.nodeId,
          kind: flowStepEvents.kind,
          exit: flowStepEvents.exit,
          count: sql<number>`count(*)::int`,
          runs: sql<number>`count(distinct ${flowStepEvents.runId})::int`,
        })
        .from(flowStepEvents)
        .where(period)
        .groupBy(flowStepEvents.nodeId, flowStepEvents.kind, flowStepEvents.exit);
      const runs = { started: 0, completed: 0, failed: 0, dropped: 0 };
      const nodes = new Map<string, FlowNodeStats>();
      const nodeOf = (id: string) => {
        let n = nodes.get(id);
        if (!n) nodes.set(id, (n = { nodeId: id, entered: 0, conversations: 0, exits: {}, dropped: 0 }));
        return n;
      };
      for (const r of rows) {
        const count = Number(r.count);
        if (r.kind === 'start') runs.started += count;
        else if (r.kind === 'end') {
          if (r.exit === 'completed' || r.exit === 'failed' || r.exit === 'dropped') runs[r.exit] += count;
        } else if (r.kind === 'enter') {
          const n = nodeOf(r.nodeId);
          n.entered += count;
          n.conversations += Number(r.runs);
        } else if (r.kind === 'exit') {
          const n = nodeOf(r.nodeId);
          n.exits[r.exit] = (n.exits[r.exit] ?? 0) + count;
        } else if (r.kind === 'drop') nodeOf(r.nodeId).dropped += count;
      }
      return {
        flowId,
        from,
        to,
        runs,
        nodes: [...nodes.values()].sort((a, b) => b.entered - a.entered || a.nodeId.localeCompare(b.nodeId)),
      };
    },

    /** The raw events of one run, oldest first (tests, diagnostics). */
    async runEvents(companyId: number, runId: number) {
      return executeRows<{ node_id: string; kind: string; exit: string }>(
        db,
        sql`select node_id, kind, exit from flow_step_events
          where company_id = ${companyId} and run_id = ${runId} order by id`,
      );
    },
  };
}
export type FlowStatsService = ReturnType<typeof flowStatsService>;
