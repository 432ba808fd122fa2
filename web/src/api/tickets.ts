import { useEffect } from 'react';
import {
  useMutation,
  useQuery,
  useQueryClient,
  type QueryClient,
  type QueryKey,
} from '@tanstack/react-query';
import {
  canSeeTicket,
  isTicketManager,
  onlyDigits,
  type AuthUser,
  type TicketCreate,
  type TicketStatus,
  type TicketUpdate,
  type TicketView,
  type VisibilityViewer,
} from '@recado/contracts';
import { containsSearch, priorityRank, slaStatusOf } from '@recado/contracts';
import { ApiError, api, request } from './client.js';
import { useInfiniteList, type ListData, type ListPage } from '../components/useInfiniteList.js';
import { useCompanyEvent } from '../realtime/useCompanyEvent.js';
import { joinRoom, leaveRoom } from '../realtime/socket.js';
import { messageKeys, putMessage } from './messages.js';

export type { TicketView, TicketStatus };

/** What one ticket list asks GET /tickets for. Part of its query key. */
export interface TicketFilter {
  status?: TicketStatus;
  searchParam: string;
  showAll: boolean;
  queueIds: number[];
  users: number[];
  tags: number[];
  /** #30.5 Only tickets at risk or breached (GET /tickets?sla=). */
  sla?: 'at_risk' | 'breached';
  /** #30.7 The "Adiados" tab: only snoozed tickets (the open list leaves them out). */
  snoozed?: boolean;
  /** #32.7 Only tickets whose custom fields hold these values (GET /tickets?customFields=). */
  customFields?: Record<string, string | number | boolean>;
  /** #34.4 Only tickets of these channels (GET /tickets?channels=); absent or empty: every channel. */
  channels?: string[];
}

export interface TicketNote {
  id: number;
  note: string;
  ticketId: number;
  contactId: number;
  user: { id: number; name: string } | null;
  createdAt: string;
}

export interface TicketHistory {
  id: number;
  action: string;
  status: string;
  createdAt: string;
  user: { id: number; name: string } | null;
  queue: { id: number; name: string; color: string } | null;
  whatsapp: { id: number; name: string } | null;
}

export interface QueueOption {
  id: number;
  name: string;
  color: string;
}

/** The 409 ERR_OTHER_OPEN_TICKET body: who holds the contact's other ticket. */
export interface OtherOpenTicket {
  id: number;
  uuid: string;
  status?: string;
  user: { id: number; name: string } | null;
  queue: { id: number; name: string } | null;
}

/** `company-{id}-ticket`: one definition in contracts (ServerEvents). */
export type { TicketEvent } from '@recado/contracts';

export const ticketKeys = {
  all: ['tickets'] as const,
  lists: () => ['tickets', 'list'] as const,
  list: (filter: TicketFilter) => ['tickets', 'list', filter] as const,
  details: () => ['tickets', 'detail'] as const,
  detail: (ref: string) => ['tickets', 'detail', ref] as const,
  notes: (ticketId: number) => ['tickets', 'notes', ticketId] as const,
  histories: (ticketId: number) => ['tickets', 'histories', ticketId] as const,
};

/** Who is looking: decides which live tickets belong in which list (the server's visibility rules). */
export interface Viewer {
  id: number;
  profile: string;
  super?: boolean;
  queueIds: number[];
  showQueuelessTickets: boolean;
  /** 'enabled': every waiting ticket that has a queue (docs/visibility.md). */
  allTicket?: string;
}
export const viewerOf = (u: AuthUser): Viewer => ({
  id: u.id,
  profile: u.profile,
  super: u.super,
  queueIds: u.queues.map((q) => q.id),
  showQueuelessTickets: u.showQueuelessTickets,
  allTicket: u.allTicket,
});
const isManager = (v: Viewer) => isTicketManager(v);
const visibilityOf = (v: Viewer): VisibilityViewer => ({
  userId: v.id,
  profile: v.profile,
  super: v.super,
  queueIds: v.queueIds,
  showQueuelessTickets: v.showQueuelessTickets,
  allTicket: v.allTicket,
});

