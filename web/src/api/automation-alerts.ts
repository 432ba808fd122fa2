import { useQuery, useQueryClient } from '@tanstack/react-query';
import type { AutomationAlert, AutomationAlertList } from '@recado/contracts';
import { api } from './client.js';
import { useCompanyEvent } from '../realtime/useCompanyEvent.js';

const key = ['automation', 'alerts'] as const;
const same = (a: AutomationAlert, b: { source: string; sourceId: number }) =>
  a.source === b.source && a.sourceId === b.sourceId;

/**
 * GET /automation/alerts (admins): automations failing again and again (docs/automation.md). The
 * `company-{id}-automationAlert` event opens and closes them live.
 */
export function useAutomationAlerts(enabled: boolean) {
  const client = useQueryClient();
  const query = useQuery({
    queryKey: key,
    queryFn: () => api.get<AutomationAlertList>('/automation/alerts').then((r) => r.alerts),
    enabled,
    staleTime: 60_000,
  });
  useCompanyEvent(
    'automationAlert',
    (e) =>
      client.setQueryData<AutomationAlert[]>(key, (list = []) =>
        e.action === 'open'
          ? [e.alert, ...list.filter((a) => !same(a, e.alert))]
          : list.filter((a) => !same(a, e)),
      ),
    enabled,
  );
  return query;
}
