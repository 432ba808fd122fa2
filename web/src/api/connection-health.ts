import { useQuery, useQueryClient } from '@tanstack/react-query';
import type { ConnectionAlertList, ConnectionHealth, ConnectionIncident } from '@recado/contracts';
import { api } from './client.js';
import { useCompanyEvent } from '../realtime/useCompanyEvent.js';

export const healthKeys = {
  all: ['connection-health'] as const,
  one: (id: number) => ['connection-health', id] as const,
  alerts: ['connection-health', 'alerts'] as const,
};

/** GET /whatsapp/{id}/health (admins): the connection's timeline, uptime and outages (docs/connection-health.md). */
export function useConnectionHealth(id: number | null) {
  return useQuery({
    queryKey: healthKeys.one(id ?? 0),
    queryFn: () => api.get<ConnectionHealth>(`/whatsapp/${id}/health`),
    enabled: id !== null,
    staleTime: 10_000,
  });
}

/**
 * GET /connection-alerts (admins): outages told and still lasting, and those back in the last hour; the
 * `company-{id}-connectionAlert` event adds or replaces one live (and refreshes its connection's health).
 */
export function useConnectionAlerts(enabled: boolean) {
  const client = useQueryClient();
  const query = useQuery({
    queryKey: healthKeys.alerts,
    queryFn: () => api.get<ConnectionAlertList>('/connection-alerts').then((r) => r.alerts),
    enabled,
    staleTime: 60_000,
  });
  useCompanyEvent(
    'connectionAlert',
    (e) => {
      client.setQueryData<ConnectionIncident[]>(healthKeys.alerts, (list = []) => [
        e.alert,
        ...list.filter((a) => a.id !== e.alert.id),
      ]);
      void client.invalidateQueries({ queryKey: healthKeys.one(e.alert.whatsappId) });
    },
    enabled,
  );
  return query;
}