/** Server order of GET /tickets: one's pinned first (#32.9), priority desc (#30.6), updatedAt desc, id desc. */
export const ticketOrder = (a: TicketView, b: TicketView) =>
  Number(Boolean(b.pinned)) - Number(Boolean(a.pinned)) ||
  priorityRank(b.priority ?? 'normal') - priorityRank(a.priority ?? 'normal') ||
  Date.parse(b.updatedAt) - Date.parse(a.updatedAt) ||
  b.id - a.id;

/**
 * Whether a ticket belongs in a list, as ticket-queries.ts decides it. `null` when it cannot be known
 * here (a search that may match message text): such a list only refreshes rows it already shows.
 */
export function ticketFits(filter: TicketFilter, t: TicketView, v: Viewer): boolean | null {
  if (filter.status && t.status !== filter.status) return false;
  // #30.7 Snoozed tickets live in the "Adiados" tab only.
  if (filter.snoozed ? !t.snoozedAt : filter.status === 'open' && t.snoozedAt) return false;
  // The one visibility rule (contracts/visibility.ts), as the server applies it to every list.
  if (!canSeeTicket(visibilityOf(v), t)) return false;
  const queueOk = (ids: number[]) => t.queueId === null || ids.includes(t.queueId);
  if (filter.showAll) {
    if (filter.queueIds.length && !queueOk(filter.queueIds)) return false;
  } else if (filter.status === 'open') {
    if (t.userId !== v.id) return false;
    if (filter.queueIds.length && !queueOk(filter.queueIds)) return false;
  } else if (filter.queueIds.length && t.userId !== v.id && !queueOk(filter.queueIds)) {
    // The queue selection: the picked queues, plus own and queueless tickets.
    return false;
  }
  if (filter.users.length && isManager(v) && (t.userId === null || !filter.users.includes(t.userId)))
    return false;
  if (filter.tags.length && !t.tags.some((tag) => filter.tags.includes(tag.id))) return false;
  // #34.4 The channel filter: the ticket's connection's channel.
  if (filter.channels?.length && !filter.channels.includes(t.whatsapp?.channel ?? '')) return false;
  // The SLA filter, as the server's (contracts' slaStatusOf), at this moment.
  if (filter.sla && slaStatusOf(t.sla, Date.now()) !== filter.sla) return false;
  if (
    filter.customFields &&
    Object.entries(filter.customFields).some(([k, v]) => String(t.customFields?.[k] ?? '') !== String(v))
  )
    return false;
  const search = filter.searchParam.trim();
  if (search) {
    const digits = onlyDigits(search);
    if (containsSearch(t.contact.name, search)) return true;
    if (digits.length >= 3 && t.contact.number.includes(digits)) return true;
    return null;
  }
  return true;
}

/** Insert at the sorted place among the loaded rows; past them, a later page will bring it. */
function insertSorted(pages: ListPage<TicketView>[], t: TicketView): ListPage<TicketView>[] {
  if (!pages.length) return [{ items: [t], hasMore: false }];
  for (let pi = 0; pi < pages.length; pi++) {
    const at = pages[pi]!.items.findIndex((other) => ticketOrder(t, other) < 0);
    if (at >= 0)
      return pages.map((p, i) =>
        i === pi ? { ...p, items: [...p.items.slice(0, at), t, ...p.items.slice(at)] } : p,
      );
  }
  const last = pages[pages.length - 1]!;
  if (last.hasMore) return pages;
  return pages.map((p, i) => (i === pages.length - 1 ? { ...p, items: [...p.items, t] } : p));
}

/**
 * Puts a ticket into every cached list: out of lists it no longer fits (a status change leaves one
 * list and enters the other), moved to its place by updatedAt where it does. Also patches the open
 * ticket's detail. No refetch.
 */
