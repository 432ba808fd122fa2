import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { Help, HelpInput } from '@recado/contracts';
import { api } from './client.js';

export const helpKeys = { all: ['helps'] as const };

const byTitle = (a: Help, b: Help) => a.title.localeCompare(b.title) || a.id - b.id;

/** GET /helps: the platform's help videos (every company reads them). */
export function useHelps() {
  return useQuery({ queryKey: helpKeys.all, queryFn: () => api.get<Help[]>('/helps') });
}

/** POST /helps or PUT /helps/{id} (super user). */
export function useSaveHelp() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ id, input }: { id?: number; input: HelpInput }) =>
      id ? api.put<Help>(`/helps/${id}`, input) : api.post<Help>('/helps', input),
    onSuccess: (help) =>
      client.setQueryData<Help[]>(helpKeys.all, (list) =>
        list ? [...list.filter((h) => h.id !== help.id), help].sort(byTitle) : list,
      ),
  });
}

export function useDeleteHelp() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => api.delete<{ message: string }>(`/helps/${id}`),
    onSuccess: (_answer, id) =>
      client.setQueryData<Help[]>(helpKeys.all, (list) => list?.filter((h) => h.id !== id)),
  });
}
