import { and, asc, desc, eq, inArray, isNull, ne, notInArray, or, sql, type SQL } from 'drizzle-orm';
import {
  can,
  KANBAN_TICKET_LIMIT,
  MAX_TAGS_PER_TICKET,
  TAG_PAGE_SIZE,
  type KanbanQuery,
  type KanbanTickets,
  type Tag,
  type TagEvent,
  type TagInput,
  type TagListQuery,
  type TagSyncInput,
  type TagUpdate,
  type TicketView,
} from '@recado/contracts';
import type { Db, Tx } from '../../db/client.js';
import { tags, ticketTags, tickets } from '../../db/schema/index.js';
import { AppError, isUniqueViolation } from '../../http/errors.js';
import type { Tenant } from '../../http/tenant.js';
import type { Events } from '../../realtime/events.js';
import { containsText } from '../../lib/sql.js';
import {
  canSeeTicket,
  channelFilterWhere,
  isManager,
  loadViewer,
  selectViews,
  ticketQueries,
  toTicketView,
  queueSelectionWhere,
  visibleWhere,
  type ViewRow,
} from '../tickets/ticket-queries.js';
import type { TicketChange } from '../../events/domain-events.js';
import type { EmitTicket, StageTicket } from '../tickets/ticket-service.js';

type Row = typeof tags.$inferSelect;

const UNIQUE_NAME = 'tags_company_name_uq';
/** Statuses a kanban board shows: the conversations still being worked on. */
const ACTIVE_STATUSES = ['open', 'pending'];

const ticketsCount = sql<number>`(select count(*)::int from ticket_tags tt where tt.tag_id = ${tags.id})`;

export const tagView = (r: Row, count: number): Tag => ({
  id: r.id,
  companyId: r.companyId,
  name: r.name,
  color: r.color,
  kanban: r.kanban ? 1 : 0,
  userId: r.userId,
  ticketsCount: Number(count) || 0,
  createdAt: r.createdAt.toISOString(),
  updatedAt: r.updatedAt.toISOString(),
});

/** docs/team-tools.md: only admins and supervisors turn a tag into a kanban lane or back. */
const canEditKanban = (t: Tenant) => can(t, 'tags:editKanban') || t.super;
/**
 * Tags are shared by the whole company and kanban lanes shape its board (docs/team-tools.md: lanes are for
 * admins and supervisors). Admins and supervisors manage every tag; a plain user only the plain tags they
 * created themselves.
 */
const mayManageTag = (t: Tenant, tag: { kanban: number; userId: number | null }) =>
  canEditKanban(t) || (tag.kanban === 0 && tag.userId === t.userId);

function mapUnique(err: unknown): never {
  if (isUniqueViolation(err, UNIQUE_NAME))
    throw new AppError('ERR_TAG_ALREADY_EXISTS', 409, 'A tag with this name already exists');
  throw err;
}

