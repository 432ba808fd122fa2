import { containsSearch } from '@recado/contracts';
import { useMutation, useQuery } from '@tanstack/react-query';
import {
  RESOURCES,
  type QueueIntegration,
  type QueueIntegrationInput,
  type QueueIntegrationTestSession,
  type WebhookSecret,
} from '@recado/contracts';
import { api, request } from './client.js';
import { defineResource } from './resource.js';

export const queueIntegrationKeys = {
  all: ['queueIntegrations'] as const,
  pages: () => ['queueIntegrations', 'page'] as const,
  /** Every integration of the company, for the queue dialog's choice. */
  options: () => ['queueIntegrations', 'options'] as const,
};

/** Server order of GET /queueIntegration/: name (any case), then id. */
export const byIntegrationName = (a: QueueIntegration, b: QueueIntegration) =>
  a.name.toLowerCase().localeCompare(b.name.toLowerCase()) || a.id - b.id;

/**
 * Queue integrations: GET /queueIntegration?searchParam&pageNumber, `company-{id}-queueIntegration`; the
 * queue dialog's options follow.
 */
export const queueIntegrationResource = defineResource<QueueIntegration, QueueIntegrationInput>({
  spec: RESOURCES.queueIntegration,
  listsKey: queueIntegrationKeys.pages(),
  paged: true,
  compare: byIntegrationName,
  matches: (search, it) => !search || containsSearch(it.name, search),
  onPut: (client, it) =>
    client.setQueryData<QueueIntegration[]>(queueIntegrationKeys.options(), (list) =>
      list ? [...list.filter((x) => x.id !== it.id), it].sort(byIntegrationName) : list,
    ),
  onDrop: (client, id) =>
    client.setQueryData<QueueIntegration[]>(queueIntegrationKeys.options(), (list) =>
      list?.filter((x) => x.id !== id),
    ),
});
export const useSaveQueueIntegration = queueIntegrationResource.useSave;
export const useQueueIntegrationsRealtime = queueIntegrationResource.useRealtime;

const fetchPage = (searchParam: string, pageNumber: number, signal?: AbortSignal) =>
  request<{ queueIntegrations: QueueIntegration[]; hasMore: boolean }>('GET', '/queueIntegration/', {
    params: { searchParam, pageNumber },
    signal,
  });

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

/** POST /queueIntegration/testSession: tries a Dialogflow agent. */
export function useTestDialogflowSession() {
  return useMutation({
    mutationFn: (input: QueueIntegrationTestSession) =>
      api.post<{ message: string }>('/queueIntegration/testSession', input),
  });
}

/** The n8n / webhook integration's signing secret (admins): GET shows it, POST replaces it. */
export const revealHookSecret = (id: number) => api.get<WebhookSecret>(`/queueIntegration/${id}/secret`);
export const regenerateHookSecret = (id: number) => api.post<WebhookSecret>(`/queueIntegration/${id}/secret`);
