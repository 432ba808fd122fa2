import { useEffect, useMemo, useState } from 'react';
import {
  useInfiniteQuery,
  useMutation,
  useQueryClient,
  type InfiniteData,
  type QueryClient,
} from '@tanstack/react-query';
import type { ConversationWindow, MessageView, TicketView } from '@recado/contracts';

export type { MessageView };
import { api, currentToken, refreshToken, request } from './client.js';
import { joinChatBox, leaveChatBox } from '../realtime/socket.js';

export interface MessagePage {
  messages: MessageView[];
  hasMore: boolean;
  ticket?: TicketView;
  /** Cloud API's 24-hour window as the server saw it (docs/cloud-api.md). */
  window?: ConversationWindow;
}
export type MessageData = InfiniteData<MessagePage, number>;

/** `company-{id}-appMessage`: a MessageView, or (inbound pipeline) the stored row. */
export interface AppMessageEvent {
  action: 'create' | 'update';
  message: Partial<MessageView> & { id: number; ticketId: number; quotedMsgId?: number | null };
  ticket?: Partial<TicketView> & { id: number };
  contact?: Partial<TicketView['contact']>;
}

export const messageKeys = {
  all: ['messages'] as const,
  list: (ticketId: number) => ['messages', ticketId] as const,
};

export const mediaPath = (id: number) => `/api/messages/${id}/media`;

/** Oldest first across the loaded pages (page 1 holds the newest); a row paged twice comes once. */
export function flattenMessages(data: MessageData | undefined): MessageView[] {
  const seen = new Set<number>();
  const out: MessageView[] = [];
  for (const page of [...(data?.pages ?? [])].reverse())
    for (const m of page.messages)
      if (!seen.has(m.id)) {
        seen.add(m.id);
        out.push(m);
      }
  return out;
}

const byTime = (a: MessageView, b: MessageView) =>
  Date.parse(a.createdAt) - Date.parse(b.createdAt) || a.id - b.id;

function findMessage(data: MessageData | undefined, id: number | null | undefined) {
  if (!data || !id) return undefined;
  for (const p of data.pages) {
    const hit = p.messages.find((m) => m.id === id);
    if (hit) return hit;
  }
  return undefined;
}

/**
 * Events carry a MessageView or, from the inbound pipeline, the stored row (storage path in mediaUrl,
 * quotedMsgId instead of quotedMsg): both become a MessageView, keeping what the cached copy knows.
 */
export function normalizeMessage(
  raw: AppMessageEvent['message'],
  existing?: MessageView,
  quotedLookup?: (id: number) => MessageView | undefined,
): MessageView {
  const isDeleted = raw.isDeleted ?? existing?.isDeleted ?? false;
  const rawUrl = raw.mediaUrl === undefined ? existing?.mediaUrl : raw.mediaUrl;
  const mediaUrl = isDeleted || !rawUrl ? null : rawUrl.startsWith('/api/') ? rawUrl : mediaPath(raw.id);
  const quoted = raw.quotedMsg ?? existing?.quotedMsg ?? null;
  const looked = !quoted && raw.quotedMsgId ? quotedLookup?.(raw.quotedMsgId) : undefined;
  return {
    id: raw.id,
    ticketId: raw.ticketId ?? existing?.ticketId,
    body: isDeleted ? '' : (raw.body ?? existing?.body ?? ''),
    mediaType: raw.mediaType === undefined ? (existing?.mediaType ?? null) : raw.mediaType,
    mediaUrl,
    mediaName: raw.mediaName ?? existing?.mediaName ?? null,
    fromMe: raw.fromMe ?? existing?.fromMe ?? false,
    // Acks only move forward: an older update that arrives late never lowers them.
    ack: Math.max(existing?.ack ?? 0, raw.ack ?? 0),
    read: raw.read ?? existing?.read ?? false,
    isDeleted,
    isEdited: raw.isEdited ?? existing?.isEdited ?? false,
    userId: raw.userId === undefined ? (existing?.userId ?? null) : raw.userId,
    createdAt: String(raw.createdAt ?? existing?.createdAt ?? new Date().toISOString()),
    updatedAt: String(raw.updatedAt ?? existing?.updatedAt ?? new Date().toISOString()),
    quotedMsg:
      quoted ??
      (looked
        ? { id: looked.id, body: looked.body, fromMe: looked.fromMe, mediaType: looked.mediaType }
        : null),
    contact: raw.contact ?? existing?.contact ?? null,
    data: raw.data === undefined ? (existing?.data ?? null) : raw.data,
  };
}

