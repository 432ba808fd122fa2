import { useQuery, useQueryClient } from '@tanstack/react-query';
import type {
  SlaAchievement,
  SlaBreach,
  SlaBreachList,
  SlaPolicy,
  SlaPolicyInput,
  SlaPolicyUpdate,
} from '@recado/contracts';
import { api, request } from './client.js';
import { defineResource } from './resource.js';
import { useCompanyEvent } from '../realtime/useCompanyEvent.js';

export const slaKeys = {
  policies: ['sla-policies'] as const,
  breaches: ['sla', 'breaches'] as const,
  achievement: (from: string, to: string, queueId?: number) =>
    ['sla', 'achievement', from, to, queueId] as const,
};

/** Server order of GET /sla-policies: name, then id. */
const byName = (a: SlaPolicy, b: SlaPolicy) => a.name.localeCompare(b.name) || a.id - b.id;

/**
 * SLA policies (admins, docs/metrics.md "SLA"): one unpaged list from GET /sla-policies; the server sends no
 * event for them (only admins change them, from this screen).
 */
export const slaPolicyResource = defineResource<SlaPolicy, SlaPolicyInput | SlaPolicyUpdate>({
  spec: { path: '/sla-policies', listField: null },
  listsKey: slaKeys.policies,
  paged: false,
  compare: byName,
});

/**
 * GET /sla-breaches (admins and supervisors): the last week's breaches on tickets still open, newest first;
 * `company-{id}-slaBreach` adds each new one live (the top bar).
 */
export function useSlaBreaches(enabled: boolean) {
  const client = useQueryClient();
  const query = useQuery({
    queryKey: slaKeys.breaches,
    queryFn: () => api.get<SlaBreachList>('/sla-breaches').then((r) => r.breaches),
    enabled,
    staleTime: 60_000,
  });
  useCompanyEvent(
    'slaBreach',
    (e) =>
      client.setQueryData<SlaBreach[]>(slaKeys.breaches, (list = []) => [
        e.breach,
        ...list.filter((b) => b.id !== e.breach.id),
      ]),
    enabled,
  );
  return query;
}

/** GET /dashboard/sla: achievement per queue and attendant over the dashboard's period. */
export function useSlaAchievement(range: { from: string; to: string; queueId?: number } | null) {
  return useQuery({
    queryKey: slaKeys.achievement(range?.from ?? '', range?.to ?? '', range?.queueId),
    queryFn: ({ signal }) =>
      request<SlaAchievement>('GET', '/dashboard/sla', {
        signal,
        params: { initialDate: range!.from, finalDate: range!.to, queueId: range!.queueId },
      }),
    enabled: Boolean(range),
  });
}
