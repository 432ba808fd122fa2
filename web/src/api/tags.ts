import { containsSearch } from '@recado/contracts';
import { useEffect, useRef } from 'react';
import { useMutation, useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
import {
  RESOURCES,
  type KanbanTickets,
  type Tag,
  type TagInput,
  type TagUpdate,
  type TicketView,
} from '@recado/contracts';
import { api, request } from './client.js';
import { defineResource } from './resource.js';
import type { ListData } from '../components/useInfiniteList.js';
import { useCompanyEvent } from '../realtime/useCompanyEvent.js';
import { getSocket, joinTickets } from '../realtime/socket.js';

import { mergeTicket, putTicket, ticketKeys, type Viewer } from './tickets.js';

export const tagKeys = {
  all: ['tags'] as const,
  pages: () => ['tags', 'page'] as const,
  page: (search: string) => ['tags', 'page', search] as const,
  /** GET /tags/list; the ticket manager's tag filter (useTagOptions) reads the same entry. */
  options: () => ['tags', 'list', 'options'] as const,
};
export const kanbanKeys = {
  lanes: () => ['kanban', 'lanes'] as const,
  tickets: (showAll: boolean, channels: readonly string[] = []) =>
    ['kanban', 'tickets', showAll, ...(channels.length ? [channels.join(',')] : [])] as const,
  allTickets: () => ['kanban', 'tickets'] as const,
};

/** Server order of GET /tags/ and /tags/list: name (any case), then id. */
export const byTagName = (a: Tag, b: Tag) =>
  a.name.toLowerCase().localeCompare(b.name.toLowerCase()) || a.id - b.id;
/** Lanes are in the order they were created. */
const byId = (a: Tag, b: Tag) => a.id - b.id;

type TagRef = TicketView['tags'][number];

/** Applies `fix` to the tags of every cached ticket: lists, open tickets and kanban boards. */
function patchTicketTags(client: QueryClient, fix: (tags: TagRef[]) => TagRef[]) {
  const patch = (t: TicketView): TicketView => {
    const next = fix(t.tags ?? []);
    return next === t.tags ? t : { ...t, tags: next };
  };
  client.setQueriesData<ListData<TicketView>>({ queryKey: ticketKeys.lists() }, (data) =>
    data?.pages ? { ...data, pages: data.pages.map((p) => ({ ...p, items: p.items.map(patch) })) } : data,
  );
  client.setQueriesData<TicketView>({ queryKey: ticketKeys.details() }, (t) => (t?.id ? patch(t) : t));
  client.setQueriesData<KanbanTickets>({ queryKey: kanbanKeys.allTickets() }, (b) =>
    b ? { ...b, tickets: b.tickets.map(patch) } : b,
  );
}

/**
 * Tags: GET /tags/?searchParam&pageNumber, `company-{id}-tag`. A created or changed tag also goes into
 * the picker's list, the lanes and the tickets that carry it; a deleted one leaves them.
 */
export const tagResource = defineResource<Tag, TagInput | TagUpdate>({
  spec: RESOURCES.tag,
  listsKey: tagKeys.pages(),
  paged: true,
  compare: byTagName,
  matches: (search, tag) => !search || containsSearch(tag.name, search),
  onPut: (client, tag) => {
    client.setQueryData<Tag[]>(tagKeys.options(), (list) =>
      list ? [...list.filter((x) => x.id !== tag.id), tag].sort(byTagName) : list,
    );
    client.setQueryData<Tag[]>(kanbanKeys.lanes(), (lanes) => {
      if (!lanes) return lanes;
      const rest = lanes.filter((l) => l.id !== tag.id);
      return tag.kanban ? [...rest, tag].sort(byId) : rest;
    });
    patchTicketTags(client, (tags) =>
      tags.some((x) => x.id === tag.id && (x.name !== tag.name || x.color !== tag.color))
        ? tags.map((x) => (x.id === tag.id ? { id: tag.id, name: tag.name, color: tag.color } : x))
        : tags,
    );
  },
  onDrop: (client, tagId) => {
    client.setQueryData<Tag[]>(tagKeys.options(), (list) => list?.filter((x) => x.id !== tagId));
    client.setQueryData<Tag[]>(kanbanKeys.lanes(), (lanes) => lanes?.filter((l) => l.id !== tagId));
    patchTicketTags(client, (tags) =>
      tags.some((x) => x.id === tagId) ? tags.filter((x) => x.id !== tagId) : tags,
    );
  },
});
export const putTag = tagResource.put;
export const dropTag = tagResource.drop;
export const useTagsRealtime = tagResource.useRealtime;
export const useSaveTag = tagResource.useSave;

/** GET /tags/list: every tag of the company (the tag picker). */
export function useAllTags(enabled = true) {
  return useQuery({
    queryKey: tagKeys.options(),
    queryFn: () => api.get<Tag[]>('/tags/list'),
    staleTime: 5 * 60_000,
    enabled,
  });
}

/** Puts a ticket whose tags changed into the ticket lists, the open ticket and the boards. */
function putTaggedTicket(client: QueryClient, ticket: TicketView, viewer: Viewer) {
  putTicket(client, ticket, viewer);
  putBoardTicket(client, ticket);
}

/** POST /tags/sync: the ticket's whole tag set. */
export function useSyncTicketTags(viewer: Viewer) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (args: { ticketId: number; tagIds: number[] }) =>
      api.post<TicketView>('/tags/sync', { ticketId: args.ticketId, tags: args.tagIds }),
    onSuccess: (ticket) => putTaggedTicket(client, ticket, viewer),
  });
}

