import {
  useMutation,
  useQuery,
  useQueryClient,
  type QueryClient,
  type QueryKey,
} from '@tanstack/react-query';
import type {
  QuickMessage,
  QuickMessageEvent,
  QuickMessageInput,
  QuickMessagePage,
  QuickMessageUpdate,
} from '@recado/contracts';
import { containsSearch } from '@recado/contracts';
import { api } from './client.js';
import { fetchMediaBlob } from './messages.js';
import { removeListItem, upsertListItem, useInfiniteList } from '../components/useInfiniteList.js';
import { useCompanyEvent } from '../realtime/useCompanyEvent.js';
import { useAuth } from '../app/auth.js';

export const quickMessageKeys = {
  all: ['quick-messages'] as const,
  lists: () => ['quick-messages', 'page'] as const,
  list: (search: string) => ['quick-messages', 'page', search] as const,
  suggestions: () => ['quick-messages', 'suggestions'] as const,
};

/** Server order: shortcode without case, then id. */
const byShortcode = (a: QuickMessage, b: QuickMessage) =>
  a.shortcode.toLowerCase().localeCompare(b.shortcode.toLowerCase()) || a.id - b.id;

const matchesSearch = (key: QueryKey, q: QuickMessage) => {
  const s = String(key[2] ?? '').trim();
  return !s || containsSearch(q.shortcode, s) || containsSearch(q.message, s);
};

/** Who may change an entry, as the server decides it (events carry the owner's view of canEdit). */
export const canEditQuickMessage = (
  me: { id: number; profile: string; super?: boolean } | null | undefined,
  q: Pick<QuickMessage, 'userId' | 'geral' | 'allowEdit'>,
) =>
  Boolean(me) &&
  (q.userId === me!.id || (q.geral && (me!.profile === 'admin' || Boolean(me!.super) || q.allowEdit)));

export function putQuickMessage(client: QueryClient, record: QuickMessage) {
  upsertListItem<QuickMessage>(client, quickMessageKeys.lists(), record, {
    matches: matchesSearch,
    compare: byShortcode,
  });
  client.setQueryData<QuickMessage[]>(quickMessageKeys.suggestions(), (list) =>
    list
      ? [...list.filter((q) => q.id !== record.id), ...(record.status ? [record] : [])].sort(byShortcode)
      : list,
  );
}

export function dropQuickMessage(client: QueryClient, id: number) {
  removeListItem(client, quickMessageKeys.lists(), id);
  client.setQueryData<QuickMessage[]>(quickMessageKeys.suggestions(), (list) =>
    list?.filter((q) => q.id !== id),
  );
}

/** GET /quick-messages?searchParam&pageNumber, paged while hasMore. */
export function useQuickMessageList(search: string) {
  const searchParam = search.trim().toLowerCase();
  return useInfiniteList<QuickMessage>({
    queryKey: quickMessageKeys.list(searchParam),
    fetchPage: async (pageNumber) => {
      const r = await api.get<QuickMessagePage>('/quick-messages', { searchParam, pageNumber });
      return { items: r.records, hasMore: r.hasMore };
    },
  });
}

/** `company-{id}-quickMessage` patches the cached lists and suggestions in place. */
export function useQuickMessagesRealtime() {
  const client = useQueryClient();
  const { user } = useAuth();
  useCompanyEvent<QuickMessageEvent>('quickMessage', (e) => {
    if (e.action === 'delete') dropQuickMessage(client, Number(e.id));
    else if (e.record) putQuickMessage(client, { ...e.record, canEdit: canEditQuickMessage(user, e.record) });
  });
}

/** GET /quick-messages/list: the "/" suggestions of the message input (active entries the user may use). */
export function useQuickReplies(enabled: boolean) {
  return useQuery({
    queryKey: quickMessageKeys.suggestions(),
    queryFn: () => api.get<QuickMessage[]>('/quick-messages/list'),
    enabled,
    staleTime: 60_000,
  });
}

export function useSaveQuickMessage() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (args: { id?: number; input: QuickMessageInput | QuickMessageUpdate }) =>
      args.id
        ? api.put<QuickMessage>(`/quick-messages/${args.id}`, args.input)
        : api.post<QuickMessage>('/quick-messages', args.input),
    onSuccess: (record) => putQuickMessage(client, record),
  });
}

export function useDeleteQuickMessage() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => api.delete<{ message: string }>(`/quick-messages/${id}`),
    onSuccess: (_answer, id) => dropQuickMessage(client, id),
  });
}

export function useQuickMessageMedia() {
  const client = useQueryClient();
  const upload = useMutation({
    mutationFn: ({ id, file }: { id: number; file: File }) => {
      const form = new FormData();
      form.append('typeArch', 'quickMessage');
      form.append('file', file, file.name);
      return api.post<QuickMessage>(`/quick-messages/${id}/media-upload`, form);
    },
    onSuccess: (record) => putQuickMessage(client, record),
  });
  const remove = useMutation({
    mutationFn: (id: number) => api.delete<QuickMessage>(`/quick-messages/${id}/media-upload`),
    onSuccess: (record) => putQuickMessage(client, record),
  });
  return { upload, remove };
}

/** The attachment of a quick message as a File, to send it like any attachment of the message input. */
export async function quickMessageFile(q: QuickMessage): Promise<File | null> {
  if (!q.mediaPath) return null;
  const blob = await fetchMediaBlob(q.mediaPath);
  return new File([blob], q.mediaName ?? 'file', { type: blob.type || 'application/octet-stream' });
}