export function putTicket(client: QueryClient, ticket: TicketView, viewer: Viewer) {
  // #32.9 Events carry no `pinned` (a pin is each user's own): the cached copy's stays.
  if (ticket.pinned === undefined) {
    const known = cachedTicket(client, ticket.id)?.pinned;
    if (known !== undefined) ticket = { ...ticket, pinned: known };
  }
  for (const [key, data] of client.getQueriesData<ListData<TicketView>>({ queryKey: ticketKeys.lists() })) {
    if (!data?.pages) continue;
    const filter = key[2] as TicketFilter | undefined;
    if (!filter) continue;
    const present = data.pages.some((p) => p.items.some((i) => i.id === ticket.id));
    const fits = ticketFits(filter, ticket, viewer);
    if (!present && !fits) continue;
    const without = data.pages.map((p) => ({ ...p, items: p.items.filter((i) => i.id !== ticket.id) }));
    const pages = fits === false ? without : insertSorted(without, ticket);
    client.setQueryData<ListData<TicketView>>(key, { ...data, pages });
  }
  client.setQueriesData<TicketView>({ queryKey: ticketKeys.details() }, (current) =>
    current && current.id === ticket.id ? ticket : current,
  );
}

export function dropTicket(client: QueryClient, ticketId: number) {
  client.setQueriesData<ListData<TicketView>>({ queryKey: ticketKeys.lists() }, (data) =>
    data?.pages
      ? { ...data, pages: data.pages.map((p) => ({ ...p, items: p.items.filter((i) => i.id !== ticketId) })) }
      : data,
  );
}

/** The cached copy of a ticket, from any list or detail. */
export function cachedTicket(client: QueryClient, id: number): TicketView | undefined {
  for (const [, data] of client.getQueriesData<TicketView>({ queryKey: ticketKeys.details() }))
    if (data?.id === id) return data;
  for (const [, data] of client.getQueriesData<ListData<TicketView>>({ queryKey: ticketKeys.lists() }))
    for (const p of data?.pages ?? []) {
      const hit = p.items.find((i) => i.id === id);
      if (hit) return hit;
    }
  return undefined;
}

const SCALARS = [
  'uuid',
  'status',
  'contactId',
  'queueId',
  'userId',
  'whatsappId',
  'lastMessage',
  'unreadMessages',
  'isGroup',
  'chatbot',
  'useIntegration',
  'integrationId',
  'promptId',
  'createdAt',
  'updatedAt',
] as const;

/**
 * Events from the inbound pipeline carry the ticket row and its contact, not the full view (no queue,
 * user or connection names). Merged with the cached copy when its relations did not change; else null:
 * the full view must be read.
 */
export function mergeTicket(
  raw: Partial<TicketView> & { id: number },
  cached: TicketView | undefined,
): TicketView | null {
  const complete = 'whatsapp' in raw && 'queue' in raw && 'user' in raw && 'tags' in raw && raw.contact;
  if (complete) return { ...(cached ?? {}), ...raw } as TicketView;
  if (!cached) return null;
  const next = { ...cached } as TicketView;
  for (const k of SCALARS) if (raw[k] !== undefined) (next as unknown as Record<string, unknown>)[k] = raw[k];
  if (raw.contact) next.contact = { ...cached.contact, ...raw.contact };
  if (
    next.queueId !== cached.queueId ||
    next.userId !== cached.userId ||
    next.whatsappId !== cached.whatsappId
  )
    return null;
  return next;
}

const isStale = (cached: TicketView | undefined, next: { updatedAt?: string }) =>
  Boolean(cached && next.updatedAt && Date.parse(next.updatedAt) < Date.parse(cached.updatedAt));

/**
 * What a read of one ticket leaves in the cache: the read, unless a change announced while it was on its way
 * is newer (the read saw the ticket before that change committed): then the newer copy stays, as for events.
 */
export function newerOf(client: QueryClient, read: TicketView): TicketView {
  const known = cachedTicket(client, read.id);
  return known && isStale(known, read) ? known : read;
}

/** Reads in flight, per ticket; `again` when another event came meanwhile (its answer may predate it). */
const inflight = new Map<number, { again: boolean }>();
/** Reads one ticket's full view (one read at a time per ticket) and puts it in the lists. */
function loadTicket(client: QueryClient, id: number, viewer: Viewer) {
  const running = inflight.get(id);
  if (running) {
    running.again = true;
    return;
  }
  const state = { again: false };
  inflight.set(id, state);
  api
    .get<TicketView>(`/tickets/${id}`)
    .then((t) => putTicket(client, newerOf(client, t), viewer))
    .catch(() => dropTicket(client, id))
    .finally(() => {
      inflight.delete(id);
      if (state.again) loadTicket(client, id, viewer);
    });
}