/** Puts a created or changed message into the cached pages of its ticket (no refetch). */
export function putMessage(client: QueryClient, raw: AppMessageEvent['message']) {
  const key = messageKeys.list(Number(raw.ticketId));
  const state = client.getQueryState<MessageData>(key);
  if (!state) return; // nobody shows this ticket
  // A read of the pages is on its way (first load or a refetch, not an older page): it may have been
  // taken before this message was stored and would overwrite it, so read again once it is done.
  const loadingOlder = Boolean((state.fetchMeta as { fetchMore?: unknown } | null | undefined)?.fetchMore);
  if (!state.data?.pages.length || (state.fetchStatus === 'fetching' && !loadingOlder)) {
    void client.invalidateQueries({ queryKey: key, exact: true });
    if (!state.data?.pages.length) return;
  }
  client.setQueryData<MessageData>(key, (data) => {
    if (!data?.pages.length) return data;
    const existing = findMessage(data, raw.id);
    const message = normalizeMessage(raw, existing, (id) => findMessage(data, id));
    if (existing)
      return {
        ...data,
        pages: data.pages.map((p) =>
          p.messages.some((m) => m.id === message.id)
            ? { ...p, messages: p.messages.map((m) => (m.id === message.id ? message : m)) }
            : p,
        ),
      };
    // New: into the newest page, at its place in time.
    const [first, ...rest] = data.pages;
    const messages = [...first!.messages, message].sort(byTime);
    return { ...data, pages: [{ ...first!, messages }, ...rest] };
  });
}

/**
 * A re-read of the newest page keeps the rows the cached newest page already holds (messages added live
 * beyond the page size): the server's fresh copies win, nothing is dropped. Without this, a re-read would
 * cut the rows at the top of what the attendant is looking at, and the list would jump away from the
 * newest message instead of following it.
 */
export function mergeNewestPage(cached: MessageData | undefined, page: MessagePage): MessagePage {
  const kept = cached?.pages[0]?.messages;
  if (!kept?.length) return page;
  const fresh = new Set(page.messages.map((m) => m.id));
  const extra = kept.filter((m) => !fresh.has(m.id));
  if (!extra.length) return page;
  return { ...page, messages: [...extra, ...page.messages].sort(byTime) };
}

/** GET /messages/:ticketId, page 1 = newest; older pages are asked for when scrolling up. */
export function useMessages(ticketId: number | null | undefined) {
  const client = useQueryClient();
  const query = useInfiniteQuery({
    queryKey: messageKeys.list(Number(ticketId)),
    queryFn: async ({ pageParam, signal }) => {
      const page = await request<MessagePage>('GET', `/messages/${ticketId}`, {
        params: { pageNumber: pageParam },
        signal,
      });
      return pageParam === 1
        ? mergeNewestPage(client.getQueryData<MessageData>(messageKeys.list(Number(ticketId))), page)
        : page;
    },
    initialPageParam: 1,
    getNextPageParam: (last: MessagePage, pages) => (last.hasMore ? pages.length + 1 : undefined),
    enabled: Boolean(ticketId),
    // The socket keeps the pages current while the ticket is open; opened again, they are read anew
    // (its room was left, so acks may have been missed).
    staleTime: 0,
    retry: false,
  });
  const messages = useMemo(() => flattenMessages(query.data as MessageData | undefined), [query.data]);
  // The first message of the newest page: rows before it came from older pages.
  const anchorId = query.data?.pages[0]?.messages[0]?.id ?? null;
  return { ...query, messages, anchorId };
}

export interface SendInput {
  body: string;
  quotedMsgId?: number | null;
  files?: File[];
}

