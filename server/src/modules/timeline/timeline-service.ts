import { and, asc, desc, eq, gt, inArray, lt, sql } from 'drizzle-orm';
import type { TicketEventActorKind, TicketEventType, TicketEventsQuery, TicketView } from '@recado/contracts';
import type { Db } from '../../db/client.js';
import { queues, tags, ticketEvents, users } from '../../db/schema/index.js';
import { executeRows } from '../../db/rows.js';
import type { TicketActor, TicketChange, TicketRow } from '../../events/domain-events.js';
import type { Tenant } from '../../http/tenant.js';
import { visibleTicketRow } from '../tickets/ticket-queries.js';
import type { TicketEventInput } from './record.js';

type ActorKind = NonNullable<TicketEventInput['actorKind']>;

/** Who a ticket change's actor is on the timeline: a person, or the bot / system / API. */
export function actorKindOf(actor: TicketActor): ActorKind {
  switch (actor) {
    case 'user':
      return 'user';
    case 'bot':
    case 'ai':
    case 'integration':
      return 'bot';
    case 'api':
      return 'api';
    default:
      // timer, schedule, routing
      return 'system';
  }
}

/** One side of a move: the queue and the attendant, with their names as they were then. */
export interface Side {
  queueId: number | null;
  queueName: string | null;
  userId: number | null;
  userName: string | null;
}

/**
 * The timeline entries of one announced change (status, queue, attendant, tags), without names for the
 * queues and users yet (see `named`). A change whose fields did not move records nothing.
 */
export function entriesOfChange(
  view: Pick<TicketView, 'id' | 'status' | 'queueId' | 'userId' | 'tags'> & {
    closingReasonId?: number | null;
    saleValue?: number | null;
  },
  change: TicketChange,
): { type: string; data: Record<string, unknown> }[] {
  const before = change.before ?? {};
  const out: { type: string; data: Record<string, unknown> }[] = [];
  const was = {
    status: before.status ?? view.status,
    queueId: before.queueId !== undefined ? before.queueId : view.queueId,
    userId: before.userId !== undefined ? before.userId : view.userId,
  };
  const statusMoved = was.status !== view.status;
  const queueMoved = was.queueId !== view.queueId;
  const userMoved = was.userId !== view.userId;
  const from = { queueId: was.queueId, userId: was.userId };
  const to = { queueId: view.queueId, userId: view.userId };
  if (statusMoved && view.status === 'closed') {
    out.push({
      type: 'resolved',
      data: {
        from,
        ...(view.closingReasonId != null ? { reasonId: view.closingReasonId } : {}),
        ...(view.saleValue != null ? { saleValue: view.saleValue } : {}),
      },
    });
  } else if (statusMoved && was.status === 'closed') {
    out.push({ type: 'reopened', data: { from, to } });
    if (queueMoved) out.push({ type: 'transferred', data: { from, to } });
  } else if (
    change.action === 'return' ||
    (view.status === 'pending' && was.status === 'open' && view.userId === null && !queueMoved)
  ) {
    out.push({ type: 'returned', data: { from, to } });
  } else if (
    (change.action === 'accept' || (statusMoved && was.status === 'pending')) &&
    view.status === 'open' &&
    !queueMoved
  ) {
    out.push({ type: 'accepted', data: { from, to } });
  } else if (queueMoved || userMoved) {
    out.push({ type: 'transferred', data: { from, to } });
  }
  if (before.tagIds) {
    const now = view.tags.map((g) => g.id);
    for (const g of view.tags)
      if (!before.tagIds.includes(g.id))
        out.push({ type: 'tag_added', data: { tag: { id: g.id, name: g.name } } });
    for (const id of before.tagIds)
      if (!now.includes(id)) out.push({ type: 'tag_removed', data: { tag: { id, name: null } } });
  }
  return out;
}