/** Applies a (possibly partial) ticket from an event. */
export function applyTicketEvent(
  client: QueryClient,
  raw: Partial<TicketView> & { id: number },
  viewer: Viewer,
) {
  const cached = cachedTicket(client, raw.id);
  if (isStale(cached, raw)) return;
  const merged = mergeTicket(raw, cached);
  if (merged) putTicket(client, merged, viewer);
  else if (cached || wantedByAList(client, raw, viewer)) loadTicket(client, raw.id, viewer);
}

/** Whether any cached list may show this ticket (judged from its row): else there is nothing to read. */
function wantedByAList(client: QueryClient, raw: Partial<TicketView> & { id: number }, viewer: Viewer) {
  const probe = {
    queueId: null,
    userId: null,
    tags: [],
    ...raw,
    contact: { name: '', number: '', ...(raw.contact ?? {}) },
  } as TicketView;
  return client
    .getQueriesData<ListData<TicketView>>({ queryKey: ticketKeys.lists() })
    .some(
      ([key, data]) => data?.pages && key[2] && ticketFits(key[2] as TicketFilter, probe, viewer) === true,
    );
}

/** GET /tickets for one list, paged while hasMore. */
export function useTicketList(filter: TicketFilter, enabled = true) {
  return useInfiniteList<TicketView>({
    queryKey: ticketKeys.list(filter),
    enabled,
    fetchPage: async (pageNumber, signal) => {
      const r = await request<{ tickets: TicketView[]; hasMore: boolean }>('GET', '/tickets', {
        signal,
        params: {
          pageNumber,
          status: filter.status,
          searchParam: filter.searchParam.trim(),
          showAll: filter.showAll ? 'true' : undefined,
          queueIds: filter.queueIds.length ? filter.queueIds : undefined,
          users: filter.users.length ? filter.users : undefined,
          tags: filter.tags.length ? filter.tags : undefined,
          sla: filter.sla,
          snoozed: filter.snoozed ? 'true' : undefined,
          customFields: filter.customFields ? JSON.stringify(filter.customFields) : undefined,
          channels: filter.channels?.length ? filter.channels : undefined,
        },
      });
      return { items: r.tickets, hasMore: r.hasMore };
    },
  });
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** GET /tickets/u/:uuid (or /tickets/:id for a number); seeded from a list row when one is cached. */
export function useTicket(ref: string | undefined) {
  const client = useQueryClient();
  return useQuery({
    queryKey: ticketKeys.detail(ref ?? ''),
    queryFn: async () => {
      const read = await (UUID.test(ref!)
        ? api.get<TicketView>(`/tickets/u/${ref}`)
        : api.get<TicketView>(`/tickets/${ref}`));
      return newerOf(client, read);
    },
    enabled: Boolean(ref) && (UUID.test(ref!) || /^\d{1,10}$/.test(ref!)),
    retry: false,
    staleTime: 60_000,
    placeholderData: () => {
      for (const [, data] of client.getQueriesData<ListData<TicketView>>({ queryKey: ticketKeys.lists() }))
        for (const p of data?.pages ?? []) {
          const hit = p.items.find((t) => t.uuid === ref || String(t.id) === ref);
          if (hit) return hit;
        }
      return undefined;
    },
  });
}

export function useUpdateTicket(viewer: Viewer) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ id, input }: { id: number; input: TicketUpdate }) =>
      api.put<TicketView>(`/tickets/${id}`, input),
    onSuccess: (ticket) => putTicket(client, ticket, viewer),
  });
}

export function useCreateTicket(viewer: Viewer) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: Partial<TicketCreate> & { contactId: number }) =>
      api.post<TicketView>('/tickets', input),
    onSuccess: (ticket) => putTicket(client, ticket, viewer),
  });
}

