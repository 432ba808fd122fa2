import { containsSearch } from '@recado/contracts';
import { useEffect, useRef } from 'react';
import {
  useMutation,
  useQuery,
  useQueryClient,
  type QueryClient,
  type QueryKey,
} from '@tanstack/react-query';
import {
  RESOURCES,
  contactListItemsOf,
  onlyDigits,
  type ContactList,
  type ContactListInput,
  type ContactListItemInput,
  type ContactListItemPage,
  type ContactListItemUpdate,
  type ContactListItemView,
  type ContactListUploadResult,
} from '@recado/contracts';
import { api } from './client.js';
import { defineResource } from './resource.js';
import { removeListItem, upsertListItem, useInfiniteList } from '../components/useInfiniteList.js';
import { useCompanyEvent } from '../realtime/useCompanyEvent.js';

export const contactListKeys = {
  all: ['contactLists'] as const,
  lists: () => ['contactLists', 'list'] as const,
  detail: (id: number) => ['contactLists', 'detail', id] as const,
  items: (listId: number) => ['contactListItems', listId] as const,
  itemList: (listId: number, search: string) => ['contactListItems', listId, search] as const,
};

const normalSearch = (s: string) => s.trim().toLowerCase();

/** Server order of both lists: name without case, then id. */
const byName = <T extends { id: number; name: string }>(a: T, b: T) => {
  const x = a.name.toLowerCase();
  const y = b.name.toLowerCase();
  return x < y ? -1 : x > y ? 1 : a.id - b.id;
};

const itemMatches = (key: QueryKey, i: ContactListItemView) => {
  const search = String(key[2] ?? '');
  if (!search) return true;
  const digits = onlyDigits(search);
  return (
    containsSearch(i.name, search) ||
    containsSearch(i.email, search) ||
    (digits.length >= 3 && i.number.includes(digits))
  );
};

/**
 * Contact lists: GET /contact-lists?searchParam&pageNumber, `company-{id}-contactList` (names and
 * contactsCount); the open list's detail follows.
 */
export const contactListResource = defineResource<ContactList, ContactListInput>({
  spec: RESOURCES.contactList,
  listsKey: contactListKeys.lists(),
  paged: true,
  compare: byName,
  matches: (search, l) => !search || containsSearch(l.name, search),
  onPut: (client, contactList) => client.setQueryData(contactListKeys.detail(contactList.id), contactList),
  onDrop: (client, id) => client.removeQueries({ queryKey: contactListKeys.detail(id) }),
});
export const useSaveContactList = contactListResource.useSave;
export const useContactListsRealtime = contactListResource.useRealtime;

export function useContactList(id: number) {
  return useQuery({
    queryKey: contactListKeys.detail(id),
    queryFn: () => api.get<ContactList>(`/contact-lists/${id}`),
    enabled: id > 0,
  });
}

// ---- items ----

/** GET /contact-list-items?contactListId&searchParam&pageNumber, paged while hasMore. */
export function useContactListItems(listId: number, search: string) {
  const searchParam = normalSearch(search);
  return useInfiniteList<ContactListItemView>({
    queryKey: contactListKeys.itemList(listId, searchParam),
    enabled: listId > 0,
    fetchPage: async (pageNumber) => {
      const r = await api.get<ContactListItemPage>('/contact-list-items', {
        contactListId: listId,
        searchParam,
        pageNumber,
      });
      return { items: r.contacts, hasMore: r.hasMore };
    },
  });
}

const putItem = (client: QueryClient, item: ContactListItemView) =>
  upsertListItem(client, contactListKeys.items(item.contactListId), item, {
    matches: itemMatches,
    compare: byName,
  });

/**
 * `company-{id}-contactListItem-{listId}` patches this list's cached pages; a `reload` (after an upload or
 * its number checks) refetches them, at most once per 300 ms.
 */
export function useContactListItemsRealtime(listId: number) {
  const client = useQueryClient();
  const timer = useRef<number | undefined>(undefined);
  useEffect(() => () => window.clearTimeout(timer.current), []);
  useCompanyEvent(
    contactListItemsOf(listId),
    (e) => {
      if (e.action === 'reload') {
        if (timer.current !== undefined) return;
        timer.current = window.setTimeout(() => {
          timer.current = undefined;
          void client.invalidateQueries({ queryKey: contactListKeys.items(listId) });
        }, 300);
      } else if (e.action === 'delete')
        removeListItem(client, contactListKeys.items(listId), Number(e.contactListItemId));
      else if (e.contactListItem) putItem(client, e.contactListItem);
    },
    listId > 0,
  );
}

export function useSaveContactListItem() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (
      args: { id: number; input: ContactListItemUpdate } | { id?: undefined; input: ContactListItemInput },
    ) =>
      args.id
        ? api.put<ContactListItemView>(`/contact-list-items/${args.id}`, args.input)
        : api.post<ContactListItemView>('/contact-list-items', args.input),
    onSuccess: (item) => putItem(client, item),
  });
}

export function useDeleteContactListItem() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (item: ContactListItemView) =>
      api.delete<{ message: string }>(`/contact-list-items/${item.id}`),
    onSuccess: (_a, item) => removeListItem(client, contactListKeys.items(item.contactListId), item.id),
  });
}

/** POST /contact-lists/{id}/upload with the chosen .xls/.xlsx file. */
export function useUploadContactList(listId: number) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (file: File) => {
      const form = new FormData();
      form.append('file', file);
      return api.post<ContactListUploadResult>(`/contact-lists/${listId}/upload`, form);
    },
    onSuccess: () => {
      void client.invalidateQueries({ queryKey: contactListKeys.items(listId) });
      void client.invalidateQueries({ queryKey: contactListKeys.detail(listId) });
    },
  });
}