/** POST /messages/:ticketId: JSON {body, quotedMsg}, or multipart (medias, body) with files. */
export function useSendMessage(ticketId: number) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ body, quotedMsgId, files }: SendInput) => {
      if (files?.length) {
        const form = new FormData();
        form.append('body', body);
        for (const f of files) form.append('medias', f, f.name);
        return api.post<MessageView>(`/messages/${ticketId}`, form);
      }
      return api.post<MessageView>(`/messages/${ticketId}`, {
        body,
        ...(quotedMsgId ? { quotedMsg: { id: quotedMsgId } } : {}),
      });
    },
    onSuccess: (message) => {
      if (message && typeof message === 'object' && 'id' in message) putMessage(client, message);
    },
  });
}

export function useDeleteMessage() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => api.delete<MessageView>(`/messages/${id}`),
    onSuccess: (message) => {
      if (message && typeof message === 'object' && 'id' in message) putMessage(client, message);
    },
  });
}

export function useEditMessage() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ id, body }: { id: number; body: string }) =>
      api.put<MessageView>(`/messages/${id}`, { body }),
    onSuccess: (message) => {
      if (message && typeof message === 'object' && 'id' in message) putMessage(client, message);
    },
  });
}

/** POST /messages/:ticketId/read: unread goes to 0 and the customer sees blue ticks. */
export const markTicketRead = (ticketId: number) => api.post<TicketView>(`/messages/${ticketId}/read`);

// --- media: fetched with the bearer token, kept as object URLs so a row scrolled back into view
// does not download again.
const MEDIA_CACHE_LIMIT = 120;
const mediaCache = new Map<string, Promise<string>>();

export async function fetchMediaBlob(url: string): Promise<Blob> {
  const get = () => fetch(url, { headers: { authorization: `Bearer ${currentToken() ?? ''}` } });
  let res = await get();
  if (res.status === 403) {
    await refreshToken();
    res = await get();
  }
  if (!res.ok) throw new Error(`media ${res.status}`);
  return res.blob();
}

export function mediaObjectUrl(url: string): Promise<string> {
  const hit = mediaCache.get(url);
  if (hit) return hit;
  const p = fetchMediaBlob(url).then((b) => URL.createObjectURL(b));
  p.catch(() => mediaCache.delete(url));
  mediaCache.set(url, p);
  if (mediaCache.size > MEDIA_CACHE_LIMIT) {
    const [oldest, promise] = mediaCache.entries().next().value as [string, Promise<string>];
    mediaCache.delete(oldest);
    void promise.then((u) => window.setTimeout(() => URL.revokeObjectURL(u), 60_000)).catch(() => undefined);
  }
  return p;
}

/** An object URL for the media at `url`, or null while it loads; `failed` when it could not be read. */
export function useMediaUrl(url: string | null | undefined): { src: string | null; failed: boolean } {
  const [state, setState] = useState<{ url: string; src: string | null; failed: boolean } | null>(null);
  useEffect(() => {
    if (!url) return;
    let cancelled = false;
    mediaObjectUrl(url)
      .then((src) => {
        if (!cancelled) setState({ url, src, failed: false });
      })
      .catch(() => {
        if (!cancelled) setState({ url, src: null, failed: true });
      });
    return () => {
      cancelled = true;
    };
  }, [url]);
  if (!url || state?.url !== url) return { src: null, failed: false };
  return { src: state.src, failed: state.failed };
}

// The chat and the peek view may show the same ticket: its room is left when neither does.
const chatBoxUsers = new Map<number, number>();

/** Joins the ticket's room (message updates and acks) while mounted. */
export function useChatBox(ticketId: number | null | undefined) {
  const client = useQueryClient();
  useEffect(() => {
    if (!ticketId) return;
    chatBoxUsers.set(ticketId, (chatBoxUsers.get(ticketId) ?? 0) + 1);
    // Messages stored between the first read and the room's join (or while the socket was away)
    // never reach this page as events: once the server confirms the join, the pages are read again.
    joinChatBox(ticketId, () => {
      if (client.getQueryState(messageKeys.list(ticketId)))
        void client.invalidateQueries({ queryKey: messageKeys.list(ticketId), exact: true });
    });
    return () => {
      const left = (chatBoxUsers.get(ticketId) ?? 1) - 1;
      if (left > 0) chatBoxUsers.set(ticketId, left);
      else {
        chatBoxUsers.delete(ticketId);
        leaveChatBox(ticketId);
      }
    };
  }, [ticketId, client]);
}