// ---------------------------------------------------------------------------------------------------
// Kanban

const ACTIVE = new Set(['open', 'pending']);
const byUpdated = (a: TicketView, b: TicketView) =>
  Date.parse(b.updatedAt) - Date.parse(a.updatedAt) || b.id - a.id;

/** GET /tags/kanban: the lanes. */
export function useKanbanLanes(enabled = true) {
  return useQuery({
    queryKey: kanbanKeys.lanes(),
    queryFn: async () => (await api.get<{ lista: Tag[] }>('/tags/kanban')).lista,
    enabled,
  });
}

/**
 * GET /ticket/kanban: admins ask for every ticket (showAll), others for their queues' tickets; #34.4 only
 * the tickets of `channels` when some are picked (the page also hides cards of other channels that arrive
 * live).
 */
export function useKanbanTickets(
  showAll: boolean,
  queueIds: number[],
  enabled = true,
  channels: readonly string[] = [],
) {
  return useQuery({
    queryKey: kanbanKeys.tickets(showAll, channels),
    queryFn: ({ signal }) =>
      request<KanbanTickets>('GET', '/ticket/kanban', {
        params: {
          showAll: showAll ? 'true' : undefined,
          queueIds: queueIds.length ? queueIds : undefined,
          channels: channels.length ? [...channels] : undefined,
        },
        signal,
      }),
    enabled,
  });
}

/** Replaces (or adds, or drops when it is no longer active) one ticket on every cached board. */
export function putBoardTicket(client: QueryClient, ticket: TicketView) {
  client.setQueriesData<KanbanTickets>({ queryKey: kanbanKeys.allTickets() }, (board) => {
    if (!board) return board;
    const current = board.tickets.find((x) => x.id === ticket.id);
    // An older snapshot never overwrites a newer one.
    if (current && Date.parse(ticket.updatedAt) < Date.parse(current.updatedAt)) return board;
    const rest = board.tickets.filter((x) => x.id !== ticket.id);
    return { ...board, tickets: ACTIVE.has(ticket.status) ? [...rest, ticket].sort(byUpdated) : rest };
  });
}

function dropBoardTicket(client: QueryClient, ticketId: number) {
  client.setQueriesData<KanbanTickets>({ queryKey: kanbanKeys.allTickets() }, (board) =>
    board ? { ...board, tickets: board.tickets.filter((x) => x.id !== ticketId) } : board,
  );
}

