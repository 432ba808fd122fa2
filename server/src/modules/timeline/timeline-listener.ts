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
export function timelineListeners(
  bus: DomainBus,
  deps: { db: Db; timeline: Pick<TimelineService, 'named'> },
) {
  const { db, timeline } = deps;
  // They write the record: the outbox replays them after a crash, keyed on the event's outbox id.
  const durable = { durable: true };

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
      const [run] = await db
        .select({ name: flows.name, graph: flowVersions.graph })
        .from(flowRuns)
        .innerJoin(flows, eq(flows.id, flowRuns.flowId))
        .leftJoin(flowVersions, eq(flowVersions.id, flowRuns.versionId))
        .where(and(eq(flowRuns.id, e.runId), eq(flowRuns.companyId, e.companyId)));
      const nodes = (run?.graph?.nodes ?? []) as { id: string; type?: string; data?: { label?: string } }[];
      const label = (id: string) => {
        const n = nodes.find((x) => x.id === id);
        return { id, type: n?.type ?? null, label: n?.data?.label ?? null };
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
