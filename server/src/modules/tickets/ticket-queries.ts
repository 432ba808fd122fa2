import { and, desc, eq, inArray, isNotNull, isNull, notInArray, or, sql, type SQL } from 'drizzle-orm';
import {
  canSeeTicket,
  isTicketManager,
  priorityOf,
  splitOwnKey,
  TICKET_PAGE_SIZE,
  viewerKeys,
  type TicketListQuery,
  type TicketView,
  type VisibilityViewer,
} from '@recado/contracts';
import type { AnyPgColumn } from 'drizzle-orm/pg-core';
import type { Db } from '../../db/client.js';
import { contacts, queues, settings, tickets, userQueues, users, whatsapps } from '../../db/schema/index.js';
import { AppError } from '../../http/errors.js';
import { containsNormalised, containsText } from '../../lib/sql.js';
import { executeRows, preparedQuery, rowOf } from '../../db/rows.js';
import { pinnedTicketIds } from '../ticket-pins/pin-queries.js';
import { customFieldFilterWhere } from '../custom-fields/custom-field-service.js';

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
    ownerId: contacts.ownerId,
    customFields: contacts.customFields,
  },
  queue: { id: queues.id, name: queues.name, color: queues.color },
  user: { id: users.id, name: users.name },
  whatsapp: { id: whatsapps.id, name: whatsapps.name, channel: whatsapps.channel },
  tags: tagsOf,
  tracking: trackingOf,
};

/** `json_build_object` of columns of a table aliased `alias`, keyed like the drizzle select (`viewColumns`). */
const jsonOfColumns = (alias: string, cols: Record<string, AnyPgColumn>) =>
  `json_build_object(${Object.entries(cols)
    .map(([key, c]) => `'${key}', ${alias}.${c.name}`)
    .join(', ')})`;

/**
 * The view of the ticket row a CTE of the same statement holds (`t as (update tickets ... returning *)`), as
 * JSON: a change that announces its ticket builds the view with the change, no read after it (viewFromJson
 * reads it back). The row is the one the change wrote; the joined rows and tags as the statement began.
 */
export const viewJsonOf = (cte: string) => sql`(select json_build_object('ticket', row_to_json(vt),
    'contact', ${sql.raw(jsonOfColumns('vc', viewColumns.contact))},
    'queue', ${sql.raw(jsonOfColumns('vq', viewColumns.queue))},
    'user', ${sql.raw(jsonOfColumns('vu', viewColumns.user))},
    'whatsapp', ${sql.raw(jsonOfColumns('vw', viewColumns.whatsapp))},
    'tags', ${tagsFor(sql.raw('vt.id'))}, 'tracking', ${trackingFor(sql.raw('vt.id'))})
  from ${sql.raw(cte)} vt join contacts vc on vc.id = vt.contact_id left join queues vq on vq.id = vt.queue_id
    left join users vu on vu.id = vt.user_id left join whatsapps vw on vw.id = vt.whatsapp_id limit 1)`;

/** The view viewJsonOf built (undefined when its CTE held no row). */
export function viewFromJson(raw: unknown): TicketView | undefined {
  if (raw === null || raw === undefined) return undefined;
  const r = (typeof raw === 'string' ? JSON.parse(raw) : raw) as Omit<ViewRow, 'ticket'> & {
    ticket: Record<string, unknown>;
  };
  return toTicketView({ ...r, ticket: rowOf(tickets, r.ticket) });
}

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
    automation: t.automation ?? null,
    priority: priorityOf(t.priority),
    protocol: t.protocol,
    closingReasonId: t.closingReasonId ?? null,
    saleValue: t.saleValue == null ? null : Number(t.saleValue),
    customFields: t.customFields ?? {},
    snoozedUntil: t.snoozedUntil?.toISOString() ?? null,
    snoozeUntilReply: t.snoozeUntilReply,
    snoozedAt: t.snoozedAt?.toISOString() ?? null,
    tags: r.tags ?? [],
    ticketSourceTracking: r.tracking ?? [],
    // #30.5 written by the SLA listener (modules/sla), read here like every other column.
    sla: {
      firstResponseDueAt: t.firstResponseDueAt?.toISOString() ?? null,
      nextResponseDueAt: t.nextResponseDueAt?.toISOString() ?? null,
      resolutionDueAt: t.resolutionDueAt?.toISOString() ?? null,
      breached: (t.slaBreached ?? []) as TicketView['sla']['breached'],
      atRiskAt: t.slaAtRiskAt?.toISOString() ?? null,
    },
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

