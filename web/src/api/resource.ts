import {
  useMutation,
  useQuery,
  useQueryClient,
  type QueryClient,
  type QueryKey,
} from '@tanstack/react-query';
import type { AuthUser, ResourceSpec } from '@recado/contracts';
import { api, request } from './client.js';
import { removeListItem, upsertListItem, useInfiniteList } from '../components/useInfiniteList.js';
import { useCompanyEvent } from '../realtime/useCompanyEvent.js';
import { useAuth } from '../app/auth.js';

export interface Record_ {
  id: number;
}

/** What a list screen reads from a list hook, paged or not. */
export interface ResourceListState<T> {
  items: T[];
  /** Undefined until the first answer. */
  data?: unknown;
  isLoading: boolean;
  isFetchingNextPage?: boolean;
  /** The last read failed. */
  isError?: boolean;
  /** Paged lists: the scrolling element and the element after the last row (useInfiniteList). */
  scrollRootRef?: (el: HTMLElement | null) => void;
  sentinelRef?: (el: HTMLElement | null) => void;
}

/** A resource the server announces no change of (the platform's plans and helps): no event fields. */
export type QuietResourceSpec = Pick<ResourceSpec, 'path' | 'listField'>;

export interface ResourceOptions<T extends Record_> {
  /**
   * Path, list field, event entity, record and delete-id fields (contracts' RESOURCES); a quiet spec has
   * no event, and its useRealtime listens to nothing.
   */
  spec: ResourceSpec | QuietResourceSpec;
  /** GET of the list when it is not `spec.path` (plans: the super user's /plans/all). */
  listPath?: string;
  /**
   * Cache key of the lists. Paged: a prefix, each search is `[...listsKey, search]`. Unpaged: the one
   * list's key.
   */
  listsKey: QueryKey;
  /** Paged (GET ?searchParam&pageNumber while hasMore) or one answer holding every record. */
  paged: boolean;
  /** The server's order, used to put a new or changed record in its place. */
  compare: (a: T, b: T) => number;
  /** Paged: whether a record belongs in the list of `search` (trimmed, lower case); default all. */
  matches?: (search: string, item: T) => boolean;
  /** Unpaged: an older snapshot (by updatedAt) never overwrites a newer one (answers and events cross). */
  newestWins?: boolean;
  /** Completes a record that came by event (the event carries the author's view, e.g. canEdit). */
  fromEvent?: (item: T, me: AuthUser | null) => T;
  /** More from each event, after the record is put or dropped (figures an event carries besides). */
  onEvent?: (client: QueryClient, event: Record<string, unknown>) => void;
  /** Other caches a saved or deleted record touches (option lists, details, copies in other records). */
  onPut?: (client: QueryClient, item: T) => void;
  onDrop?: (client: QueryClient, id: number) => void;
}

const normalSearch = (s: string) => s.trim().toLowerCase();
const isNewer = (x: object, y: object) => {
  const a = x as { updatedAt?: string };
  const b = y as { updatedAt?: string };
  return !a.updatedAt || !b.updatedAt || Date.parse(a.updatedAt) >= Date.parse(b.updatedAt);
};

/**
 * One resource of the web, described once: its cache updates (put, drop) and the hooks list screens and
 * dialogs use (useList, useRealtime, useSave, useDelete). Everything else a resource does (uploads,
 * reports, option lists) stays in its own api file, next to this definition.
 */
export function defineResource<T extends Record_, Input = unknown>(opts: ResourceOptions<T>) {
  const { spec, listsKey, paged } = opts;
  const listPath = opts.listPath ?? spec.path;
  const keys = {
    lists: () => listsKey,
    list: (search: string) => (paged ? [...listsKey, normalSearch(search)] : listsKey),
  };

  /** A created or changed record goes into every cached list in its place, without a refetch. */
  const put = (client: QueryClient, item: T) => {
    if (paged)
      upsertListItem(client, listsKey, item, {
        matches: opts.matches ? (key, x) => opts.matches!(String(key[listsKey.length] ?? ''), x) : undefined,
        compare: opts.compare,
      });
    else
      client.setQueryData<T[]>(listsKey, (list) => {
        if (!list) return list;
        const current = list.find((x) => x.id === item.id);
        if (current && opts.newestWins && !isNewer(item, current)) return list;
        return [...list.filter((x) => x.id !== item.id), item].sort(opts.compare);
      });
    opts.onPut?.(client, item);
  };

  const drop = (client: QueryClient, id: number) => {
    if (paged) removeListItem(client, listsKey, id);
    else client.setQueryData<T[]>(listsKey, (list) => list?.filter((x) => x.id !== id));
    opts.onDrop?.(client, id);
  };

  const fetchAll = async (signal?: AbortSignal): Promise<T[]> => {
    const answer = await request<T[] | Record<string, T[]>>('GET', listPath, { signal });
    return spec.listField ? (answer as Record<string, T[]>)[spec.listField]! : (answer as T[]);
  };

  /** Unpaged: every record, as one query (its `data` typed), with `items`. */
  function useAll(enabled = true) {
    const query = useQuery({ queryKey: listsKey, queryFn: ({ signal }) => fetchAll(signal), enabled });
    return { ...query, items: query.data ?? [] };
  }

  /** The records of `search` (paged) or all of them (unpaged). */
  function useList(search = '', enabled = true): ResourceListState<T> {
    const searchParam = normalSearch(search);
    // `paged` is fixed for the resource's lifetime: the same hooks run on every render.
    if (paged)
      return useInfiniteList<T>({
        queryKey: keys.list(searchParam),
        enabled,
        fetchPage: async (pageNumber, signal) => {
          const r = await request<Record<string, unknown>>('GET', listPath, {
            params: { searchParam, pageNumber },
            signal,
          });
          return { items: r[spec.listField!] as T[], hasMore: Boolean(r.hasMore) };
        },
      });
    return useAll(enabled);
  }

  /** `company-{id}-{entity}` patches the cached lists in place. */
  function useRealtime(enabled = true) {
    // A quiet resource has no event; like `paged`, this is fixed: the same hooks run on every render.
    if (!('entity' in spec)) return;
    const client = useQueryClient();
    const { user } = useAuth();
    useCompanyEvent(
      spec.entity,
      (payload) => {
        // A resource names its record and id fields at run time (contracts/resources.ts).
        const e = payload as unknown as Record<string, unknown>;
        if (e.action === 'delete') drop(client, Number(e[spec.deleteIdField]));
        else if (e[spec.recordField]) {
          const item = e[spec.recordField] as T;
          put(client, opts.fromEvent ? opts.fromEvent(item, user ?? null) : item);
        }
        opts.onEvent?.(client, e);
      },
      enabled,
    );
  }

  /** POST {path} (no id) or PUT {path}/{id}; the answer goes into the cache. */
  function useSave() {
    const client = useQueryClient();
    return useMutation({
      mutationFn: (args: { id?: number; input: Input }) =>
        args.id ? api.put<T>(`${spec.path}/${args.id}`, args.input) : api.post<T>(spec.path, args.input),
      onSuccess: (item) => put(client, item),
    });
  }

  /** DELETE {path}/{id}; the record leaves the cache. */
  function useDelete() {
    const client = useQueryClient();
    return useMutation({
      mutationFn: (id: number) => api.delete<{ message: string }>(`${spec.path}/${id}`),
      onSuccess: (_answer, id) => drop(client, id),
    });
  }

  return { spec, keys, put, drop, fetchAll, useAll, useList, useRealtime, useSave, useDelete };
}

export type Resource<T extends Record_, Input = unknown> = ReturnType<typeof defineResource<T, Input>>;
