import {
  useMutation,
  useQuery,
  useQueryClient,
  type QueryClient,
  type QueryKey,
} from '@tanstack/react-query';
import type {
  Campaign,
  CampaignEvent,
  CampaignInput,
  CampaignPage,
  CampaignReport,
  CampaignUpdate,
  ContactList,
  FileListPage,
} from '@recado/contracts';
import { containsSearch } from '@recado/contracts';
import { api } from './client.js';
import { removeListItem, upsertListItem, useInfiniteList } from '../components/useInfiniteList.js';
import { useCompanyEvent } from '../realtime/useCompanyEvent.js';

export const campaignKeys = {
  all: ['campaigns'] as const,
  lists: () => ['campaigns', 'list'] as const,
  list: (search: string) => ['campaigns', 'list', search] as const,
  report: (id: number) => ['campaigns', 'report', id] as const,
  contactListOptions: () => ['campaigns', 'contactListOptions'] as const,
  fileListOptions: () => ['campaigns', 'fileListOptions'] as const,
};

const normalSearch = (s: string) => s.trim().toLowerCase();

/** Server order: newest first. */
const byNewest = (a: Campaign, b: Campaign) => b.id - a.id;
const matches = (key: QueryKey, c: Campaign) => {
  const search = String(key[2] ?? '');
  return !search || containsSearch(c.name, search);
};

export function putCampaign(client: QueryClient, record: Campaign) {
  upsertListItem(client, campaignKeys.lists(), record, { matches, compare: byNewest });
  client.setQueryData<CampaignReport>(campaignKeys.report(record.id), (old) =>
    old ? { ...old, ...record } : old,
  );
}

/** GET /campaigns?searchParam&pageNumber, paged while hasMore. */
export function useCampaigns(search: string) {
  const searchParam = normalSearch(search);
  return useInfiniteList<Campaign>({
    queryKey: campaignKeys.list(searchParam),
    fetchPage: async (pageNumber) => {
      const r = await api.get<CampaignPage>('/campaigns', { searchParam, pageNumber });
      return { items: r.records, hasMore: r.hasMore };
    },
  });
}

/** GET /campaigns/{id}: the campaign with its figures (the report). */
export function useCampaignReport(id: number) {
  return useQuery({
    queryKey: campaignKeys.report(id),
    queryFn: () => api.get<CampaignReport>(`/campaigns/${id}`),
    enabled: id > 0,
  });
}

/** `company-{id}-campaign`: the list rows and the open report are patched in place (figures included). */
export function useCampaignsRealtime() {
  const client = useQueryClient();
  useCompanyEvent<CampaignEvent>('campaign', (e) => {
    if (e.action === 'delete') {
      removeListItem(client, campaignKeys.lists(), Number(e.id));
      client.removeQueries({ queryKey: campaignKeys.report(Number(e.id)) });
      return;
    }
    putCampaign(client, e.record);
    if (e.counts)
      client.setQueryData<CampaignReport>(campaignKeys.report(e.record.id), (old) =>
        old ? { ...old, ...e.record, counts: e.counts! } : old,
      );
  });
}

export function useSaveCampaign() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ id, input }: { id?: number; input: CampaignInput | CampaignUpdate }) =>
      id ? api.put<Campaign>(`/campaigns/${id}`, input) : api.post<Campaign>('/campaigns', input),
    onSuccess: (record) => putCampaign(client, record),
  });
}

export function useDeleteCampaign() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => api.delete<{ message: string }>(`/campaigns/${id}`),
    onSuccess: (_r, id) => removeListItem(client, campaignKeys.lists(), id),
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