export function useDeleteTicket() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => api.delete<{ message: string }>(`/tickets/${id}`),
    onSuccess: (_a, id) => dropTicket(client, id),
  });
}

export function useTicketNotes(ticketId: number | undefined) {
  return useQuery({
    queryKey: ticketKeys.notes(ticketId ?? 0),
    queryFn: () => api.get<TicketNote[]>('/ticket-notes/list', { ticketId }),
    enabled: Boolean(ticketId),
  });
}

export function useAddNote(ticketId: number) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (note: string) => api.post<TicketNote>('/ticket-notes', { note, ticketId }),
    onSuccess: (note) =>
      client.setQueryData<TicketNote[]>(ticketKeys.notes(ticketId), (list) => [...(list ?? []), note]),
  });
}

export function useDeleteNote(ticketId: number) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => api.delete(`/ticket-notes/${id}`),
    onSuccess: (_a, id) =>
      client.setQueryData<TicketNote[]>(ticketKeys.notes(ticketId), (list) =>
        list?.filter((n) => n.id !== id),
      ),
  });
}

export function useTicketHistories(ticketId: number | undefined) {
  return useQuery({
    queryKey: ticketKeys.histories(ticketId ?? 0),
    queryFn: () => api.get<TicketHistory[]>(`/ticket/${ticketId}/histories`),
    enabled: Boolean(ticketId),
  });
}

/** A list the server may not have yet (its module arrives later): a 404 means "none". */
async function optionalList<T>(path: string): Promise<T[] | null> {
  try {
    const r = await api.get<T[] | { records?: T[] } | { queues?: T[] }>(path);
    if (Array.isArray(r)) return r;
    return (r as { records?: T[] }).records ?? (r as { queues?: T[] }).queues ?? [];
  } catch (err) {
    if (err instanceof ApiError && (err.status === 404 || err.status === 403)) return null;
    throw err;
  }
}

/** The queues to choose from: admins see all of the company's (GET /queue), others their own. */
export function useQueueOptions(user: AuthUser | null) {
  // Those who see every ticket (admins, supervisors, super users) choose among every queue.
  const manager = Boolean(user) && isTicketManager(user!);
  const all = useQuery({
    queryKey: ['queues', 'all'],
    queryFn: () => optionalList<QueueOption>('/queue'),
    enabled: manager,
    staleTime: 5 * 60_000,
    retry: false,
  });
  const own = user?.queues ?? [];
  return manager && all.data ? all.data : own;
}

/** GET /tags/list, for the search filter; nothing until the tags module exists. */
export function useTagOptions() {
  return useQuery({
    queryKey: ['tags', 'list', 'options'],
    queryFn: async () => (await optionalList<QueueOption>('/tags/list')) ?? [],
    staleTime: 5 * 60_000,
    retry: false,
  });
}

export interface UserOption {
  id: number;
  name: string;
  queues?: QueueOption[];
}
export function useUserOptions(enabled = true) {
  return useQuery({
    queryKey: ['users', 'options'],
    queryFn: () => api.get<UserOption[]>('/users/list'),
    enabled,
    staleTime: 5 * 60_000,
  });
}

export interface WhatsappOption {
  id: number;
  name: string;
  isDefault?: boolean;
  status?: string;
}
export function useConnectionOptions(enabled = true) {
  return useQuery({
    queryKey: ['whatsapps', 'list'],
    queryFn: () => api.get<WhatsappOption[]>('/whatsapp'),
    enabled,
    staleTime: 60_000,
  });
}

/**
 * The live ticket lists: joins the status rooms and patches the cache from `ticket`, `appMessage` and
 * `contact` events (the server sends one event to each room a socket is in, so every patch is idempotent).
 * After a reconnection the lists are read once, for what was missed.
 */
