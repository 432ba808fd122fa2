import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type {
  ContactDuplicatePage,
  ContactMergePreview,
  ContactMergeResult,
  ContactPage,
  ForwardInput,
  ForwardResult,
  TicketPinResult,
} from '@recado/contracts';
import { api } from './client.js';
import { contactKeys, dropContactFromLists, putContactInLists } from './contacts.js';

/** #32.8 Duplicate suggestions, page by page. */
export function useDuplicates(enabled: boolean) {
  return useInfiniteQuery({
    queryKey: ['contacts', 'duplicates'],
    enabled,
    initialPageParam: 1,
    queryFn: ({ pageParam }) => api.get<ContactDuplicatePage>(`/contacts/duplicates?pageNumber=${pageParam}`),
    getNextPageParam: (last, pages) => (last.hasMore ? pages.length + 1 : undefined),
  });
}

/** What a merge of `otherId` into `id` would move (the confirmation). */
export function useMergePreview(id: number | undefined, otherId: number | undefined) {
  return useQuery({
    queryKey: ['contacts', 'merge-preview', id, otherId],
    enabled: Boolean(id && otherId),
    queryFn: () => api.get<ContactMergePreview>(`/contacts/${id}/merge-preview?otherId=${otherId}`),
    staleTime: 0,
  });
}

export function useMergeContacts() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ id, otherId }: { id: number; otherId: number }) =>
      api.post<ContactMergeResult>(`/contacts/${id}/merge`, { otherId }),
    onSuccess: (result) => {
      dropContactFromLists(client, result.mergedId);
      putContactInLists(client, result.contact);
      void client.invalidateQueries({ queryKey: ['contacts', 'duplicates'] });
      void client.invalidateQueries({ queryKey: contactKeys.detail(result.contact.id) });
      void client.invalidateQueries({ queryKey: ['tickets'] });
    },
  });
}

/** Contacts matching a search (the merge and forward pickers). */
export const searchContacts = (search: string) =>
  api.get<ContactPage>(`/contacts?searchParam=${encodeURIComponent(search)}&pageNumber=1`);

/** #32.9 Pin or unpin a ticket for oneself. */
export const setTicketPin = (ticketId: number, pinned: boolean) =>
  api.put<TicketPinResult>(`/tickets/${ticketId}/pin`, { pinned });

/** #32.9 Forward messages to a ticket or a contact. */
export const forwardMessages = (input: ForwardInput) => api.post<ForwardResult>('/messages/forward', input);