/**
 * One ticket's view by id: read on every announcement (each message a ticket sends or receives), so it is a
 * prepared statement (db/rows preparedQuery): built once, not planned again.
 */
const viewByIdQuery = preparedQuery((db: Db) =>
  selectViews(db)
    .where(and(eq(tickets.id, sql.placeholder('id')), eq(tickets.companyId, sql.placeholder('companyId'))))
    .prepare('ticket_view_by_id'),
);

/** The ticket list's page: the views of the ids it found (ticketQueries.page), prepared like viewByIdQuery. */
const viewsByIdsQuery = preparedQuery((db: Db) =>
  selectViews(db)
    .where(
      and(
        sql`${tickets.id} = any(${sql.placeholder('ids')}::int[])`,
        eq(tickets.companyId, sql.placeholder('companyId')),
      ),
    )
    .prepare('ticket_views_by_ids'),
);

export interface Viewer extends VisibilityViewer {
  userId: number;
  companyId: number;
  profile: string;
  super: boolean;
  queueIds: number[];
  showQueuelessTickets: boolean;
  allTicket: string;
}

/**
 * The viewer's row, its queues and the company's own-contacts rule (#30.4) in one prepared statement (read on
 * every list and every visibility check: one round trip, built once per connection, not planned again); with
 * `pins`, the user's pinned tickets (#32.9) too — the ticket list's own read.
 */
const viewerColumns = {
  showQueuelessTickets: users.showQueuelessTickets,
  allTicket: users.allTicket,
  ownContactsOnly: sql<boolean>`exists (select 1 from ${settings} s where s.company_id = ${sql.placeholder('companyId')}
    and s.key = 'ownContactsOnly' and s.value = 'enabled')`,
  queueIds: sql<
    number[]
  >`array(select uq.queue_id from ${userQueues} uq where uq.user_id = ${sql.placeholder('userId')})`,
};
const viewerQuery = preparedQuery((db: Db) =>
  db
    .select(viewerColumns)
    .from(users)
    .where(eq(users.id, sql.placeholder('userId')))
    .prepare('ticket_viewer'),
);
const viewerWithPinsQuery = preparedQuery((db: Db) =>
  db
    .select({
      ...viewerColumns,
      pins: sql<
        number[]
      >`array(select p.ticket_id from ticket_pins p where p.user_id = ${sql.placeholder('userId')}
        and p.company_id = ${sql.placeholder('companyId')})`,
    })
    .from(users)
    .where(eq(users.id, sql.placeholder('userId')))
    .prepare('ticket_viewer_pins'),
);

export async function loadViewer(
  db: Db,
  t: { userId: number; companyId: number; profile: string; super: boolean },
): Promise<Viewer> {
  const [u] = await viewerQuery(db).execute({ userId: t.userId, companyId: t.companyId });
  return viewerOf(t, u);
}

/** loadViewer and the user's pinned tickets (the ticket list's first read), in one statement. */
export async function loadListViewer(
  db: Db,
  t: { userId: number; companyId: number; profile: string; super: boolean },
): Promise<Viewer & { pins: number[] }> {
  const [u] = await viewerWithPinsQuery(db).execute({ userId: t.userId, companyId: t.companyId });
  return { ...viewerOf(t, u), pins: (u?.pins ?? []).map(Number) };
}

