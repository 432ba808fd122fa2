import { useEffect } from 'react';
import {
  useInfiniteQuery,
  useMutation,
  useQuery,
  useQueryClient,
  type InfiniteData,
} from '@tanstack/react-query';
import {
  RESOURCES,
  containsSearch,
  type Chat,
  type ChatInput,
  type ChatList,
  type ChatMessage,
  type ChatMessageList,
  type ChatUpdate,
} from '@recado/contracts';
import { api, request } from './client.js';
import { defineResource } from './resource.js';
import { useCompanyEvent } from '../realtime/useCompanyEvent.js';
import { getSocket } from '../realtime/socket.js';

export const chatKeys = {
  all: ['chats'] as const,
  lists: () => ['chats', 'page'] as const,
  unread: () => ['chats', 'unread'] as const,
  one: (ref: string) => ['chats', 'one', ref] as const,
  messages: (chatId: number) => ['chats', 'messages', chatId] as const,
};

/** Server order: newest activity first. */
const byActivity = (a: Chat, b: Chat) => Date.parse(b.updatedAt) - Date.parse(a.updatedAt) || b.id - a.id;

/** GET /chats?searchParam&pageNumber (the caller's chats only); `company-{id}-chat` reaches members only. */
export const chatResource = defineResource<Chat, ChatInput | ChatUpdate>({
  spec: RESOURCES.chat,
  listsKey: chatKeys.lists(),
  paged: true,
  compare: byActivity,
  matches: (s, c) => !s || containsSearch(c.title, s),
});

/** How many of the caller's chats have unread messages (the side menu's dot), from GET /chats. */
export function useUnreadChats(enabled = true) {
  const q = useQuery({
    queryKey: chatKeys.unread(),
    queryFn: () => api.get<ChatList>('/chats', { pageNumber: 1 }),
    enabled,
    staleTime: 60_000,
  });
  return q.data?.unreadChats ?? 0;
}

/** The latest chats (first page), for the top bar's popover. */
export function useLatestChats(enabled = true) {
  return chatResource.useList('', enabled);
}

/** One chat by uuid or id (the /chats/{uuid} route). */
export function useChat(ref: string | undefined) {
  return useQuery({
    queryKey: chatKeys.one(ref ?? ''),
    queryFn: () => api.get<Chat>(`/chats/${ref}`),
    enabled: Boolean(ref),
    retry: false,
  });
}

type MessagePages = InfiniteData<ChatMessageList, number>;

/** Messages of a chat: page 1 is the newest; older pages are asked for when the reader scrolls up. */
export function useChatMessages(chatId: number | undefined) {
  const q = useInfiniteQuery({
    queryKey: chatKeys.messages(chatId ?? 0),
    queryFn: ({ pageParam, signal }) =>
      request<ChatMessageList>('GET', `/chats/${chatId}/messages`, {
        params: { pageNumber: pageParam },
        signal,
      }),
    initialPageParam: 1,
    getNextPageParam: (last, pages) => (last.hasMore ? pages.length + 1 : undefined),
    enabled: Boolean(chatId),
  });
  // Pages come newest first, each in time order: the oldest loaded page goes at the top.
  const seen = new Set<number>();
  const messages: ChatMessage[] = [];
  for (const page of [...(q.data?.pages ?? [])].reverse())
    for (const m of page.records)
      if (!seen.has(m.id)) {
        seen.add(m.id);
        messages.push(m);
      }
  return { ...q, messages };
}

/**
 * The live side of the internal chat (mounted once, by the top bar): each event re-places the chat in the
 * lists (newest activity first), appends a new message to its cached conversation and refreshes the unread
 * count of the menu's dot.
 */
export function useChatsRealtime(enabled = true) {
  const client = useQueryClient();
  // Events reach this user's room only while the socket is connected: each connection (the first one too,
  // which may come after the page's first reads) reads the lists and open conversations again.
  useEffect(() => {
    if (!enabled) return;
    const socket = getSocket();
    const onConnect = () => void client.invalidateQueries({ queryKey: chatKeys.all });
    socket.on('connect', onConnect);
    return () => {
      socket.off('connect', onConnect);
    };
  }, [enabled, client]);
  useCompanyEvent(
    'chat',
    (e) => {
      if (e.action === 'delete') {
        chatResource.drop(client, e.chatId);
        client.removeQueries({ queryKey: chatKeys.messages(e.chatId) });
      } else {
        chatResource.drop(client, e.chat.id);
        chatResource.put(client, e.chat);
        for (const ref of [e.chat.uuid, String(e.chat.id)])
          if (client.getQueryData(chatKeys.one(ref))) client.setQueryData(chatKeys.one(ref), e.chat);
      }
      // A conversation still being read when its message arrives is read again (the answer may predate it).
      if (
        e.action === 'new-message' &&
        client.getQueryState(chatKeys.messages(e.chat.id))?.status === 'pending'
      )
        void client.invalidateQueries({ queryKey: chatKeys.messages(e.chat.id) });
      else if (e.action === 'new-message')
        client.setQueryData<MessagePages>(chatKeys.messages(e.chat.id), (data) => {
          if (!data?.pages.length) return data;
          if (data.pages.some((p) => p.records.some((m) => m.id === e.newMessage.id))) return data;
          const [first, ...rest] = data.pages;
          return { ...data, pages: [{ ...first!, records: [...first!.records, e.newMessage] }, ...rest] };
        });
      void client.invalidateQueries({ queryKey: chatKeys.unread() });
    },
    enabled,
  );
}

export function useSendChatMessage(chatId: number) {
  return useMutation({
    mutationFn: (message: string) => api.post<ChatMessage>(`/chats/${chatId}/messages`, { message }),
  });
}

export function useMarkChatRead() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (chatId: number) => api.post<Chat>(`/chats/${chatId}/read`, {}),
    onSuccess: (chat) => {
      chatResource.drop(client, chat.id);
      chatResource.put(client, chat);
      void client.invalidateQueries({ queryKey: chatKeys.unread() });
    },
  });
}