const boardTicket = (client: QueryClient, id: number) => {
  for (const [, board] of client.getQueriesData<KanbanTickets>({ queryKey: kanbanKeys.allTickets() })) {
    const hit = board?.tickets.find((x) => x.id === id);
    if (hit) return hit;
  }
  return undefined;
};

/**
 * Keeps an open board live: it listens to the open and pending ticket lists. A card whose full view
 * arrives is replaced (its lane follows its tags); a ticket the board does not know, or whose queue or
 * owner changed, makes the board ask the server again (at most once a second), since only the server
 * knows what this user may see.
 */
export function useKanbanRealtime(enabled = true) {
  const client = useQueryClient();
  const timer = useRef<number | undefined>(undefined);
  const refetchSoon = useRef(() => {
    if (timer.current !== undefined) return;
    timer.current = window.setTimeout(() => {
      timer.current = undefined;
      void client.invalidateQueries({ queryKey: kanbanKeys.allTickets() });
    }, 1000);
  });
  useEffect(() => {
    if (!enabled) return;
    const leaveOpen = joinTickets('open');
    const leavePending = joinTickets('pending');
    // Events missed while disconnected: read the board again after a reconnection.
    const socket = getSocket();
    const onConnect = () => refetchSoon.current();
    socket.on('connect', onConnect);
    return () => {
      socket.off('connect', onConnect);
      leaveOpen();
      leavePending();
      window.clearTimeout(timer.current);
      timer.current = undefined;
    };
  }, [enabled]);
  const apply = (raw: (Partial<TicketView> & { id: number }) | undefined) => {
    if (!raw?.id) return;
    const cached = boardTicket(client, raw.id);
    if (raw.status && !ACTIVE.has(raw.status)) return dropBoardTicket(client, raw.id);
    const merged = mergeTicket(raw, cached);
    if (merged && cached) putBoardTicket(client, merged);
    else refetchSoon.current();
  };
  useCompanyEvent(
    'ticket',
    (e) => {
      if (e.action === 'delete') dropBoardTicket(client, Number(e.ticketId));
      else apply(e.ticket);
    },
    enabled,
  );
  // A new message changes a card's last message.
  useCompanyEvent(
    'appMessage',
    (e) => {
      if (e.action === 'create' && e.ticket)
        apply({ ...e.ticket, contact: (e.ticket.contact ?? e.contact) as TicketView['contact'] | undefined });
    },
    enabled,
  );
}

/**
 * Moves a card: into a lane (PUT /ticket-tags/{ticket}/{lane}: the server swaps the kanban tag in one
 * transaction) or back to the open lane (DELETE /ticket-tags/{ticket}). The card moves at once and comes
 * back if the server refuses.
 */
export function useMoveCard(viewer: Viewer) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (args: { ticket: TicketView; lane: Tag | null; lanes: Tag[] }) =>
      args.lane
        ? api.put<TicketView>(`/ticket-tags/${args.ticket.id}/${args.lane.id}`)
        : api.delete<TicketView>(`/ticket-tags/${args.ticket.id}`),
    onMutate: ({ ticket, lane, lanes }) => {
      const laneIds = new Set(lanes.map((l) => l.id));
      const tags = ticket.tags.filter((x) => !laneIds.has(x.id));
      if (lane) tags.push({ id: lane.id, name: lane.name, color: lane.color });
      client.setQueriesData<KanbanTickets>({ queryKey: kanbanKeys.allTickets() }, (board) =>
        board
          ? { ...board, tickets: board.tickets.map((x) => (x.id === ticket.id ? { ...x, tags } : x)) }
          : board,
      );
    },
    onSuccess: (ticket) => putTaggedTicket(client, ticket, viewer),
    onError: () => void client.invalidateQueries({ queryKey: kanbanKeys.allTickets() }),
  });
}
