import { useEffect, useRef } from 'react';
import { useMutation, useQueryClient, type QueryClient, type QueryKey } from '@tanstack/react-query';
import {
  CONTACT_SEARCH_MIN_LENGTH,
  onlyDigits,
  type ContactEvent,
  type ContactImportResult,
  type ContactInput,
  type ContactPage,
  type ContactUpdate,
  type ContactUploadResult,
  type ContactView,
} from '@recado/contracts';
import { containsSearch } from '@recado/contracts';
import { api } from './client.js';
import { removeListItem, upsertListItem, useInfiniteList } from '../components/useInfiniteList.js';
import { useCompanyEvent } from '../realtime/useCompanyEvent.js';

export const contactKeys = {
  all: ['contacts'] as const,
  lists: () => ['contacts', 'list'] as const,
  list: (search: string, fields = '') => ['contacts', 'list', search, fields] as const,
  detail: (id: number) => ['contacts', 'detail', id] as const,
};

/** The search the server applies: from 3 characters, else none (docs/product.md#validation). */
export const effectiveSearch = (search: string) => {
  const s = search.trim().toLowerCase();
  return s.length >= CONTACT_SEARCH_MIN_LENGTH ? s : '';
};

/** Server order of GET /contacts: name without case, then id. */
const byName = (a: ContactView, b: ContactView) =>
  a.name.toLowerCase().localeCompare(b.name.toLowerCase()) || a.id - b.id;

/** Whether a contact belongs in the list cached under `['contacts', 'list', search]`. */
const matchesSearch = (key: QueryKey, c: ContactView) => {
  // #32.7 A list filtered by custom fields (key[3], the filter's JSON) holds only contacts with those values.
  if (key[3]) {
    const wanted = JSON.parse(String(key[3])) as Record<string, unknown>;
    if (Object.entries(wanted).some(([k, v]) => String(c.customFields?.[k] ?? '') !== String(v)))
      return false;
  }
  const search = String(key[2] ?? '');
  if (!search) return true;
  const digits = onlyDigits(search);
  return (
    containsSearch(c.name, search) ||
    (digits.length >= CONTACT_SEARCH_MIN_LENGTH && c.number.includes(digits))
  );
};

export function putContactInLists(client: QueryClient, contact: ContactView) {
  // List rows carry no extra info (single-contact answers do).
  const { extraInfo: _extra, ...row } = contact;
  upsertListItem<ContactView>(client, contactKeys.lists(), row, { matches: matchesSearch, compare: byName });
}
export function dropContactFromLists(client: QueryClient, contactId: number) {
  removeListItem(client, contactKeys.lists(), contactId);
}

/** The list's custom-field filter as the query sends it (#32.7): JSON, or '' for none. */
export const customFieldsParam = (filter?: Record<string, unknown> | null) =>
  filter && Object.keys(filter).length ? JSON.stringify(filter) : '';

/** GET /contacts?searchParam&pageNumber(&customFields), paged while hasMore. */
export function useContactsList(search: string, filter?: Record<string, unknown> | null) {
  const searchParam = effectiveSearch(search);
  const customFields = customFieldsParam(filter);
  return useInfiniteList<ContactView>({
    queryKey: contactKeys.list(searchParam, customFields),
    fetchPage: async (pageNumber) => {
      const r = await api.get<ContactPage>('/contacts', {
        searchParam,
        pageNumber,
        ...(customFields ? { customFields } : {}),
      });
      return { items: r.contacts, hasMore: r.hasMore };
    },
  });
}

/**
 * GET /contacts/export.csv (#32.6): the list's contacts as CSV, built by the server with the list's search and
 * custom-field filter (and recorded in the audit log). The CSV text, header line first.
 */
export function fetchContactsCsv(search: string, filter?: Record<string, unknown> | null) {
  const customFields = customFieldsParam(filter);
  return api.get<string>('/contacts/export.csv', {
    searchParam: effectiveSearch(search),
    ...(customFields ? { customFields } : {}),
  });
}

/**
 * `company-{id}-contact` patches the cached lists in place. Events are applied in batches (a spreadsheet
 * or address-book import sends one per new contact), so a thousand arrivals are one render, not a thousand.
 */
export function useContactsRealtime() {
  const client = useQueryClient();
  const pending = useRef<ContactEvent[]>([]);
  const timer = useRef<number | undefined>(undefined);
  useEffect(() => () => window.clearTimeout(timer.current), []);
  useCompanyEvent('contact', (event) => {
    pending.current.push(event);
    if (timer.current !== undefined) return;
    timer.current = window.setTimeout(() => {
      timer.current = undefined;
      const batch = pending.current.splice(0);
      for (const e of batch) {
        if (e.action === 'delete') {
          dropContactFromLists(client, Number(e.contactId));
          client.removeQueries({ queryKey: contactKeys.detail(Number(e.contactId)) });
        } else if (e.contact) {
          putContactInLists(client, e.contact);
          if (e.contact.extraInfo) client.setQueryData(contactKeys.detail(e.contact.id), e.contact);
        }
      }
    }, 100);
  });
}

export function useCreateContact() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: ContactInput) => api.post<ContactView>('/contacts', input),
    onSuccess: (contact) => putContactInLists(client, contact),
  });
}

export function useUpdateContact() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ id, input }: { id: number; input: ContactUpdate }) =>
      api.put<ContactView>(`/contacts/${id}`, input),
    onSuccess: (contact) => {
      putContactInLists(client, contact);
      client.setQueryData(contactKeys.detail(contact.id), contact);
    },
  });
}

export function useDeleteContact() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => api.delete<{ message: string }>(`/contacts/${id}`),
    onSuccess: (_answer, id) => dropContactFromLists(client, id),
  });
}

/** GET /contacts/:id with its extra info (the edit dialog). */
export const fetchContact = (id: number) => api.get<ContactView>(`/contacts/${id}`);

export function useImportContacts() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: () => api.post<ContactImportResult>('/contacts/import'),
    onSuccess: () => client.invalidateQueries({ queryKey: contactKeys.lists() }),
  });
}

export function useUploadContacts() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (rows: Record<string, unknown>[]) => api.post<ContactUploadResult>('/contacts/upload', rows),
    onSuccess: () => client.invalidateQueries({ queryKey: contactKeys.lists() }),
  });
}
