import { containsSearch } from '@recado/contracts';
import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  RESOURCES,
  type Campaign,
  type CampaignEvent,
  type CampaignInput,
  type CampaignReport,
  type CampaignShipping,
  type CampaignUpdate,
  type ContactList,
  type FileListPage,
} from '@recado/contracts';
import { api } from './client.js';
import { defineResource } from './resource.js';

export const campaignKeys = {
  all: ['campaigns'] as const,
  lists: () => ['campaigns', 'list'] as const,
  report: (id: number) => ['campaigns', 'report', id] as const,
  failures: (id: number, failed: number) => ['campaigns', 'failures', id, failed] as const,
  contactListOptions: () => ['campaigns', 'contactListOptions'] as const,
  fileListOptions: () => ['campaigns', 'fileListOptions'] as const,
};

/** Server order: newest first. */
const byNewest = (a: Campaign, b: Campaign) => b.id - a.id;
/**
 * Campaigns: GET /campaigns?searchParam&pageNumber (newest first), `company-{id}-campaign`. The open report
 * follows the record, and the figures an event carries.
 */
export const campaignResource = defineResource<Campaign, CampaignInput | CampaignUpdate>({
  spec: RESOURCES.campaign,
  listsKey: campaignKeys.lists(),
  paged: true,
  compare: byNewest,
  matches: (search, c) => !search || containsSearch(c.name, search),
  onPut: (client, record) =>
    client.setQueryData<CampaignReport>(campaignKeys.report(record.id), (old) =>
      old ? { ...old, ...record } : old,
    ),
  onDrop: (client, id) => client.removeQueries({ queryKey: campaignKeys.report(id) }),
  onEvent: (client, raw) => {
    const e = raw as CampaignEvent;
    if (e.action !== 'delete' && e.counts)
      client.setQueryData<CampaignReport>(campaignKeys.report(e.record.id), (old) =>
        old ? { ...old, ...e.record, counts: e.counts! } : old,
      );
  },
});
export const putCampaign = campaignResource.put;
export const useCampaignsRealtime = campaignResource.useRealtime;
export const useSaveCampaign = campaignResource.useSave;

/** GET /campaigns/{id}: the campaign with its figures (the report). */
export function useCampaignReport(id: number) {
  return useQuery({
    queryKey: campaignKeys.report(id),
    queryFn: () => api.get<CampaignReport>(`/campaigns/${id}`),
    enabled: id > 0,
  });
}

/**
 * GET /campaigns/{id}/shippings?status=failed: the recipients whose send failed, with Meta's error, a page of
 * 50 at a time. Read again when the report's failed count changes (live events carry it).
 */
export function useCampaignFailures(id: number, failed: number) {
  return useInfiniteQuery({
    queryKey: campaignKeys.failures(id, failed),
    queryFn: ({ pageParam }) =>
      api.get<{ shippings: CampaignShipping[]; hasMore: boolean }>(`/campaigns/${id}/shippings`, {
        status: 'failed',
        pageNumber: pageParam,
      }),
    initialPageParam: 1,
    getNextPageParam: (last, pages) => (last.hasMore ? pages.length + 1 : undefined),
    enabled: id > 0 && failed > 0,
    placeholderData: (prev) => prev,
  });
}

/** POST /campaigns/{id}/cancel or /restart. */
export function useCampaignAction() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ id, action }: { id: number; action: 'cancel' | 'restart' }) =>
      api.post<Campaign>(`/campaigns/${id}/${action}`),
    onSuccess: (record) => putCampaign(client, record),
  });
}

export function useCampaignMedia() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async ({ id, file }: { id: number; file: File | null }) => {
      if (!file) return api.delete<Campaign>(`/campaigns/${id}/media-upload`);
      const form = new FormData();
      form.append('file', file);
      return api.post<Campaign>(`/campaigns/${id}/media-upload`, form);
    },
    onSuccess: (record) => putCampaign(client, record),
  });
}

/** The dialog's pickers: every contact list and the file lists (first page is plenty for a select). */
export function useContactListOptions(enabled: boolean) {
  return useQuery({
    queryKey: campaignKeys.contactListOptions(),
    queryFn: () => api.get<ContactList[]>('/contact-lists/list'),
    enabled,
  });
}

export function useFileListOptions(enabled: boolean) {
  return useQuery({
    queryKey: campaignKeys.fileListOptions(),
    queryFn: async () => (await api.get<FileListPage>('/files', { pageNumber: 1 })).files,
    enabled,
  });
}
