import { useEffect, useRef } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  FLOW_TRY_CLIENT_EVENTS,
  FLOW_TRY_EVENT,
  containsSearch,
  type Flow,
  type FlowConvertInput,
  type FlowExportFile,
  type FlowIdMapping,
  type FlowInput,
  type FlowStats,
  type FlowSummary,
  type FlowTryAnswer,
  type FlowTryEvent,
  type FlowUpdate,
  type FlowValidation,
} from '@recado/contracts';
import { api, request } from './client.js';
import { defineResource } from './resource.js';
import { getSocket } from '../realtime/socket.js';

export const flowKeys = {
  lists: () => ['flows', 'list'] as const,
  all: () => ['flows', 'all'] as const,
  detail: (id: number) => ['flows', 'detail', id] as const,
  stats: (id: number, from: string, to: string) => ['flows', 'stats', id, from, to] as const,
};

/** The server's order of GET /flows: name, then id. */
export const byFlowName = (a: FlowSummary, b: FlowSummary) => a.name.localeCompare(b.name) || a.id - b.id;

/**
 * Flows (docs/flows.md): GET /flows?searchParam&pageNumber answers `{ flows, hasMore }` in name order. Live:
 * `company-{id}-flow` announces every create, import, change, publish and delete (another admin's too), and
 * saves and deletions also patch the cache from their answers.
 */
export const flowResource = defineResource<FlowSummary, FlowInput | FlowUpdate>({
  spec: { path: '/flows', listField: 'flows', entity: 'flow', recordField: 'flow', deleteIdField: 'flowId' },
  listsKey: flowKeys.lists(),
  paged: true,
  compare: byFlowName,
  matches: (search, f) => !search || containsSearch(f.name, search),
  onPut: (client, flow) => {
    client.setQueryData<FlowSummary[]>(flowKeys.all(), (list) =>
      list ? [...list.filter((x) => x.id !== flow.id), flow].sort(byFlowName) : list,
    );
  },
  onDrop: (client, id) => {
    client.setQueryData<FlowSummary[]>(flowKeys.all(), (list) => list?.filter((x) => x.id !== id));
    client.removeQueries({ queryKey: flowKeys.detail(id) });
  },
});

/** Every page of a paged list (pickers that must show all: flows, file lists). */
export async function fetchAllPages<T>(path: string, field: string, signal?: AbortSignal): Promise<T[]> {
  const all: T[] = [];
  for (let page = 1; page <= 100; page++) {
    const r = await request<Record<string, unknown>>('GET', path, {
      params: { searchParam: '', pageNumber: page },
      signal,
    });
    all.push(...((r[field] as T[] | undefined) ?? []));
    if (!r.hasMore) break;
  }
  return all;
}

/** GET /flows/list: every flow of the company (the transfer node's "another flow", the import mapping). */
export function useAllFlows(enabled = true) {
  return useQuery({
    queryKey: flowKeys.all(),
    queryFn: ({ signal }) => request<FlowSummary[]>('GET', '/flows/list', { signal }),
    enabled,
  });
}

/** GET /flows/{id}: the flow with its draft graph. */
export function useFlow(id: number, enabled = true) {
  return useQuery({
    queryKey: flowKeys.detail(id),
    queryFn: ({ signal }) => request<Flow>('GET', `/flows/${id}`, { signal }),
    enabled: enabled && id > 0,
    // The editor owns the draft once loaded: a refetch must not overwrite what is being drawn.
    staleTime: Infinity,
    refetchOnWindowFocus: false,
  });
}

/** PUT /flows/{id}: saves the draft (or the name); the answer goes into the list. */
export function useUpdateFlow() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ id, input }: { id: number; input: FlowUpdate }) => api.put<Flow>(`/flows/${id}`, input),
    onSuccess: (flow) => {
      flowResource.put(client, flow);
      client.setQueryData(flowKeys.detail(flow.id), flow);
    },
  });
}

/** POST /flows/{id}/publish: the draft becomes the version new runs start on. */
export function usePublishFlow() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => api.post<Flow>(`/flows/${id}/publish`, {}),
    onSuccess: (flow) => {
      flowResource.put(client, flow);
      client.setQueryData(flowKeys.detail(flow.id), flow);
    },
  });
}

/** POST /flows/{id}/validate: the draft's issues (errors and warnings) without saving anything. */
export const validateFlow = (id: number) => api.post<FlowValidation>(`/flows/${id}/validate`, {});

/** GET /flows/{id}/export: the flow as a file. */
export const exportFlow = (id: number) => api.get<FlowExportFile>(`/flows/${id}/export`);

/** POST /flows/import: a file (and the admin's mapping of ids that are not this company's). */
export function useImportFlow() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: { file: FlowExportFile; mapping: FlowIdMapping }) =>
      api.post<Flow>('/flows/import', input),
    onSuccess: (flow) => flowResource.put(client, flow),
  });
}

/** POST /flows/convert: a connection's greeting and queue menu as a new draft flow. */
export function useConvertFlow() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: FlowConvertInput) => api.post<Flow>('/flows/convert', input),
    onSuccess: (flow) => flowResource.put(client, flow),
  });
}

/** POST /flows: a new flow (duplicates send the copied graph). */
export function useCreateFlow() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: FlowInput) => api.post<Flow>('/flows', input),
    onSuccess: (flow) => flowResource.put(client, flow),
  });
}

/** GET /flows/{id}/stats?from&to: per node, entered / left by exit / dropped in the period (UTC days). */
export function useFlowStats(id: number, period: { from: string; to: string }, enabled: boolean) {
  return useQuery({
    queryKey: flowKeys.stats(id, period.from, period.to),
    queryFn: ({ signal }) =>
      request<FlowStats>('GET', `/flows/${id}/stats`, {
        params: { from: period.from, to: period.to },
        signal,
      }),
    enabled: enabled && id > 0 && Boolean(period.from && period.to),
  });
}

/** POST /flows/{id}/try: runs the draft in a simulator conversation. */
export const startFlowTry = (id: number, contactNumber?: string) =>
  api.post<FlowTryAnswer>(`/flows/${id}/try`, contactNumber ? { contactNumber } : {});

/**
 * Follows a flow's try runs while `enabled`: joins the flow's try room (the server checks the flow is this
 * company's), again after every reconnection, and hands each `flowTry` event to `onEvent`.
 */
export function useFlowTryEvents(flowId: number, enabled: boolean, onEvent: (e: FlowTryEvent) => void) {
  const latest = useRef(onEvent);
  useEffect(() => {
    latest.current = onEvent;
  });
  useEffect(() => {
    if (!enabled || !flowId) return;
    const socket = getSocket();
    const join = () => socket.emit(FLOW_TRY_CLIENT_EVENTS.join, { flowId });
    const listener = (e: FlowTryEvent) => {
      if (Number(e.flowId) === flowId) latest.current(e);
    };
    socket.on(FLOW_TRY_EVENT, listener);
    socket.on('connect', join);
    if (socket.connected) join();
    return () => {
      socket.off(FLOW_TRY_EVENT, listener);
      socket.off('connect', join);
      socket.emit(FLOW_TRY_CLIENT_EVENTS.leave, { flowId });
    };
  }, [flowId, enabled]);
}
