import {
  useMutation,
  useQuery,
  useQueryClient,
  type QueryClient,
  type QueryKey,
} from '@tanstack/react-query';
import type {
  QueueIntegration,
  QueueIntegrationEvent,
  QueueIntegrationInput,
  QueueIntegrationTestSession,
} from '@recado/contracts';
import { containsSearch } from '@recado/contracts';
import { api, request } from './client.js';
import { removeListItem, upsertListItem, useInfiniteList } from '../components/useInfiniteList.js';
import { useCompanyEvent } from '../realtime/useCompanyEvent.js';

export const queueIntegrationKeys = {
  all: ['queueIntegrations'] as const,
  pages: () => ['queueIntegrations', 'page'] as const,
  page: (search: string) => ['queueIntegrations', 'page', search] as const,
  /** Every integration of the company, for the queue dialog's choice. */
  options: () => ['queueIntegrations', 'options'] as const,
};

/** Server order of GET /queueIntegration/: name (any case), then id. */
export const byIntegrationName = (a: QueueIntegration, b: QueueIntegration) =>
  a.name.toLowerCase().localeCompare(b.name.toLowerCase()) || a.id - b.id;

const matchesSearch = (key: QueryKey, it: QueueIntegration) => {
  const search = String(key[2] ?? '').trim();
  return !search || containsSearch(it.name, search);
};

export function putQueueIntegration(client: QueryClient, it: QueueIntegration) {
  upsertListItem(client, queueIntegrationKeys.pages(), it, {
    matches: matchesSearch,
    compare: byIntegrationName,
  });
  client.setQueryData<QueueIntegration[]>(queueIntegrationKeys.options(), (list) =>
    list ? [...list.filter((x) => x.id !== it.id), it].sort(byIntegrationName) : list,
  );
}

export function dropQueueIntegration(client: QueryClient, id: number) {
  removeListItem(client, queueIntegrationKeys.pages(), id);
  client.setQueryData<QueueIntegration[]>(queueIntegrationKeys.options(), (list) =>
    list?.filter((x) => x.id !== id),
  );
}

const fetchPage = (searchParam: string, pageNumber: number, signal?: AbortSignal) =>
  request<{ queueIntegrations: QueueIntegration[]; hasMore: boolean }>('GET', '/queueIntegration/', {
    params: { searchParam, pageNumber },
    signal,
  });

/** GET /queueIntegration/?searchParam&pageNumber, paged while hasMore. */
export function useQueueIntegrationsList(search: string, enabled = true) {
  const searchParam = search.trim().toLowerCase();
  return useInfiniteList<QueueIntegration>({
    queryKey: queueIntegrationKeys.page(searchParam),
    enabled,
    fetchPage: async (pageNumber, signal) => {
      const r = await fetchPage(searchParam, pageNumber, signal);
      return { items: r.queueIntegrations, hasMore: r.hasMore };
    },
  });
}

/** Every integration (all pages), for the queue dialog's select; off when the plan has no integrations. */
export function useQueueIntegrationOptions(enabled = true) {
  return useQuery({
    queryKey: queueIntegrationKeys.options(),
    enabled,
    queryFn: async ({ signal }) => {
      const all: QueueIntegration[] = [];
      for (let page = 1; page <= 50; page++) {
        const r = await fetchPage('', page, signal);
        all.push(...r.queueIntegrations);
        if (!r.hasMore) break;
      }
      return all;
    },
  });
}

/** `company-{id}-queueIntegration` patches the cached lists in place: no refetch. */
export function useQueueIntegrationsRealtime(enabled = true) {
  const client = useQueryClient();
  useCompanyEvent<QueueIntegrationEvent>(
    'queueIntegration',
    (data) => {
      if (data.action === 'delete') dropQueueIntegration(client, Number(data.integrationId));
      else if (data.queueIntegration) putQueueIntegration(client, data.queueIntegration);
    },
    enabled,
  );
}

export function useSaveQueueIntegration() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (args: { id?: number; input: QueueIntegrationInput }) =>
      args.id
        ? api.put<QueueIntegration>(`/queueIntegration/${args.id}`, args.input)
        : api.post<QueueIntegration>('/queueIntegration', args.input),
    onSuccess: (it) => putQueueIntegration(client, it),
  });
}

export function useDeleteQueueIntegration() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => api.delete<{ message: string }>(`/queueIntegration/${id}`),
    onSuccess: (_answer, id) => dropQueueIntegration(client, id),
  });
}

/** POST /queueIntegration/testSession: tries a Dialogflow agent. */
export function useTestDialogflowSession() {
  return useMutation({
    mutationFn: (input: QueueIntegrationTestSession) =>
      api.post<{ message: string }>('/queueIntegration/testSession', input),
  });
}
