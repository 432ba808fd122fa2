import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type {
  ChannelKindName,
  ClosingStats,
  DashboardCounters,
  SourceTrackingList,
  TicketsPerChannel,
  TicketsPerDay,
  TicketsPerUser,
} from '@recado/contracts';
import { api } from './client.js';

/** What the dashboard asks for: a period of days (filter type 2) or a date range (type 1). */
export type DashboardFilter =
  | { type: 2; days: number; queueId?: number; whatsappId?: number; channel?: ChannelKindName }
  | { type: 1; from: string; to: string; queueId?: number; whatsappId?: number; channel?: ChannelKindName };

export interface DashboardRange {
  initialDate: string;
  finalDate: string;
  queueId?: number;
  whatsappId?: number;
  /** #34.4 Only the tickets of this channel's connections. */
  channel?: ChannelKindName;
}

export const dashboardKeys = {
  all: ['dashboard'] as const,
  counters: (f: DashboardFilter) => ['dashboard', 'counters', f] as const,
  chart: (name: string, r: DashboardRange | null) => ['dashboard', name, r] as const,
};

const scopeParams = (s: { queueId?: number; whatsappId?: number; channel?: ChannelKindName }) => ({
  ...(s.queueId ? { queueId: s.queueId } : {}),
  ...(s.whatsappId ? { whatsappId: s.whatsappId } : {}),
  ...(s.channel ? { channel: s.channel } : {}),
});

/** GET /dashboard: counters and attendants; refreshed every minute while the screen is open. */
export function useDashboardCounters(filter: DashboardFilter | null) {
  return useQuery({
    queryKey: dashboardKeys.counters(filter ?? { type: 2, days: 0 }),
    enabled: filter !== null,
    placeholderData: keepPreviousData,
    refetchInterval: 60_000,
    queryFn: () =>
      api.get<DashboardCounters>(
        '/dashboard',
        filter!.type === 2
          ? { days: filter!.days, ...scopeParams(filter!) }
          : { date_from: filter!.from, date_to: filter!.to, ...scopeParams(filter!) },
      ),
  });
}

function useRangeQuery<T>(name: string, path: string, range: DashboardRange | null) {
  return useQuery({
    queryKey: dashboardKeys.chart(name, range),
    enabled: range !== null,
    placeholderData: keepPreviousData,
    refetchInterval: 60_000,
    queryFn: () =>
      api.get<T>(path, {
        initialDate: range!.initialDate,
        finalDate: range!.finalDate,
        ...scopeParams(range!),
      }),
  });
}

export const useTicketsPerUser = (r: DashboardRange | null) =>
  useRangeQuery<TicketsPerUser[]>('ticketsUsers', '/dashboard/ticketsUsers', r);
export const useTicketsPerDay = (r: DashboardRange | null) =>
  useRangeQuery<TicketsPerDay[]>('ticketsDay', '/dashboard/ticketsDay', r);
/** #34.4 GET /dashboard/ticketsChannel: tickets created, closed and active per channel. */
export const useTicketsPerChannel = (r: DashboardRange | null) =>
  useRangeQuery<TicketsPerChannel[]>('ticketsChannel', '/dashboard/ticketsChannel', r);
export const useSourceTracking = (r: DashboardRange | null) =>
  useRangeQuery<SourceTrackingList>('sourceTracking', '/dashboard/sourceTracking', r);
/** #32.3 GET /dashboard/closing: the period's closed tickets by reason and by attendant. */
export const useClosingStats = (r: DashboardRange | null) =>
  useRangeQuery<ClosingStats>('closing', '/dashboard/closing', r);

/** GET /dashboard/export: the period's tickets as CSV, saved by the browser. */
export async function downloadDashboardCsv(range: DashboardRange) {
  const csv = await api.get<string>('/dashboard/export', {
    initialDate: range.initialDate,
    finalDate: range.finalDate,
    ...scopeParams(range),
  });
  const url = URL.createObjectURL(new Blob([csv], { type: 'text/csv;charset=utf-8' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = `atendimentos-${range.initialDate}-${range.finalDate}.csv`;
  document.body.appendChild(a);
  a.click();
  a.remove();
  window.setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
