import { useMutation, useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
import {
  RESOURCES,
  containsSearch,
  type Announcement,
  type AnnouncementFeed,
  type AnnouncementInput,
  type AnnouncementUpdate,
} from '@recado/contracts';
import { api } from './client.js';
import { defineResource } from './resource.js';
import { useCompanyEvent } from '../realtime/useCompanyEvent.js';

export const announcementKeys = {
  all: ['announcements'] as const,
  lists: () => ['announcements', 'list'] as const,
  feed: () => ['announcements', 'feed'] as const,
};

/** The list screen's order (the server's): newest first. */
const newestFirst = (a: Announcement, b: Announcement) =>
  Date.parse(b.createdAt) - Date.parse(a.createdAt) || b.id - a.id;

/** The top bar's order (the server's): priority 1 first, then newest. */
export const byPriority = (a: Announcement, b: Announcement) => a.priority - b.priority || newestFirst(a, b);

/** The attachment's URL; its version changes with the record so a replaced image is fetched again. */
export const announcementMediaUrl = (a: Announcement) =>
  a.mediaPath ? `${a.mediaPath}?v=${encodeURIComponent(a.updatedAt)}` : null;

/** Puts a record into the top bar's feed (or drops it when inactive), keeping each user's "seen". */
function putInFeed(client: QueryClient, record: Announcement) {
  client.setQueryData<AnnouncementFeed>(announcementKeys.feed(), (feed) => {
    if (!feed) return feed;
    const before = feed.records.find((r) => r.id === record.id);
    const others = feed.records.filter((r) => r.id !== record.id);
    const records = record.status
      ? [...others, { ...record, seen: before?.seen ?? false }].sort(byPriority)
      : others;
    return { records, unseen: records.filter((r) => !r.seen).length };
  });
}
function dropFromFeed(client: QueryClient, id: number) {
  client.setQueryData<AnnouncementFeed>(announcementKeys.feed(), (feed) => {
    if (!feed) return feed;
    const records = feed.records.filter((r) => r.id !== id);
    return { records, unseen: records.filter((r) => !r.seen).length };
  });
}

/** Announcements: GET /announcements?searchParam&pageNumber, `company-{id}-announcement` (super user's screen). */
export const announcementResource = defineResource<Announcement, AnnouncementInput | AnnouncementUpdate>({
  spec: RESOURCES.announcement,
  listsKey: announcementKeys.lists(),
  paged: true,
  compare: newestFirst,
  matches: (s, a) => !s || containsSearch(a.title, s),
  onPut: putInFeed,
  onDrop: dropFromFeed,
});
export const useSaveAnnouncement = announcementResource.useSave;

export function useAnnouncementMedia() {
  const client = useQueryClient();
  const upload = useMutation({
    mutationFn: ({ id, file }: { id: number; file: File }) => {
      const form = new FormData();
      form.append('file', file, file.name);
      return api.post<Announcement>(`/announcements/${id}/media-upload`, form);
    },
    onSuccess: (record) => announcementResource.put(client, record),
  });
  const remove = useMutation({
    mutationFn: (id: number) => api.delete<Announcement>(`/announcements/${id}/media-upload`),
    onSuccess: (record) => announcementResource.put(client, record),
  });
  return { upload, remove };
}

/**
 * The top bar's announcements (every signed-in user): active ones by priority and the unseen count, kept
 * live from `company-{id}-announcement`; `markSeen` clears the dot once the popover opens.
 */
export function useAnnouncementFeed(enabled: boolean) {
  const client = useQueryClient();
  const feed = useQuery({
    queryKey: announcementKeys.feed(),
    queryFn: () => api.get<AnnouncementFeed>('/announcements/feed'),
    enabled,
    staleTime: 60_000,
  });
  useCompanyEvent(
    'announcement',
    (e) => {
      if (e.action === 'delete') dropFromFeed(client, Number(e.id));
      else if (e.record) putInFeed(client, e.record);
    },
    enabled,
  );
  const seen = useMutation({
    mutationFn: (ids: number[]) => api.post<AnnouncementFeed>('/announcements/seen', { ids }),
    onMutate: (ids) =>
      client.setQueryData<AnnouncementFeed>(announcementKeys.feed(), (f) => {
        if (!f) return f;
        const records = f.records.map((r) => (ids.includes(r.id) ? { ...r, seen: true } : r));
        return { records, unseen: records.filter((r) => !r.seen).length };
      }),
    onSuccess: (answer) => client.setQueryData(announcementKeys.feed(), answer),
  });
  const records = feed.data?.records ?? [];
  return {
    records,
    unseen: feed.data?.unseen ?? 0,
    loading: feed.isLoading,
    markSeen: () => {
      const ids = records.filter((r) => !r.seen).map((r) => r.id);
      if (ids.length) seen.mutate(ids);
    },
  };
}