export function timelineService(deps: { db: Db }) {
  const { db } = deps;

  /** Gives the entries' queues, users, removed tags and closing reason their names (as they are now). */
  async function named(
    companyId: number,
    entries: { type: string; data: Record<string, unknown> }[],
  ): Promise<{ type: string; data: Record<string, unknown> }[]> {
    const queueIds = new Set<number>();
    const userIds = new Set<number>();
    const tagIds = new Set<number>();
    for (const e of entries) {
      for (const side of [e.data.from, e.data.to] as (
        { queueId?: number | null; userId?: number | null } | undefined
      )[]) {
        if (side?.queueId) queueIds.add(side.queueId);
        if (side?.userId) userIds.add(side.userId);
      }
      const tag = e.data.tag as { id: number; name: string | null } | undefined;
      if (tag && tag.name === null) tagIds.add(tag.id);
    }
    const [qs, us, ts] = await Promise.all([
      queueIds.size
        ? db
            .select({ id: queues.id, name: queues.name })
            .from(queues)
            .where(and(eq(queues.companyId, companyId), inArray(queues.id, [...queueIds])))
        : [],
      userIds.size
        ? db
            .select({ id: users.id, name: users.name })
            .from(users)
            .where(and(eq(users.companyId, companyId), inArray(users.id, [...userIds])))
        : [],
      tagIds.size
        ? db
            .select({ id: tags.id, name: tags.name })
            .from(tags)
            .where(and(eq(tags.companyId, companyId), inArray(tags.id, [...tagIds])))
        : [],
    ]);
    const qn = new Map(qs.map((q) => [q.id, q.name]));
    const un = new Map(us.map((u) => [u.id, u.name]));
    const tn = new Map(ts.map((g) => [g.id, g.name]));
    const side = (s: unknown): Side | undefined => {
      if (!s) return undefined;
      const { queueId = null, userId = null } = s as { queueId?: number | null; userId?: number | null };
      return {
        queueId,
        queueName: queueId ? (qn.get(queueId) ?? null) : null,
        userId,
        userName: userId ? (un.get(userId) ?? null) : null,
      };
    };
    const out = [];
    for (const e of entries) {
      const data = { ...e.data };
      if (data.from) data.from = side(data.from);
      if (data.to) data.to = side(data.to);
      const tag = data.tag as { id: number; name: string | null } | undefined;
      if (tag && tag.name === null) data.tag = { id: tag.id, name: tn.get(tag.id) ?? null };
      if (typeof data.reasonId === 'number') data.reason = await closingReasonName(companyId, data.reasonId);
      out.push({ type: e.type, data });
    }
    return out;
  }

  /** The closing reason's name (#32.3's closing_reasons), or null. */
  async function closingReasonName(companyId: number, id: number): Promise<string | null> {
    try {
      const [r] = await executeRows<{ name: string }>(
        db,
        sql`select name from closing_reasons where id = ${id} and company_id = ${companyId}`,
      );
      return r?.name ?? null;
    } catch {
      return null;
    }
  }

  /** The ticket as its own route shows it: another company's is not found, one the rule hides is refused. */
  const visibleTicket = (t: Tenant, id: number) => visibleTicketRow(db, t, id);

  return {
    named,

    /** GET /tickets/{id}/events: oldest first from `after`, or the page just before `before`. */
    async list(t: Tenant, ticketId: number, q: TicketEventsQuery) {
      await visibleTicket(t, ticketId);
      const scope = and(eq(ticketEvents.companyId, t.companyId), eq(ticketEvents.ticketId, ticketId));
      const cols = {
        id: ticketEvents.id,
        ticketId: ticketEvents.ticketId,
        type: ticketEvents.type,
        actorKind: ticketEvents.actorKind,
        actorId: ticketEvents.actorId,
        actorName: users.name,
        data: ticketEvents.data,
        createdAt: ticketEvents.createdAt,
      };
      const base = db
        .select(cols)
        .from(ticketEvents)
        .leftJoin(users, and(eq(users.id, ticketEvents.actorId), eq(users.companyId, t.companyId)));
      const rows = q.before
        ? (
            await base
              .where(and(scope, lt(ticketEvents.id, q.before)))
              .orderBy(desc(ticketEvents.id))
              .limit(q.limit + 1)
          ).reverse()
        : await base
            .where(and(scope, q.after ? gt(ticketEvents.id, q.after) : undefined))
            .orderBy(asc(ticketEvents.id))
            .limit(q.limit + 1);
      const hasMore = rows.length > q.limit;
      const page = hasMore ? (q.before ? rows.slice(1) : rows.slice(0, q.limit)) : rows;
      const [{ count } = { count: 0 }] = await db
        .select({ count: sql<number>`count(*)::int` })
        .from(ticketEvents)
        .where(scope);
      return {
        events: page.map((r) => ({
          ...r,
          type: r.type as TicketEventType,
          actorKind: r.actorKind as TicketEventActorKind,
          actorName: r.actorName ?? null,
          data: r.data ?? {},
        })),
        count,
        hasMore,
      };
    },
  };
}
export type TimelineService = ReturnType<typeof timelineService>;
export type { TicketRow };
