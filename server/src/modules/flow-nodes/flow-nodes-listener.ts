import { and, eq } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { flowRuns, flows } from '../../db/schema/index.js';
import type { DomainBus } from '../../events/domain-events.js';
import { ticketQueries } from '../tickets/ticket-queries.js';
import type { AutomationResume } from '../flows/nodes/automation-nodes.js';
import type { FlowStatsService, StepEvent } from './flow-stats-service.js';

export interface FlowNodesListenerDeps {
  db: Db;
  stats: Pick<FlowStatsService, 'record'>;
  /** Wakes a held run (the flow runtime's resume): its node's executor answers the exit. */
  resume: (companyId: number, runId: number, data: Record<string, unknown>) => Promise<unknown>;
  log: { warn(o: object, m: string): void };
}

/**
 * The flow runtime's events, for the integration nodes' side of flows (docs/flows.md):
 * - `flow.steps` → flow analytics (one insert per step, after the step committed; try runs not counted);
 * - `flow.ended` → the run's end and, when it ended on a node it never left, a drop there; for real runs that
 *   completed or failed, `flow.outcome` with the ticket's view (the `flow.completed` / `flow.failed` webhooks,
 *   recorded by the webhooks' tap in order with the ticket's other events);
 * - `automation.ended` of a hold a flow's ai_prompt / typebot / n8n node started → the held run is resumed.
 */
export function flowNodesListeners(bus: DomainBus, deps: FlowNodesListenerDeps) {
  const { db, stats } = deps;

  bus.on(
    'flow.steps',
    async (e) => {
      if (e.isTry) return;
      const keys = { companyId: e.companyId, flowId: e.flowId, runId: e.runId };
      const events: StepEvent[] = [];
      for (const [i, s] of e.steps.entries()) {
        // A run's end is counted from flow.ended (with how it ended); a question that expired with nothing on
        // its timeout exit ended the run there: the customer dropped on it.
        if (s.kind === 'end') {
          const before = e.steps[i - 1];
          if (before?.kind === 'exit' && before.exit === 'timeout' && before.nodeId === s.nodeId)
            events.push({ ...keys, nodeId: s.nodeId, kind: 'drop' });
          continue;
        }
        events.push({
          companyId: e.companyId,
          flowId: e.flowId,
          runId: e.runId,
          nodeId: s.kind === 'start' ? '' : s.nodeId,
          kind: s.kind,
          exit: s.kind === 'exit' ? (s.exit ?? '') : '',
        });
      }
      await stats.record(events);
    },
    'flow-stats',
  );

  bus.on(
    'flow.ended',
    async (e) => {
      if (e.isTry) return;
      const outcome = e.status === 'cancelled' ? 'dropped' : e.status;
      const events: StepEvent[] = [
        { companyId: e.companyId, flowId: e.flowId, runId: e.runId, nodeId: '', kind: 'end', exit: outcome },
      ];
      // Failed or cancelled while on a node: it was entered and never left.
      if (outcome !== 'completed' && e.nodeId)
        events.push({
          companyId: e.companyId,
          flowId: e.flowId,
          runId: e.runId,
          nodeId: e.nodeId,
          kind: 'drop',
        });
      await stats.record(events);
      if (e.status === 'cancelled') return;
      const [ticket, [flow]] = await Promise.all([
        ticketQueries.byId(db, e.companyId, e.ticketId),
        db
          .select({ name: flows.name })
          .from(flows)
          .where(and(eq(flows.id, e.flowId), eq(flows.companyId, e.companyId))),
      ]);
      if (!ticket) return;
      void bus.emit('flow.outcome', {
        companyId: e.companyId,
        status: e.status,
        flow: { id: e.flowId, name: flow?.name ?? '', version: e.version },
        runId: e.runId,
        ticket,
        nodeId: e.nodeId,
        variables: e.variables,
        error: e.error ?? null,
      });
    },
    'flow-nodes',
  );

  bus.on(
    'automation.ended',
    async (e) => {
      if (e.level !== 'flow') return;
      const [run] = await db
        .select({ id: flowRuns.id })
        .from(flowRuns)
        .where(
          and(
            eq(flowRuns.ticketId, e.ticketId),
            eq(flowRuns.companyId, e.companyId),
            eq(flowRuns.status, 'held'),
          ),
        );
      if (!run) return;
      const data: AutomationResume = { automation: e.reason, ...(e.error ? { error: e.error } : {}) };
      await deps.resume(e.companyId, run.id, { ...data });
    },
    'flow-nodes',
  );
}