function viewerOf(
  t: { userId: number; companyId: number; profile: string; super: boolean },
  u:
    | {
        showQueuelessTickets: boolean | null;
        allTicket: string | null;
        ownContactsOnly: boolean;
        queueIds: number[];
      }
    | undefined,
): Viewer {
  return {
    ownContactsOnly: u?.ownContactsOnly ?? false,
    userId: t.userId,
    companyId: t.companyId,
    profile: t.profile,
    super: t.super,
    queueIds: (u?.queueIds ?? []).map(Number),
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
  if (!row) return false;
  const viewer = await loadViewer(db, t);
  return canSeeTicket(viewer, await withContactOwner(db, viewer, row));
}

/**
 * A ticket as its own route shows it, for the services that act on one: another company's (or none) is not
 * found (404), one the rule hides from this user is refused (403).
 */
export async function visibleTicketRow(
  db: Db,
  t: { userId: number; companyId: number; profile: string; super: boolean },
  ticketId: number,
): Promise<typeof tickets.$inferSelect> {
  const [row] = await db
    .select()
    .from(tickets)
    .where(and(eq(tickets.id, ticketId), eq(tickets.companyId, t.companyId)));
  if (!row) throw new AppError('ERR_NO_TICKET_FOUND', 404);
  const viewer = await loadViewer(db, t);
  if (!canSeeTicket(viewer, await withContactOwner(db, viewer, row)))
    throw new AppError('ERR_NO_PERMISSION', 403);
  return row;
}

/**
 * A ticket row with its contact's owner, for the one rule's own-contacts part (#30.4): read only when the
 * viewer is restricted by it (a bare row reads as "owner unknown", which only its attendant may see then).
 */
export async function withContactOwner<T extends { contactId: number }>(
  db: Db,
  viewer: Pick<Viewer, 'ownContactsOnly'>,
  row: T,
): Promise<T & { contact?: { ownerId: number | null } }> {
  if (!viewer.ownContactsOnly) return row;
  const [c] = await db
    .select({ ownerId: contacts.ownerId })
    .from(contacts)
    .where(eq(contacts.id, row.contactId));
  return { ...row, contact: { ownerId: c?.ownerId ?? null } };
}

export const isManager = isTicketManager;
/** The one visibility rule (contracts/visibility.ts). */
export { canSeeTicket };

/** Each of the rule's keys as SQL over `tickets`: a key of the viewer, the tickets it covers. */
function keyWhere(restricted: string): SQL {
  const { key, owner } = splitOwnKey(restricted);
  if (owner !== undefined) {
    // #30.4 The own-contacts rule: the grant's tickets whose contact the viewer owns, or nobody owns.
    const ownerOf = sql`(select c.owner_id from contacts c where c.id = ${tickets.contactId})`;
    return and(keyWhere(key), owner === null ? sql`${ownerOf} is null` : sql`${ownerOf} = ${owner}`)!;
  }
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
  const plainQueue = (k: string) => /^queue-\d+$/.test(k);
  const queueIds = keys.filter(plainQueue).map((k) => Number(k.slice(6)));
  const rest = keys.filter((k) => !plainQueue(k)).map(keyWhere);
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

/**
 * #34.4 The lists' channel filter: the ticket's connection is of one of these channels. Read as the ids of
 * the company's connections of those channels (a handful of rows), so the list keeps its indexes and its
 * join-free hot path; no filter, no SQL.
 */
export function channelFilterWhere(
  companyId: number,
  channels: readonly string[] | undefined,
): SQL | undefined {
  if (!channels?.length) return undefined;
  return sql`${tickets.whatsappId} in (select w.id from whatsapps w where w.company_id = ${companyId}
    and w.channel in (${sql.join(
      channels.map((c) => sql`${c}`),
      sql`, `,
    )}))`;
}

/**
 * #30.5 The list's SLA filters (docs/metrics.md "SLA"): `breached`, a breach recorded or a running clock past
 * its due time; `at_risk`, amber (less than 25% of a target left) and not yet due.
 */
export function slaFilterWhere(filter: 'at_risk' | 'breached', now: Date): SQL {
  const at = sql`${now.toISOString()}::timestamptz`;
  const nearest = sql`least(${tickets.firstResponseDueAt}, ${tickets.nextResponseDueAt}, ${tickets.resolutionDueAt})`;
  if (filter === 'breached') return sql`(cardinality(${tickets.slaBreached}) > 0 or ${nearest} <= ${at})`;
  return sql`(${tickets.slaAtRiskAt} <= ${at} and ${nearest} > ${at} and cardinality(${tickets.slaBreached}) = 0)`;
}

/**
 * Up to this many matching messages, the search's message way is the tickets of those messages, read first
 * from the trigram index (messageSearchTickets); more, and it stays a query walking the list's order.
 */
const RARE_MESSAGE_MATCHES = 2000;

/**
 * The tickets whose messages contain `search` (the company's, accent and case blind: the stored normalised
 * text, docs/search.md), each with the ids of its matching messages, when at most RARE_MESSAGE_MATCHES
 * messages match; undefined when more do. One statement on `messages_body_search_idx`. Asked first because
 * the one query cannot be trusted to choose: for a rare text (~1,000 matches in 1,000,000 messages) the
 * planner often walked the list's order probing each ticket's messages (≈6,500 tickets, 77,000 message
 * reads, 150-300 ms) instead of reading the index (≈2 ms); the estimate that decides it comes from a sample
 * of the table and swings from one ANALYZE to the next.
 */
async function messageSearchTickets(
  db: Db,
  companyId: number,
  search: string,
): Promise<Map<number, number[]> | undefined> {
  // One row (the pairs as one text), not a row per match: a thousand rows cost the client ≈0.5 ms to parse.
  const [row] = await executeRows<{ n: number; hits: string | null }>(
    db,
    sql`select count(*)::int as n, string_agg(h.ticket_id || ':' || h.id, ',') as hits
      from (select m.ticket_id, m.id from messages m where m.company_id = ${companyId}
        and ${containsNormalised(sql`m.body_search`, search)} limit ${RARE_MESSAGE_MATCHES + 1}) h`,
  );
  if (Number(row?.n ?? 0) > RARE_MESSAGE_MATCHES) return undefined;
  const byTicket = new Map<number, number[]>();
  for (const pair of row?.hits ? row.hits.split(',') : []) {
    const at = pair.indexOf(':');
    const ticketId = Number(pair.slice(0, at));
    const id = Number(pair.slice(at + 1));
    const ids = byTicket.get(ticketId);
    if (ids) ids.push(id);
    else byTicket.set(ticketId, [id]);
  }
  return byTicket;
}

export const ticketQueries = {
  async byId(db: Db, companyId: number, id: number): Promise<TicketView | undefined> {
    const [r] = await viewByIdQuery(db).execute({ id, companyId });
    return r ? toTicketView(r as ViewRow) : undefined;
  },
  async byUuid(db: Db, companyId: number, uuid: string): Promise<TicketView | undefined> {
    const [r] = await selectViews(db).where(and(eq(tickets.uuid, uuid), eq(tickets.companyId, companyId)));
    return r ? toTicketView(r as ViewRow) : undefined;
  },

  async page(db: Db, v: Viewer & { pins?: number[] }, q: TicketListQuery, canShowAll: boolean, now?: Date) {
    const conds: (SQL | undefined)[] = [eq(tickets.companyId, v.companyId)];
    if (q.status) conds.push(eq(tickets.status, q.status));
    // Snoozed tickets (#30.7) leave the open list for the "Adiados" tab (status open, snoozed).
    if (q.snoozed) conds.push(isNotNull(tickets.snoozedAt));
    else if (q.status === 'open') conds.push(isNull(tickets.snoozedAt));
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
    if (q.sla) conds.push(slaFilterWhere(q.sla, now ?? new Date()));
    conds.push(channelFilterWhere(v.companyId, q.channels));
    // #32.7 Custom field filter: containment on the GIN-indexed column, values read by their field's type.
    conds.push(await customFieldFilterWhere(db, v.companyId, 'ticket', tickets.customFields, q.customFields));
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
    // A rare text's tickets and their matching messages (messageSearchTickets); undefined: a common text.
    let messageTickets: Map<number, number[]> | undefined;
    if (search) {
      // The contact's name or number, or any message's text, contains the search. Each way is its own
      // query reading a page's worth in list order, and their union is the candidates: per way, the
      // planner picks between a trigram index (rare text) and the list index (common text), which one OR
      // across tables never lets it do. The messages' way is decided here instead (messageSearchTickets).
      const digits = search.replace(/\D/g, '');
      messageTickets = await messageSearchTickets(db, v.companyId, search);
      const filter = and(...conds);
      const enough = q.pageNumber * TICKET_PAGE_SIZE + 1;
      const way = (join: SQL, match: SQL) =>
        sql`(select ${tickets.id}, ${tickets.updatedAt} from ${tickets} ${join} where ${filter} and ${match}
          order by ${tickets.priority} desc, ${tickets.updatedAt} desc, ${tickets.id} desc limit ${enough})`;
      const byContact = sql`join contacts c on c.id = ${tickets.contactId}`;
      const ways = [
        way(byContact, containsText(sql`c.name`, search)),
        digits.length >= 3 ? way(byContact, sql`c.number like ${`%${digits}%`}`) : undefined,
        // #32.4 The protocol number, exact or its beginning (docs/search.md), read on its unique index.
        search.length >= 3 && !/\s/.test(search)
          ? way(
              sql``,
              sql`${tickets.companyId} = ${v.companyId} and ${tickets.protocol} <> '' and (${sql.join(
                [...new Set([search, search.toUpperCase()])].map(
                  (p) => sql`${tickets.protocol} like ${`${p.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`}`,
                ),
                sql` or `,
              )})`,
            )
          : undefined,
        // Any message's text: the tickets read first when the text is rare (none: no way); a common text
        // keeps the walk in list order, which finds a page's worth among the first tickets.
        messageTickets === undefined
          ? way(
              sql``,
              sql`${tickets.id} in (select m.ticket_id from messages m where m.company_id = ${v.companyId}
                and ${containsNormalised(sql`m.body_search`, search)})`,
            )
          : messageTickets.size
            ? // One array parameter, not one parameter per id: binding and planning a list of a thousand
              // parameters cost the statement ≈5 ms.
              way(sql``, sql`${tickets.id} = any(${`{${[...messageTickets.keys()].join(',')}}`}::int[])`)
            : undefined,
      ].filter((w): w is SQL => Boolean(w));
      conds.push(sql`${tickets.id} in (select hits.id from (${sql.join(ways, sql` union `)}) hits)`);
    }
    // #32.9 The asking user's pinned tickets (a few) come first, on page 1; the rest keep the list indexes'
    // order and pages (the pins are left out of them by id, so a page still reads its rows in index order).
    const pins = v.pins ?? (await pinnedTicketIds(db, v.companyId, v.userId));
    const listOrder = [desc(tickets.priority), desc(tickets.updatedAt), desc(tickets.id)];
    const pinnedRows =
      pins.length && q.pageNumber === 1
        ? await selectViews(db)
            .where(and(...conds, inArray(tickets.id, pins)))
            .orderBy(...listOrder)
        : [];
    // The page in two statements: its ids (the filters, the search's ways, the order and the page: a
    // statement of `tickets` alone, planned in a fraction of the five-join one), then their views by a
    // prepared statement (built once per connection, its plan generic). As one statement the planner
    // weighed the joins and subplans with every filter: the text search's list spent 2.3 ms planning for
    // 1.2 ms of execution.
    const ids = (
      await db
        .select({ id: tickets.id })
        .from(tickets)
        .where(and(...conds, pins.length ? notInArray(tickets.id, pins) : undefined))
        // Priority first (#30.6: urgent on top), then the newest activity: the list indexes' order.
        .orderBy(...listOrder)
        .limit(TICKET_PAGE_SIZE + 1)
        .offset((q.pageNumber - 1) * TICKET_PAGE_SIZE)
    ).map((r) => r.id);
    const pageIds = ids.slice(0, TICKET_PAGE_SIZE);
    const views = pageIds.length
      ? await viewsByIdsQuery(db).execute({ ids: `{${pageIds.join(',')}}`, companyId: v.companyId })
      : [];
    // In the ids' order (a ticket updated between the two statements keeps the place it was paged at).
    const at = new Map(pageIds.map((id, i) => [id, i]));
    const rows = (views as ViewRow[]).sort((a, b) => at.get(a.ticket.id)! - at.get(b.ticket.id)!);
    const page = [
      ...pinnedRows.map((r) => ({ ...toTicketView(r as ViewRow), pinned: true })),
      ...rows.map((r) => ({ ...toTicketView(r), pinned: false })),
    ];
    if (search && page.length) {
      // Each result shows the message that matched (its newest one), not merely its last message: one
      // statement for the page. A rare text's matches are known by id already; a common one's are found for
      // the page's tickets on the (ticket, created_at) index.
      const known = messageTickets && page.flatMap((p) => messageTickets!.get(p.id) ?? []);
      type Match = { ticket_id: number; id: number | string; body: string };
      const newestFirst = sql`order by m.ticket_id, m.created_at desc, m.id desc`;
      const matches = !known
        ? await executeRows<Match>(
            db,
            sql`select distinct on (m.ticket_id) m.ticket_id, m.id, m.body from messages m
              where m.company_id = ${v.companyId} and m.ticket_id in (${sql.join(
                page.map((p) => sql`${p.id}`),
                sql`, `,
              )}) and ${containsNormalised(sql`m.body_search`, search)} ${newestFirst}`,
          )
        : known.length
          ? // A fixed text: prepared by name on PostgreSQL (not parsed nor planned again).
            await executeRows<Match>(
              db,
              sql`select distinct on (m.ticket_id) m.ticket_id, m.id, m.body from messages m
                where m.company_id = ${v.companyId} and m.id = any(${`{${known.join(',')}}`}::bigint[]) ${newestFirst}`,
              'ticket_search_matches_by_id',
            )
          : [];
      const byTicket = new Map(matches.map((m) => [Number(m.ticket_id), m]));
      for (const ticket of page) {
        const m = byTicket.get(ticket.id);
        if (m) ticket.searchMatch = { messageId: Number(m.id), body: m.body };
      }
    }
    return { tickets: page, hasMore: ids.length > TICKET_PAGE_SIZE };
  },
};
