import { useMutation, useQueryClient, type QueryClient, type QueryKey } from '@tanstack/react-query';
import type { UserInput, UserUpdate, UserView } from '@recado/contracts';
import { containsSearch } from '@recado/contracts';
import { api } from './client.js';
import { removeListItem, upsertListItem, useInfiniteList } from '../components/useInfiniteList.js';
import { useCompanyEvent } from '../realtime/useCompanyEvent.js';

export const userKeys = {
  all: ['users'] as const,
  lists: () => ['users', 'list'] as const,
  list: (search: string) => ['users', 'list', search] as const,
};

/** Server order of GET /users/: name, then id. */
const byName = (a: UserView, b: UserView) => a.name.localeCompare(b.name) || a.id - b.id;

/** Whether a user belongs in the list cached under `['users', 'list', search]` (name or e-mail contains). */
const matchesSearch = (key: QueryKey, user: UserView) => {
  const search = String(key[2] ?? '').trim();
  return !search || containsSearch(user.name, search) || containsSearch(user.email, search);
};

export function putUserInLists(client: QueryClient, user: UserView) {
  upsertListItem(client, userKeys.lists(), user, { matches: matchesSearch, compare: byName });
}
export function dropUserFromLists(client: QueryClient, userId: number) {
  removeListItem(client, userKeys.lists(), userId);
}

/** GET /users/?searchParam&pageNumber, paged while hasMore. */
export function useUsersList(search: string) {
  const searchParam = search.trim().toLowerCase();
  return useInfiniteList<UserView>({
    queryKey: userKeys.list(searchParam),
    fetchPage: async (pageNumber) => {
      const r = await api.get<{ users: UserView[]; hasMore: boolean }>('/users/', {
        searchParam,
        pageNumber,
      });
      return { items: r.users, hasMore: r.hasMore };
    },
  });
}

export type UserEvent =
  { action: 'create' | 'update'; user: UserView } | { action: 'delete'; userId: number };

/** `company-{id}-user` patches the cached user lists in place: no refetch. */
export function useUsersRealtime() {
  const client = useQueryClient();
  useCompanyEvent<UserEvent>('user', (data) => {
    if (data.action === 'delete') dropUserFromLists(client, Number(data.userId));
    else if (data.user) putUserInLists(client, data.user);
  });
}

export function useCreateUser() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: Partial<UserInput>) => api.post<UserView>('/users', input),
    onSuccess: (user) => putUserInLists(client, user),
  });
}

export function useUpdateUser() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ id, input }: { id: number; input: UserUpdate }) =>
      api.put<UserView>(`/users/${id}`, input),
    onSuccess: (user) => putUserInLists(client, user),
  });
}

export function useDeleteUser() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => api.delete<{ message: string }>(`/users/${id}`),
    onSuccess: (_answer, id) => dropUserFromLists(client, id),
  });
}