export function tagService({
  db,
  events,
  emitTicket,
  stageTicket,
}: {
  db: Db;
  events: Events;
  /** The tickets module's emitter: a ticket whose tags changed goes to every room that lists it. */
  emitTicket: EmitTicket;
  /** Its outbox row, written in the tag change's transaction (docs/events.md "The outbox"). */
  stageTicket?: StageTicket;
}) {
  const emit = (companyId: number, payload: TagEvent) => events.toCompany(companyId, 'tag', payload);

  const selectTags = (where: SQL | undefined) =>
    db.select({ tag: tags, ticketsCount }).from(tags).where(where);

  async function one(companyId: number, id: number): Promise<Tag> {
    const [r] = await selectTags(and(eq(tags.id, id), eq(tags.companyId, companyId)));
    if (!r) throw new AppError('ERR_NO_TAG_FOUND', 404);
    return tagView(r.tag, r.ticketsCount);
  }

  /** The tags whose ticket counts changed go out again, so open tag lists show the new counts. */
  async function emitCounts(companyId: number, tagIds: number[]) {
    if (!tagIds.length) return;
    const rows = await selectTags(and(eq(tags.companyId, companyId), inArray(tags.id, [...new Set(tagIds)])));
    for (const r of rows) emit(companyId, { action: 'update', tag: tagView(r.tag, r.ticketsCount) });
  }

  /**
   * Changes one ticket's tags in one transaction holding the ticket's row lock, so concurrent changes of
   * the same ticket (two kanban moves, a move and a sync) run one after the other and the last one wins
   * whole. `change` answers the tag ids it added or removed.
   */
  async function changeTicketTags(
    t: Tenant,
    ticketId: number,
    change: (tx: Tx) => Promise<number[]>,
  ): Promise<TicketView> {
    const viewer = await loadViewer(db, t);
    const done = await db.transaction(async (tx) => {
      const [row] = await tx
        .select({ id: tickets.id, userId: tickets.userId, queueId: tickets.queueId, status: tickets.status })
        .from(tickets)
        .where(and(eq(tickets.id, ticketId), eq(tickets.companyId, t.companyId)))
        .for('update');
      if (!row) throw new AppError('ERR_NO_TICKET_FOUND', 404);
      if (!canSeeTicket(viewer, row)) throw new AppError('ERR_NO_PERMISSION', 403);
      const touched = await change(tx);
      if (!touched.length) return { touched };
      // The view after, and the announcement's outbox row, with the change (docs/events.md "The outbox").
      const view = (await ticketQueries.byId(tx as unknown as Db, t.companyId, ticketId))!;
      // The tags before: those it has now that were not just added, and those just removed.
      const now = view.tags.map((g) => g.id);
      const tagIds = [
        ...now.filter((id) => !touched.includes(id)),
        ...touched.filter((id) => !now.includes(id)),
      ];
      // A hook's tag action comes with no user (services.ts addTag): the integration made it.
      const announced: TicketChange = {
        actor: t.userId ? 'user' : 'integration',
        by: t.userId || null,
        action: 'update',
        before: { tagIds },
      };
      const meta = await stageTicket?.(tx, t.companyId, view, announced);
      return { touched, view, announced, meta };
    });
    const view = done.view ?? (await ticketQueries.byId(db, t.companyId, ticketId));
    if (!view) throw new AppError('ERR_NO_TICKET_FOUND', 404);
    if (done.announced) {
      emitTicket(t.companyId, view, done.announced, done.meta);
      await emitCounts(t.companyId, done.touched);
    }
    return view;
  }

  async function tagIn(tx: Tx, companyId: number, tagId: number) {
    const [tag] = await tx
      .select()
      .from(tags)
      .where(and(eq(tags.id, tagId), eq(tags.companyId, companyId)));
    if (!tag) throw new AppError('ERR_NO_TAG_FOUND', 404);
    return tag;
  }

  /** Deletes the ticket's kanban tags (all of them, or all but `keep`); answers the removed tag ids. */
  async function dropKanbanTags(tx: Tx, companyId: number, ticketId: number, keep?: number) {
    const lanes = tx
      .select({ id: tags.id })
      .from(tags)
      .where(and(eq(tags.companyId, companyId), eq(tags.kanban, 1)));
    const removed = await tx
      .delete(ticketTags)
      .where(
        and(
          eq(ticketTags.ticketId, ticketId),
          inArray(ticketTags.tagId, lanes),
          keep ? ne(ticketTags.tagId, keep) : undefined,
        ),
      )
      .returning({ tagId: ticketTags.tagId });
    return removed.map((r) => r.tagId);
  }

  return {
    /** GET /tags/: by name, searched by name, 20 a page, hasMore from one extra row. */
    async list(t: Tenant, q: TagListQuery) {
      const search = q.searchParam.trim();
      const rows = await selectTags(
        and(eq(tags.companyId, t.companyId), search ? containsText(tags.name, search) : undefined),
      )
        .orderBy(asc(sql`lower(${tags.name})`), asc(tags.id))
        .limit(TAG_PAGE_SIZE + 1)
        .offset((q.pageNumber - 1) * TAG_PAGE_SIZE);
      return {
        tags: rows.slice(0, TAG_PAGE_SIZE).map((r) => tagView(r.tag, r.ticketsCount)),
        hasMore: rows.length > TAG_PAGE_SIZE,
      };
    },

    /** GET /tags/list: every tag of the company by name (the tag picker and the ticket filter). */
    async all(t: Tenant): Promise<Tag[]> {
      const rows = await selectTags(eq(tags.companyId, t.companyId)).orderBy(
        asc(sql`lower(${tags.name})`),
        asc(tags.id),
      );
      return rows.map((r) => tagView(r.tag, r.ticketsCount));
    },

    /** GET /tags/kanban: the lanes, in the order they were created. */
    async kanbanLanes(t: Tenant): Promise<{ lista: Tag[] }> {
      const rows = await selectTags(and(eq(tags.companyId, t.companyId), eq(tags.kanban, 1))).orderBy(
        asc(tags.id),
      );
      return { lista: rows.map((r) => tagView(r.tag, r.ticketsCount)) };
    },

    get: (t: Tenant, id: number) => one(t.companyId, id),

    async create(t: Tenant, input: TagInput): Promise<Tag> {
      if (input.kanban && !canEditKanban(t)) throw new AppError('ERR_NO_PERMISSION', 403);
      let row: Row;
      try {
        [row] = (await db
          .insert(tags)
          .values({
            companyId: t.companyId,
            name: input.name,
            color: input.color,
            kanban: input.kanban,
            userId: t.userId,
          })
          .returning()) as [Row];
      } catch (err) {
        mapUnique(err);
      }
      const tag = tagView(row, 0);
      emit(t.companyId, { action: 'create', tag });
      return tag;
    },

    async update(t: Tenant, id: number, input: TagUpdate): Promise<Tag> {
      const current = await one(t.companyId, id);
      if (!mayManageTag(t, current)) throw new AppError('ERR_NO_PERMISSION', 403);
      // Sending the flag unchanged (a whole form) is fine; changing it needs the right.
      if (input.kanban !== undefined && input.kanban !== current.kanban && !canEditKanban(t))
        throw new AppError('ERR_NO_PERMISSION', 403);
      let updated: Row | undefined;
      try {
        [updated] = await db
          .update(tags)
          .set({ name: input.name, color: input.color, kanban: input.kanban, updatedAt: new Date() })
          .where(and(eq(tags.id, id), eq(tags.companyId, t.companyId)))
          .returning();
      } catch (err) {
        mapUnique(err);
      }
      if (!updated) throw new AppError('ERR_NO_TAG_FOUND', 404);
      const tag = await one(t.companyId, id);
      emit(t.companyId, { action: 'update', tag });
      return tag;
    },

    /** The tickets lose the tag with it (ticket_tags cascade); clients drop it from their cached tickets. */
    async remove(t: Tenant, id: number) {
      if (!mayManageTag(t, await one(t.companyId, id))) throw new AppError('ERR_NO_PERMISSION', 403);
      const [gone] = await db
        .delete(tags)
        .where(and(eq(tags.id, id), eq(tags.companyId, t.companyId)))
        .returning({ id: tags.id });
      if (!gone) throw new AppError('ERR_NO_TAG_FOUND', 404);
      emit(t.companyId, { action: 'delete', tagId: id });
      return { message: 'Tag deleted' };
    },

    /** POST /tags/sync: the ticket's whole tag set (at most one kanban lane among them). */
    sync(t: Tenant, input: TagSyncInput): Promise<TicketView> {
      const ids = input.tags;
      return changeTicketTags(t, input.ticketId, async (tx) => {
        const found = ids.length
          ? await tx
              .select({ id: tags.id, kanban: tags.kanban })
              .from(tags)
              .where(and(eq(tags.companyId, t.companyId), inArray(tags.id, ids)))
          : [];
        if (found.length !== ids.length) throw new AppError('ERR_NO_TAG_FOUND', 404);
        if (found.filter((f) => f.kanban).length > 1)
          throw new AppError('ERR_VALIDATION', 400, 'A ticket sits in one kanban lane at most');
        const removed = await tx
          .delete(ticketTags)
          .where(
            and(
              eq(ticketTags.ticketId, input.ticketId),
              ids.length ? notInArray(ticketTags.tagId, ids) : undefined,
            ),
          )
          .returning({ tagId: ticketTags.tagId });
        const added = ids.length
          ? await tx
              .insert(ticketTags)
              .values(ids.map((tagId) => ({ ticketId: input.ticketId, tagId })))
              .onConflictDoNothing()
              .returning({ tagId: ticketTags.tagId })
          : [];
        return [...removed, ...added].map((r) => r.tagId);
      });
    },

    /**
     * PUT /ticket-tags/{ticketId}/{tagId}: adds the tag. A kanban tag moves the card: the ticket's other
     * kanban tag goes in the same transaction, so a ticket is in one lane whatever runs at the same time.
     */
    addToTicket(t: Tenant, ticketId: number, tagId: number): Promise<TicketView> {
      return changeTicketTags(t, ticketId, async (tx) => {
        const tag = await tagIn(tx, t.companyId, tagId);
        const removed = tag.kanban ? await dropKanbanTags(tx, t.companyId, ticketId, tagId) : [];
        const [count] = await tx
          .select({ n: sql<number>`count(*)::int` })
          .from(ticketTags)
          .where(and(eq(ticketTags.ticketId, ticketId), ne(ticketTags.tagId, tagId)));
        if ((count?.n ?? 0) >= MAX_TAGS_PER_TICKET)
          throw new AppError('ERR_VALIDATION', 400, `A ticket carries ${MAX_TAGS_PER_TICKET} tags at most`);
        const added = await tx
          .insert(ticketTags)
          .values({ ticketId, tagId })
          .onConflictDoNothing()
          .returning({ tagId: ticketTags.tagId });
        return [...removed, ...added.map((r) => r.tagId)];
      });
    },

    /** DELETE /ticket-tags/{ticketId}/{tagId}: removes one tag. */
    removeFromTicket(t: Tenant, ticketId: number, tagId: number): Promise<TicketView> {
      return changeTicketTags(t, ticketId, async (tx) => {
        await tagIn(tx, t.companyId, tagId);
        const removed = await tx
          .delete(ticketTags)
          .where(and(eq(ticketTags.ticketId, ticketId), eq(ticketTags.tagId, tagId)))
          .returning({ tagId: ticketTags.tagId });
        return removed.map((r) => r.tagId);
      });
    },

    /**
     * DELETE /ticket-tags/{ticketId}: takes the ticket out of its kanban lane (back to the open lane).
     * Its other tags stay: moving a card never loses the labels set in the chat.
     */
    clearKanban(t: Tenant, ticketId: number): Promise<TicketView> {
      return changeTicketTags(t, ticketId, (tx) => dropKanbanTags(tx, t.companyId, ticketId));
    },

    /**
     * GET /ticket/kanban: the open and pending tickets of the board, most recently updated first. showAll
     * (admins only) shows every ticket, within the chosen queues when queueIds is given; everyone else sees
     * what the ticket manager shows them: their own tickets, their queues', and queueless ones if allowed.
     */
    async kanbanTickets(t: Tenant, q: KanbanQuery): Promise<KanbanTickets> {
      const viewer = await loadViewer(db, t);
      const conds: (SQL | undefined)[] = [
        eq(tickets.companyId, t.companyId),
        inArray(tickets.status, ACTIVE_STATUSES),
      ];
      if (q.showAll && isManager(viewer)) {
        if (q.queueIds?.length) conds.push(or(inArray(tickets.queueId, q.queueIds), isNull(tickets.queueId)));
      } else conds.push(visibleWhere(viewer), queueSelectionWhere(viewer.userId, q.queueIds));
      conds.push(channelFilterWhere(t.companyId, q.channels));
      const rows = await selectViews(db)
        .where(and(...conds))
        .orderBy(desc(tickets.updatedAt), desc(tickets.id))
        .limit(KANBAN_TICKET_LIMIT + 1);
      return {
        tickets: rows.slice(0, KANBAN_TICKET_LIMIT).map((r) => toTicketView(r as ViewRow)),
        hasMore: rows.length > KANBAN_TICKET_LIMIT,
      };
    },
  };
}
export type TagService = ReturnType<typeof tagService>;