export function useTicketsRealtime(viewer: Viewer | null) {
  const client = useQueryClient();
  useEffect(() => {
    if (!viewer) return;
    const statuses = ['open', 'pending', 'closed'];
    // Each time the server confirms a room (the first join too, which may come after the lists' first read,
    // and again after a reconnection), what was read before it is read again: events sent before the join
    // never reached this tab. The three rooms' confirmations make one read.
    let timer: number | undefined;
    const onJoined = () => {
      const at = Date.now();
      window.clearTimeout(timer);
      timer = window.setTimeout(() => {
        // Read before the join, or being read now (perhaps from before it: read again).
        const before = (q: { state: { dataUpdatedAt: number; fetchStatus: string } }) =>
          q.state.fetchStatus === 'fetching' || (q.state.dataUpdatedAt > 0 && q.state.dataUpdatedAt < at);
        void client.invalidateQueries({ queryKey: ticketKeys.lists(), predicate: before });
        void client.invalidateQueries({ queryKey: messageKeys.all, predicate: before });
      }, 50);
    };
    statuses.forEach((room) => joinRoom(room, onJoined));
    return () => {
      window.clearTimeout(timer);
      statuses.forEach((room) => leaveRoom(room, onJoined));
    };
  }, [viewer, client]);

  useCompanyEvent(
    'ticket',
    (e) => {
      if (!viewer) return;
      if (e.action === 'delete') dropTicket(client, Number(e.ticketId));
      else if (e.action === 'updateUnread') {
        // Read marks leave updatedAt as it was: a copy read before a newer change keeps that change.
        const cached = cachedTicket(client, Number(e.ticketId));
        if (e.ticket && !isStale(cached, e.ticket)) applyTicketEvent(client, e.ticket, viewer);
        else if (cached) putTicket(client, { ...cached, unreadMessages: 0 }, viewer);
      } else if (e.ticket) applyTicketEvent(client, e.ticket, viewer);
    },
    Boolean(viewer),
  );

  useCompanyEvent(
    'appMessage',
    (e) => {
      if (!viewer || !e.message) return;
      putMessage(client, e.message);
      if (e.action === 'create' && e.ticket)
        applyTicketEvent(
          client,
          { ...e.ticket, contact: (e.ticket.contact ?? e.contact) as TicketView['contact'] | undefined },
          viewer,
        );
    },
    Boolean(viewer),
  );

  // #32.9 This user pinned or unpinned a ticket (here or in another tab): it moves to its place.
  useCompanyEvent(
    'ticketPin',
    (e) => {
      const known = cachedTicket(client, e.ticketId);
      if (viewer && known) putTicket(client, { ...known, pinned: e.pinned }, viewer);
    },
    Boolean(viewer),
  );
  useCompanyEvent(
    'contact',
    (e) => {
      if (!viewer || e.action === 'delete' || !e.contact) return;
      const c = e.contact;
      const patch = (t: TicketView): TicketView =>
        t.contactId === c.id
          ? {
              ...t,
              contact: {
                ...t.contact,
                ...(c.name !== undefined ? { name: c.name } : {}),
                ...(c.number !== undefined ? { number: c.number } : {}),
                ...(c.email !== undefined ? { email: c.email } : {}),
                ...(c.profilePicUrl !== undefined ? { profilePicUrl: c.profilePicUrl } : {}),
              },
            }
          : t;
      client.setQueriesData<ListData<TicketView>>({ queryKey: ticketKeys.lists() }, (data) =>
        data?.pages ? { ...data, pages: data.pages.map((p) => ({ ...p, items: p.items.map(patch) })) } : data,
      );
      client.setQueriesData<TicketView>({ queryKey: ticketKeys.details() }, (t) => (t ? patch(t) : t));
    },
    Boolean(viewer),
  );
}

/** Keys a list by what it shows; exported for tests. */
export const listKeyOf = (key: QueryKey) => key[2] as TicketFilter;

/** #30.7 POST /tickets/{id}/snooze (until a time and/or a reply) and DELETE (back now). */
export function useSnoozeTicket(viewer: Viewer) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (v: { id: number; until?: string; untilReply?: boolean; wake?: boolean }) =>
      v.wake
        ? api.delete<TicketView>(`/tickets/${v.id}/snooze`)
        : api.post<TicketView>(`/tickets/${v.id}/snooze`, { until: v.until, untilReply: v.untilReply }),
    onSuccess: (t) => putTicket(client, t, viewer),
  });
}
