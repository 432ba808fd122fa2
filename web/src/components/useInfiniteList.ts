import { useEffect, useMemo, useState } from 'react';
import {
  keepPreviousData,
  useInfiniteQuery,
  type InfiniteData,
  type QueryClient,
  type QueryKey,
} from '@tanstack/react-query';

/** One page of a paged list, whatever the server calls its array ({ users, hasMore }, { companies, ... }). */
export interface ListPage<T> {
  items: T[];
  hasMore: boolean;
}
export type ListData<T> = InfiniteData<ListPage<T>, number>;

interface Identified {
  id: number | string;
}

/** Pixels before the bottom at which the next page is asked for (docs/product.md#constants). */
export const LOAD_MORE_MARGIN_PX = 100;

/**
 * A paged list (pageNumber 1, 2, ... while hasMore) that loads the next page when its end comes within
 * 100 px of the bottom of the scroll container. Attach `scrollRootRef` to the scrolling element (leave it
 * unattached when the window scrolls) and `sentinelRef` to an empty element after the last row.
 */
export function useInfiniteList<T extends Identified>(opts: {
  queryKey: QueryKey;
  fetchPage: (pageNumber: number, signal: AbortSignal) => Promise<ListPage<T>>;
  enabled?: boolean;
}) {
  const query = useInfiniteQuery({
    queryKey: opts.queryKey,
    queryFn: ({ pageParam, signal }) => opts.fetchPage(pageParam, signal),
    initialPageParam: 1,
    getNextPageParam: (last: ListPage<T>, pages) => (last.hasMore ? pages.length + 1 : undefined),
    enabled: opts.enabled ?? true,
    // A new search keeps showing the previous rows until its first page arrives.
    placeholderData: keepPreviousData,
  });
  const { data, hasNextPage, isFetchingNextPage, fetchNextPage } = query;

  // Offset paging shifts when rows are added live: a row may come twice, keep its first copy.
  const items = useMemo(() => {
    const seen = new Set<Identified['id']>();
    const out: T[] = [];
    for (const page of data?.pages ?? [])
      for (const item of page.items)
        if (!seen.has(item.id)) {
          seen.add(item.id);
          out.push(item);
        }
    return out;
  }, [data]);

  const [root, setRoot] = useState<HTMLElement | null>(null);
  const [sentinel, setSentinel] = useState<HTMLElement | null>(null);
  useEffect(() => {
    if (!sentinel || !hasNextPage || isFetchingNextPage) return;
    // Re-created after each page: if the end is still in view, the next page follows at once.
    const observer = new IntersectionObserver(
      (entries) => {
        if (entries.some((e) => e.isIntersecting)) void fetchNextPage();
      },
      { root, rootMargin: `0px 0px ${LOAD_MORE_MARGIN_PX}px 0px` },
    );
    observer.observe(sentinel);
    return () => observer.disconnect();
  }, [root, sentinel, hasNextPage, isFetchingNextPage, fetchNextPage]);

  return { ...query, items, scrollRootRef: setRoot, sentinelRef: setSentinel };
}

/**
 * Puts a created or changed row into every cached page list under `queryKey` (a prefix): replaced where
 * it is, removed where it no longer matches the list's filter, or inserted at its sorted place when it
 * falls within what is loaded (or at the top when there is no order). For socket events and mutations.
 */
export function upsertListItem<T extends Identified>(
  client: QueryClient,
  queryKey: QueryKey,
  item: T,
  opts: { matches?: (listKey: QueryKey, item: T) => boolean; compare?: (a: T, b: T) => number } = {},
) {
  for (const [listKey, data] of client.getQueriesData<ListData<T>>({ queryKey })) {
    if (!data?.pages) continue;
    const fits = opts.matches ? opts.matches(listKey, item) : true;
    const present = data.pages.some((p) => p.items.some((i) => i.id === item.id));
    let pages: ListPage<T>[];
    if (present && fits)
      pages = data.pages.map((p) => ({ ...p, items: p.items.map((i) => (i.id === item.id ? item : i)) }));
    else if (present)
      pages = data.pages.map((p) => ({ ...p, items: p.items.filter((i) => i.id !== item.id) }));
    else if (!fits) continue;
    else pages = insertSorted(data.pages, item, opts.compare);
    client.setQueryData<ListData<T>>(listKey, { ...data, pages });
  }
}

function insertSorted<T>(pages: ListPage<T>[], item: T, compare?: (a: T, b: T) => number): ListPage<T>[] {
  if (pages.length === 0) return [{ items: [item], hasMore: false }];
  if (!compare) return pages.map((p, i) => (i === 0 ? { ...p, items: [item, ...p.items] } : p));
  for (let pi = 0; pi < pages.length; pi++) {
    const page = pages[pi]!;
    const at = page.items.findIndex((other) => compare(item, other) < 0);
    if (at >= 0)
      return pages.map((p, i) =>
        i === pi ? { ...p, items: [...p.items.slice(0, at), item, ...p.items.slice(at)] } : p,
      );
  }
  const last = pages[pages.length - 1]!;
  // Past the loaded rows: a later page will bring it, unless everything is loaded already.
  if (last.hasMore) return pages;
  return pages.map((p, i) => (i === pages.length - 1 ? { ...p, items: [...p.items, item] } : p));
}

/** Removes a row from every cached page list under `queryKey`. */
export function removeListItem(client: QueryClient, queryKey: QueryKey, id: Identified['id']) {
  client.setQueriesData<ListData<Identified>>({ queryKey }, (data) =>
    data?.pages
      ? { ...data, pages: data.pages.map((p) => ({ ...p, items: p.items.filter((i) => i.id !== id) })) }
      : data,
  );
}
