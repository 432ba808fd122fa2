import { and, desc, eq, inArray, isNotNull, isNull, or, sql, type SQL } from 'drizzle-orm';
import {
  canSeeTicket,
  isTicketManager,
  TICKET_PAGE_SIZE,
  viewerKeys,
  type TicketListQuery,
  type TicketView,
  type VisibilityViewer,
} from '@recado/contracts';
import type { AnyPgColumn } from 'drizzle-orm/pg-core';
import type { Db } from '../../db/client.js';
import { contacts, queues, tickets, userQueues, users, whatsapps } from '../../db/schema/index.js';
import { containsText } from '../../lib/sql.js';

/** A ticket's tags as JSON, for any expression naming the ticket's id (a column, or a CTE's). */
export const tagsFor = (ticketId: SQL | AnyPgColumn) => sql<TicketView['tags']>`coalesce((
  select json_agg(json_build_object('id', tg.id, 'name', tg.name, 'color', tg.color) order by tg.name)
  from ticket_tags tt join tags tg on tg.id = tt.tag_id where tt.ticket_id = ${ticketId}), '[]'::json)`;

/** A ticket's source tracking as JSON (see tagsFor). */
export const trackingFor = (ticketId: SQL | AnyPgColumn) => sql<TicketView['ticketSourceTracking']>`coalesce((
  select json_agg(json_build_object('id', s.id, 'uuid', s.uuid, 'campaign', s.campaign, 'source', s.source,
    'medium', s.medium, 'metadata', s.metadata, 'createdAt', s.created_at) order by s.id)
  from ticket_source_tracking s where s.ticket_id = ${ticketId}), '[]'::json)`;

const tagsOf = tagsFor(tickets.id);
const trackingOf = trackingFor(tickets.id);

const viewColumns = {
  ticket: tickets,
  contact: {
    id: contacts.id,
    name: contacts.name,
    number: contacts.number,
    email: contacts.email,
    profilePicUrl: contacts.profilePicUrl,
    isGroup: contacts.isGroup,
  },
  queue: { id: queues.id, name: queues.name, color: queues.color },
  user: { id: users.id, name: users.name },
  whatsapp: { id: whatsapps.id, name: whatsapps.name, channel: whatsapps.channel },
  tags: tagsOf,
  tracking: trackingOf,
};

export type ViewRow = {
  ticket: typeof tickets.$inferSelect;
  contact: TicketView['contact'];
  queue: TicketView['queue'] | null;
  user: TicketView['user'] | null;
  whatsapp: TicketView['whatsapp'] | null;
  tags: TicketView['tags'];
  tracking: TicketView['ticketSourceTracking'];
};

export const toTicketView = (r: ViewRow): TicketView => {
  const t = r.ticket;
  return {
    id: t.id,
    uuid: t.uuid,
    status: t.status as TicketView['status'],
    contactId: t.contactId,
    contact: r.contact,
    queueId: t.queueId,
    queue: r.queue?.id ? r.queue : null,
    userId: t.userId,
    user: r.user?.id ? r.user : null,
    whatsappId: t.whatsappId,
    whatsapp: r.whatsapp?.id ? r.whatsapp : null,
    lastMessage: t.lastMessage,
    unreadMessages: t.unreadMessages,
    isGroup: t.isGroup,
    chatbot: t.chatbot,
    useIntegration: t.useIntegration,
    integrationId: t.integrationId,
    promptId: t.promptId,
    tags: r.tags ?? [],
    ticketSourceTracking: r.tracking ?? [],
    createdAt: t.createdAt.toISOString(),
    updatedAt: t.updatedAt.toISOString(),
  };
};

export function selectViews(db: Db) {
  return db
    .select(viewColumns)
    .from(tickets)
    .innerJoin(contacts, eq(contacts.id, tickets.contactId))
    .leftJoin(queues, eq(queues.id, tickets.queueId))
    .leftJoin(users, eq(users.id, tickets.userId))
    .leftJoin(whatsapps, eq(whatsapps.id, tickets.whatsappId));
}

export interface Viewer extends VisibilityViewer {
  userId: number;
  companyId: number;
  profile: string;
  super: boolean;
  queueIds: number[];
  showQueuelessTickets: boolean;
  allTicket: string;
}

export async function loadViewer(
  db: Db,
  t: { userId: number; companyId: number; profile: string; super: boolean },
): Promise<Viewer> {
  const [u] = await db
    .select({ showQueuelessTickets: users.showQueuelessTickets, allTicket: users.allTicket })
    .from(users)
    .where(eq(users.id, t.userId));
  const qs = await db
    .select({ id: userQueues.queueId })
    .from(userQueues)
    .where(eq(userQueues.userId, t.userId));
  return {
    userId: t.userId,
    companyId: t.companyId,
    profile: t.profile,
    super: t.super,
    queueIds: qs.map((q) => q.id),
    showQueuelessTickets: u?.showQueuelessTickets ?? true,
    allTicket: u?.allTicket ?? 'desabled',
  };
}

/** Whether this user may follow a ticket's room: a ticket of their company that the rule lets them see. */
export async function mayFollowTicket(
  db: Db,
  t: { userId: number; companyId: number; profile: string; super: boolean },
  ticketId: number,
): Promise<boolean> {
  const [row] = await db
    .select()
    .from(tickets)
    .where(and(eq(tickets.id, ticketId), eq(tickets.companyId, t.companyId)));
  return Boolean(row) && canSeeTicket(await loadViewer(db, t), row!);
}

export const isManager = isTicketManager;
/** The one visibility rule (contracts/visibility.ts). */
export { canSeeTicket };

