import { containsSearch } from '@recado/contracts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { RESOURCES, type UserInput, type UserUpdate, type UserView } from '@recado/contracts';
import { api } from './client.js';
import { defineResource } from './resource.js';

export const userKeys = {
  all: ['users'] as const,
  lists: () => ['users', 'list'] as const,
};

/** Server order of GET /users/: name, then id. */
const byName = (a: UserView, b: UserView) => a.name.localeCompare(b.name) || a.id - b.id;

/** Users of the company: GET /users/?searchParam&pageNumber (name or e-mail), `company-{id}-user`. */
export const userResource = defineResource<UserView>({
  spec: RESOURCES.user,
  listsKey: userKeys.lists(),
  paged: true,
  compare: byName,
  matches: (search, user) =>
    !search || containsSearch(user.name, search) || containsSearch(user.email, search),
});
const putUserInLists = userResource.put;

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
