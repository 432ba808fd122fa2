import { useMutation, useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
import {
  RESOURCES,
  type Queue,
  type QueueOption,
  type QueueOptionUpdate,
  type QueueUpdate,
  type UserView,
  type Whatsapp,
} from '@recado/contracts';
import { api } from './client.js';
import { defineResource } from './resource.js';
import type { ListData } from '../components/useInfiniteList.js';

export const queueKeys = {
  all: ['queues'] as const,
  list: () => ['queues', 'list'] as const,
  options: (queueId: number) => ['queues', 'options', queueId] as const,
};
/** The tickets screen's own queue list (GET /queue under another shape): refreshed when queues change. */
const TICKET_QUEUE_OPTIONS = ['queues', 'all'] as const;

/** Server order of GET /queue: bot order (none last), then name. */
export const byQueueOrder = (a: Queue, b: Queue) =>
  (a.orderQueue ?? Number.MAX_SAFE_INTEGER) - (b.orderQueue ?? Number.MAX_SAFE_INTEGER) ||
  a.name.localeCompare(b.name) ||
  a.id - b.id;

/** Numeric keys in numeric order, then the others: the server's order of one level. */
export const byOptionKey = (a: QueueOption, b: QueueOption) => {
  const na = /^\d{1,9}$/.test(a.option) ? Number(a.option) : Number.POSITIVE_INFINITY;
  const nb = /^\d{1,9}$/.test(b.option) ? Number(b.option) : Number.POSITIVE_INFINITY;
  return na - nb || a.option.localeCompare(b.option) || a.id - b.id;
};

type QueueRef = { id: number; name: string; color: string };

/** Users and connections carry { id, name, color } of their queues: keep those copies current. */
function patchQueueRefs(client: QueryClient, queueId: number, next: QueueRef | null) {
  const fix = (refs: QueueRef[]) =>
    next
      ? refs.map((q) => (q.id === queueId ? { id: q.id, name: next.name, color: next.color } : q))
      : refs.filter((q) => q.id !== queueId);
  const touches = (refs: QueueRef[] | undefined) => Boolean(refs?.some((q) => q.id === queueId));
  client.setQueriesData<ListData<UserView>>({ queryKey: ['users', 'list'] }, (data) =>
    data?.pages
      ? {
          ...data,
          pages: data.pages.map((p) => ({
            ...p,
            items: p.items.map((u) => (touches(u.queues) ? { ...u, queues: fix(u.queues) } : u)),
          })),
        }
      : data,
  );
  client.setQueryData<Whatsapp[]>(['whatsapps', 'list'], (list) =>
    list?.map((w) => (touches(w.queues) ? { ...w, queues: fix(w.queues) } : w)),
  );
  client.setQueriesData<Whatsapp>({ queryKey: ['whatsapps', 'detail'] }, (w) =>
    w && touches(w.queues) ? { ...w, queues: fix(w.queues) } : w,
  );
}

/**
 * Queues: GET /queue answers every queue, `company-{id}-queue`. Saved or live queues go into the list in
 * server order (never older over newer) and into the queue copies of users and connections; a deleted
 * queue leaves the list, its options, and the users and connections that had it.
 */
export const queueResource = defineResource<Queue, QueueUpdate>({
  spec: RESOURCES.queue,
  listsKey: queueKeys.list(),
  paged: false,
  compare: byQueueOrder,
  newestWins: true,
  onPut: (client, queue) => {
    patchQueueRefs(client, queue.id, queue);
    void client.invalidateQueries({ queryKey: TICKET_QUEUE_OPTIONS, exact: true });
  },
  onDrop: (client, queueId) => {
    client.removeQueries({ queryKey: queueKeys.options(queueId) });
    patchQueueRefs(client, queueId, null);
    void client.invalidateQueries({ queryKey: TICKET_QUEUE_OPTIONS, exact: true });
  },
});
export const putQueue = queueResource.put;
export const dropQueue = queueResource.drop;
/** GET /queue: the company's queues (every profile may read them). */
export const useQueues = queueResource.useAll;
export const useQueuesRealtime = queueResource.useRealtime;
export const useSaveQueue = queueResource.useSave;

/** GET /queue-options?queueId: every option of a queue, flat (the editor builds the tree). */
export function useQueueOptions(queueId: number | undefined) {
  return useQuery({
    queryKey: queueKeys.options(queueId ?? 0),
    queryFn: () => api.get<QueueOption[]>('/queue-options', { queueId }),
    enabled: Boolean(queueId),
  });
}

/** The options of one parent (null = the roots), in option order. */
export function childrenOf(options: QueueOption[], parentId: number | null): QueueOption[] {
  return options.filter((o) => o.parentId === parentId).sort(byOptionKey);
}

/** An option and every option below it. */
export function subtreeIds(options: QueueOption[], id: number): Set<number> {
  const ids = new Set([id]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const o of options)
      if (o.parentId !== null && ids.has(o.parentId) && !ids.has(o.id)) {
        ids.add(o.id);
        grew = true;
      }
  }
  return ids;
}

function putOption(client: QueryClient, option: QueueOption) {
  client.setQueryData<QueueOption[]>(queueKeys.options(option.queueId), (list) =>
    list ? [...list.filter((o) => o.id !== option.id), option] : list,
  );
}

export function useSaveQueueOption() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (
      args:
        | { id: number; input: QueueOptionUpdate }
        | {
            id?: undefined;
            input: {
              queueId: number;
              parentId: number | null;
              title: string;
              message: string;
              option?: string;
            };
          },
    ) =>
      args.id
        ? api.put<QueueOption>(`/queue-options/${args.id}`, args.input)
        : api.post<QueueOption>('/queue-options', args.input),
    onSuccess: (option) => putOption(client, option),
  });
}

export function useDeleteQueueOption() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (option: QueueOption) => api.delete<{ message: string }>(`/queue-options/${option.id}`),
    // The server takes the sub-options with it; so does the cache.
    onSuccess: (_answer, option) =>
      client.setQueryData<QueueOption[]>(queueKeys.options(option.queueId), (list) => {
        if (!list) return list;
        const gone = subtreeIds(list, option.id);
        return list.filter((o) => !gone.has(o.id));
      }),
  });
}
