import { and, desc, eq } from 'drizzle-orm';
import { priorityOf } from '@recado/contracts';
import type { Db } from '../../db/client.js';
import { flowRuns, flowVersions, flows, ticketHistories } from '../../db/schema/index.js';
import type { DomainBus } from '../../events/domain-events.js';
import { recordTicketEvent, recordTicketEvents } from './record.js';
import { actorKindOf, entriesOfChange, type TimelineService } from './timeline-service.js';

/**
 * The ticket timeline follows the domain events (docs/productivity.md "Ticket timeline"): every announced
 * change (whoever made it: a person, the bot, a flow, routing, a timer, the API) gives its accepted /
 * transferred / returned / resolved / reopened / tag entries; created, priority, snooze, wake, SLA breach
 * and flow steps come from their own events. Notes, ratings and the bot's menu choices are recorded inline,
 * in the change's own statement or transaction (their announcements say `recorded`).
 */
type NodeLabel = { type: string | null; label: string | null };
/** Entries kept per map below before it starts over (a bound, not a policy). */
const CACHE_MAX = 2000;
/** How long a flow's name is kept: a rename elsewhere shows in new entries within this. */
const FLOW_NAME_TTL_MS = 5_000;

export function timelineListeners(
  bus: DomainBus,
  deps: { db: Db; timeline: Pick<TimelineService, 'named'> },
) {
  const { db, timeline } = deps;
  // They write the record: the outbox replays them after a crash, keyed on the event's outbox id.
  const durable = { durable: true };

  /**
   * A run's flow and version never change, nor does a version's graph: both kept (the labels only). The
   * flow's name can: kept FLOW_NAME_TTL_MS. A run's first step reads all three in one statement; its next
   * ones, none (the name again once it is older than its TTL).
   */
  const runs = new Map<number, { companyId: number; flowId: number; versionId: number | null }>();
  const versions = new Map<number, Map<string, NodeLabel>>();
  const names = new Map<number, { name: string; until: number }>();
  const labelsOf = (graph: { nodes?: unknown } | null | undefined) => {
    const nodes = (graph?.nodes ?? []) as { id: string; type?: string; data?: { label?: string } }[];
    return new Map(nodes.map((n) => [n.id, { type: n.type ?? null, label: n.data?.label ?? null }]));
  };
  const keep = <K, V>(m: Map<K, V>, k: K, v: V) => {
    if (m.size >= CACHE_MAX) m.clear();
    m.set(k, v);
  };
  async function flowOfRun(companyId: number, runId: number) {
    const now = performance.now();
    const known = runs.get(runId);
    if (known && known.companyId === companyId) {
      const nodes = known.versionId === null ? new Map<string, NodeLabel>() : versions.get(known.versionId);
      let name = names.get(known.flowId);
      if (nodes && (!name || name.until <= now)) {
        const [f] = await db
          .select({ name: flows.name })
          .from(flows)
          .where(and(eq(flows.id, known.flowId), eq(flows.companyId, companyId)));
        if (f) keep(names, known.flowId, (name = { name: f.name, until: now + FLOW_NAME_TTL_MS }));
      }
      if (nodes && name) return { name: name.name, nodes };
    }
    const [run] = await db
      .select({
        flowId: flowRuns.flowId,
        versionId: flowRuns.versionId,
        name: flows.name,
        graph: flowVersions.graph,
      })
      .from(flowRuns)
      .innerJoin(flows, eq(flows.id, flowRuns.flowId))
      .leftJoin(flowVersions, eq(flowVersions.id, flowRuns.versionId))
      .where(and(eq(flowRuns.id, runId), eq(flowRuns.companyId, companyId)));
    if (!run) return undefined;
    const nodes = labelsOf(run.graph);
    keep(runs, runId, { companyId, flowId: run.flowId, versionId: run.versionId });
    if (run.versionId !== null && run.graph) keep(versions, run.versionId, nodes);
    keep(names, run.flowId, { name: run.name, until: now + FLOW_NAME_TTL_MS });
    return { name: run.name, nodes };
  }

  bus.on(
    'ticket.announced',
    async ({ companyId, ticket, change }, { outboxId }) => {
      // Created: ticket.created / message.stored say it (and by whom); recorded: the change wrote its own.
      if (change.before === null || change.recorded) return;
      const entries = entriesOfChange(ticket, change);
      if (!entries.length) return;
      const actorKind = actorKindOf(change.actor);
      const actorId = actorKind === 'user' ? (change.by ?? null) : null;
      const extra = actorKind === 'system' || actorKind === 'bot' ? { by: change.actor } : {};
      await recordTicketEvents(
        db,
        (await timeline.named(companyId, entries)).map((e) => ({
          companyId,
          ticketId: ticket.id,
          type: e.type,
          actorKind,
          actorId,
          data: { ...e.data, ...extra },
          outboxId,
        })),
      );
    },
    'timeline',
    durable,
  );

  bus.on(
    'ticket.changed',
    async ({ companyId, before, after, by }, { outboxId }) => {
      if (before.priority === after.priority) return;
      await recordTicketEvent(db, {
        companyId,
        ticketId: after.id,
        type: 'priority',
        actorId: by,
        data: { from: priorityOf(before.priority), to: priorityOf(after.priority) },
        outboxId,
      });
    },
    'timeline',
    durable,
  );

  bus.on(
    'ticket.created',
    async ({ companyId, ticketId }, { outboxId }) => {
      // Who opened it: the creation's history entry (a user, a schedule, the external API).
      const [h] = await db
        .select({ userId: ticketHistories.userId, data: ticketHistories.data })
        .from(ticketHistories)
        .where(
          and(
            eq(ticketHistories.ticketId, ticketId),
            eq(ticketHistories.companyId, companyId),
            eq(ticketHistories.action, 'create'),
          ),
        )
        .orderBy(desc(ticketHistories.id))
        .limit(1);
      const data = (h?.data ?? {}) as Record<string, unknown>;
      const api = data.by === 'api';
      const scheduleId = typeof data.scheduleId === 'number' ? data.scheduleId : undefined;
      await recordTicketEvent(db, {
        companyId,
        ticketId,
        type: 'created',
        actorKind: api ? 'api' : scheduleId ? 'system' : h?.userId ? 'user' : 'system',
        actorId: api ? null : (h?.userId ?? null),
        data: scheduleId ? { by: 'schedule', scheduleId } : {},
        outboxId,
      });
    },
    'timeline',
    durable,
  );

  bus.on(
    'message.stored',
    async ({ ref, ticket, message, ticketCreated }, { outboxId }) => {
      if (!ticketCreated) return;
      await recordTicketEvent(db, {
        companyId: ref.companyId,
        ticketId: ticket.id,
        type: 'created',
        actorKind: message.fromMe ? 'system' : 'customer',
        data: { by: 'inbound' },
        outboxId,
      });
    },
    'timeline',
    durable,
  );

  bus.on(
    'ticket.snoozed',
    (e, { outboxId }) =>
      recordTicketEvent(db, {
        outboxId,
        companyId: e.companyId,
        ticketId: e.ticketId,
        type: 'snoozed',
        actorId: e.by,
        data: { until: e.until?.toISOString() ?? null, untilReply: e.untilReply },
        at: e.at,
      }),
    'timeline',
    durable,
  );

  bus.on(
    'ticket.woken',
    (e, { outboxId }) =>
      recordTicketEvent(db, {
        outboxId,
        companyId: e.companyId,
        ticketId: e.ticketId,
        type: 'woken',
        actorId: e.by,
        actorKind: e.by ? 'user' : e.reason === 'reply' ? 'customer' : 'system',
        data: { reason: e.reason },
        at: e.at,
      }),
    'timeline',
    durable,
  );

  bus.on(
    'sla.breached',
    (e, { outboxId }) =>
      recordTicketEvent(db, {
        outboxId,
        companyId: e.companyId,
        ticketId: e.ticket.id,
        type: 'sla_breached',
        data: { kind: e.kind, policyId: e.policyId, dueAt: e.dueAt.toISOString() },
        at: e.breachedAt,
      }),
    'timeline',
    durable,
  );

  bus.on(
    'flow.steps',
    async (e, { outboxId }) => {
      if (e.isTry) return;
      const entered = e.steps.filter((s) => s.kind === 'enter' && s.nodeId !== 'start');
      if (!entered.length) return;
      // The nodes' labels of the version the run runs on.
      const run = await flowOfRun(e.companyId, e.runId);
      const label = (id: string) => {
        const n = run?.nodes.get(id);
        return { id, type: n?.type ?? null, label: n?.label ?? null };
      };
      await recordTicketEvent(db, {
        outboxId,
        companyId: e.companyId,
        ticketId: e.ticketId,
        type: 'flow',
        actorKind: 'flow',
        data: {
          flow: { id: e.flowId, name: run?.name ?? null },
          runId: e.runId,
          started: e.steps.some((s) => s.kind === 'start'),
          nodes: entered.map((s) => label(s.nodeId)).filter((n) => n.type !== 'start'),
        },
      });
    },
    'timeline',
    durable,
  );
}