/** Each of the rule's keys as SQL over `tickets`: a key of the viewer, the tickets it covers. */
function keyWhere(key: string): SQL {
  if (key === 'all') return sql`true`;
  if (key === 'queueless') return isNull(tickets.queueId);
  if (key === 'waiting') return and(eq(tickets.status, 'pending'), isNotNull(tickets.queueId))!;
  const [, grant, id] = /^(user|queue)-(\d+)$/.exec(key) ?? [];
  if (grant === 'user') return eq(tickets.userId, Number(id));
  if (grant === 'queue') return eq(tickets.queueId, Number(id));
  throw new Error(`visibility key without SQL: ${key}`);
}

/** The tickets the viewer may see, as SQL: exactly canSeeTicket (the visibility test compares them). */
export function visibleWhere(v: Viewer): SQL | undefined {
  const keys = viewerKeys(v);
  if (keys.includes('all')) return undefined;
  const queueIds = keys.filter((k) => k.startsWith('queue-')).map((k) => Number(k.slice(6)));
  const rest = keys.filter((k) => !k.startsWith('queue-')).map(keyWhere);
  return or(...rest, queueIds.length ? inArray(tickets.queueId, queueIds) : undefined) ?? sql`false`;
}

/**
 * The ticket list's queue selection (a filter, not a right): the picked queues, plus the caller's own
 * tickets and queueless ones (visibility still decides whether those show).
 */
export function queueSelectionWhere(userId: number, selected: number[] | undefined): SQL | undefined {
  if (selected === undefined) return undefined;
  return or(
    eq(tickets.userId, userId),
    selected.length ? inArray(tickets.queueId, selected) : undefined,
    isNull(tickets.queueId),
  );
}

export const ticketQueries = {
  async byId(db: Db, companyId: number, id: number): Promise<TicketView | undefined> {
    const [r] = await selectViews(db).where(and(eq(tickets.id, id), eq(tickets.companyId, companyId)));
    return r ? toTicketView(r as ViewRow) : undefined;
  },
  async byUuid(db: Db, companyId: number, uuid: string): Promise<TicketView | undefined> {
    const [r] = await selectViews(db).where(and(eq(tickets.uuid, uuid), eq(tickets.companyId, companyId)));
    return r ? toTicketView(r as ViewRow) : undefined;
  },

  async page(db: Db, v: Viewer, q: TicketListQuery, canShowAll: boolean) {
    const conds: (SQL | undefined)[] = [eq(tickets.companyId, v.companyId)];
    if (q.status) conds.push(eq(tickets.status, q.status));
    // Whatever the switches say, a list never shows a ticket the caller may not open.
    conds.push(visibleWhere(v));
    const showAll = q.showAll && canShowAll;
    if (showAll) {
      if (q.queueIds?.length) conds.push(or(inArray(tickets.queueId, q.queueIds), isNull(tickets.queueId)));
    } else if (q.status === 'open') {
      // "Assigned": my open tickets.
      conds.push(eq(tickets.userId, v.userId));
      if (q.queueIds?.length) conds.push(or(inArray(tickets.queueId, q.queueIds), isNull(tickets.queueId)));
    } else {
      conds.push(queueSelectionWhere(v.userId, q.queueIds));
    }
    if (q.users?.length && isManager(v)) conds.push(inArray(tickets.userId, q.users));
    if (q.withUnreadMessages) conds.push(sql`${tickets.unreadMessages} > 0`);
    if (q.isGroup) conds.push(eq(tickets.isGroup, true));
    if (q.date) conds.push(sql`(${tickets.createdAt} at time zone 'UTC')::date = ${q.date}::date`);
    if (q.updatedAt) conds.push(sql`(${tickets.updatedAt} at time zone 'UTC')::date = ${q.updatedAt}::date`);
    if (q.tags?.length)
      conds.push(
        sql`exists (select 1 from ticket_tags tt where tt.ticket_id = ${tickets.id} and tt.tag_id in (${sql.join(
          q.tags.map((id) => sql`${id}`),
          sql`, `,
        )}))`,
      );
    const search = q.searchParam.trim();
    if (search) {
      // The contact's name or number, or any message's text, contains the search. Each way is its own
      // query reading a page's worth in list order, and their union is the candidates: per way, the
      // planner picks between a trigram index (rare text) and the list index (common text), which one OR
      // across tables never lets it do.
      const digits = search.replace(/\D/g, '');
      const filter = and(...conds);
      const enough = q.pageNumber * TICKET_PAGE_SIZE + 1;
      const way = (join: SQL, match: SQL) =>
        sql`(select ${tickets.id}, ${tickets.updatedAt} from ${tickets} ${join} where ${filter} and ${match}
          order by ${tickets.updatedAt} desc, ${tickets.id} desc limit ${enough})`;
      const byContact = sql`join contacts c on c.id = ${tickets.contactId}`;
      const ways = [
        way(byContact, containsText(sql`c.name`, search)),
        digits.length >= 3 ? way(byContact, sql`c.number like ${`%${digits}%`}`) : undefined,
        way(
          sql``,
          sql`${tickets.id} in (select m.ticket_id from messages m where m.company_id = ${v.companyId}
            and ${containsText(sql`m.body`, search)})`,
        ),
      ].filter((w): w is SQL => Boolean(w));
      conds.push(sql`${tickets.id} in (select hits.id from (${sql.join(ways, sql` union `)}) hits)`);
    }
    const rows = await selectViews(db)
      .where(and(...conds))
      .orderBy(desc(tickets.updatedAt), desc(tickets.id))
      .limit(TICKET_PAGE_SIZE + 1)
      .offset((q.pageNumber - 1) * TICKET_PAGE_SIZE);
    return {
      tickets: rows.slice(0, TICKET_PAGE_SIZE).map((r) => toTicketView(r as ViewRow)),
      hasMore: rows.length > TICKET_PAGE_SIZE,
    };
  },
};
