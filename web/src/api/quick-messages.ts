import { containsSearch } from '@recado/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  RESOURCES,
  type QuickMessage,
  type QuickMessageInput,
  type QuickMessageUpdate,
} from '@recado/contracts';
import { api } from './client.js';
import { fetchMediaBlob } from './messages.js';
import { defineResource } from './resource.js';

export const quickMessageKeys = {
  all: ['quick-messages'] as const,
  lists: () => ['quick-messages', 'page'] as const,
  suggestions: () => ['quick-messages', 'suggestions'] as const,
};

/** Server order: shortcode without case, then id. */
const byShortcode = (a: QuickMessage, b: QuickMessage) =>
  a.shortcode.toLowerCase().localeCompare(b.shortcode.toLowerCase()) || a.id - b.id;

/** Who may change an entry, as the server decides it (events carry the owner's view of canEdit). */
export const canEditQuickMessage = (
  me: { id: number; profile: string; super?: boolean } | null | undefined,
  q: Pick<QuickMessage, 'userId' | 'geral' | 'allowEdit'>,
) =>
  Boolean(me) &&
  (q.userId === me!.id || (q.geral && (me!.profile === 'admin' || Boolean(me!.super) || q.allowEdit)));

/**
 * Quick messages: GET /quick-messages?searchParam&pageNumber, `company-{id}-quickMessage`. The "/"
 * suggestions follow (active entries only); an event's record gets this user's canEdit.
 */
export const quickMessageResource = defineResource<QuickMessage, QuickMessageInput | QuickMessageUpdate>({
  spec: RESOURCES.quickMessage,
  listsKey: quickMessageKeys.lists(),
  paged: true,
  compare: byShortcode,
  matches: (s, q) => !s || containsSearch(q.shortcode, s) || containsSearch(q.message, s),
  fromEvent: (q, me) => ({ ...q, canEdit: canEditQuickMessage(me, q) }),
  onPut: (client, record) =>
    client.setQueryData<QuickMessage[]>(quickMessageKeys.suggestions(), (list) =>
      list
        ? [...list.filter((q) => q.id !== record.id), ...(record.status ? [record] : [])].sort(byShortcode)
        : list,
    ),
  onDrop: (client, id) =>
    client.setQueryData<QuickMessage[]>(quickMessageKeys.suggestions(), (list) =>
      list?.filter((q) => q.id !== id),
    ),
});
const putQuickMessage = quickMessageResource.put;
export const useSaveQuickMessage = quickMessageResource.useSave;

/** GET /quick-messages/list: the "/" suggestions of the message input (active entries the user may use). */
export function useQuickReplies(enabled: boolean) {
  return useQuery({
    queryKey: quickMessageKeys.suggestions(),
    queryFn: () => api.get<QuickMessage[]>('/quick-messages/list'),
    enabled,
    staleTime: 60_000,
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
