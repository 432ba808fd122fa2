import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { Plan, PlanInput } from '@recado/contracts';
import { api } from './client.js';

export const planKeys = { all: ['plans'] as const, admin: () => ['plans', 'all'] as const };

/** GET /plans/all (super user): every plan, by id. */
export function usePlans(enabled = true) {
  return useQuery({
    queryKey: planKeys.admin(),
    queryFn: () => api.get<Plan[]>('/plans/all'),
    enabled,
  });
}

export function useSavePlan() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ id, input }: { id?: number; input: PlanInput }) =>
      id ? api.put<Plan>(`/plans/${id}`, input) : api.post<Plan>('/plans', input),
    onSuccess: (plan) =>
      client.setQueryData<Plan[]>(planKeys.admin(), (list) => {
        if (!list) return list;
        const found = list.some((p) => p.id === plan.id);
        return found ? list.map((p) => (p.id === plan.id ? plan : p)) : [...list, plan];
      }),
  });
}

export function useDeletePlan() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => api.delete<{ message: string }>(`/plans/${id}`),
    onSuccess: (_answer, id) =>
      client.setQueryData<Plan[]>(planKeys.admin(), (list) => list?.filter((p) => p.id !== id)),
  });
}
