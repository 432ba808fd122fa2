import { useEffect } from 'react';
import { useMutation, useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
import type { Schedule, ScheduleInput, SchedulePage, ScheduleUpdate } from '@recado/contracts';
import { api } from './client.js';
import { useCompanyEvent } from '../realtime/useCompanyEvent.js';
import { joinRoom, leaveRoom } from '../realtime/socket.js';

export const scheduleKeys = {
  all: ['schedules'] as const,
  ranges: () => ['schedules', 'range'] as const,
  range: (from: string, to: string) => ['schedules', 'range', from, to] as const,
  detail: (id: number) => ['schedules', 'detail', id] as const,
};

const bySendAt = (a: Schedule, b: Schedule) => Date.parse(a.sendAt) - Date.parse(b.sendAt) || a.id - b.id;

/** Puts a created or changed schedule into every cached calendar range that holds its time. */
export function putSchedule(client: QueryClient, schedule: Schedule) {
  const at = Date.parse(schedule.sendAt);
  for (const [key, list] of client.getQueriesData<Schedule[]>({ queryKey: scheduleKeys.ranges() })) {
    if (!list) continue;
    const from = Date.parse(String(key[2]));
    const to = Date.parse(String(key[3]));
    const current = list.find((s) => s.id === schedule.id);
    // An older snapshot never replaces a newer one (answers and events may cross).
    if (current && Date.parse(current.updatedAt) > Date.parse(schedule.updatedAt)) continue;
    const rest = list.filter((s) => s.id !== schedule.id);
    client.setQueryData<Schedule[]>(key, at >= from && at < to ? [...rest, schedule].sort(bySendAt) : rest);
  }
  client.setQueryData(scheduleKeys.detail(schedule.id), schedule);
}

export function dropSchedule(client: QueryClient, id: number) {
  client.setQueriesData<Schedule[]>({ queryKey: scheduleKeys.ranges() }, (list) =>
    list?.filter((s) => s.id !== id),
  );
  client.removeQueries({ queryKey: scheduleKeys.detail(id) });
}

/** Every schedule with from <= sendAt < to (the calendar's visible weeks). */
export function useScheduleRange(from: Date, to: Date, enabled = true) {
  const f = from.toISOString();
  const tt = to.toISOString();
  return useQuery({
    queryKey: scheduleKeys.range(f, tt),
    queryFn: async ({ signal }) => {
      const out: Schedule[] = [];
      for (let pageNumber = 1; pageNumber <= 20; pageNumber++) {
        const page = await api.get<SchedulePage>('/schedules', { from: f, to: tt, pageNumber });
        out.push(...page.schedules);
        if (!page.hasMore || signal.aborted) break;
      }
      return out;
    },
    enabled,
  });
}

/**
 * `company-{id}-schedule` patches the cached calendar ranges (status changes as the sender works too). The
 * schedules of tickets come only through the 'schedules' rooms of the tickets this user may see
 * (docs/visibility.md): the screen joins them, and reads again each time the join is confirmed (first time,
 * after a reconnection) for what happened in between.
 */
export function useSchedulesRealtime(enabled = true) {
  const client = useQueryClient();
  useEffect(() => {
    if (!enabled) return;
    const reread = () => void client.invalidateQueries({ queryKey: scheduleKeys.ranges() });
    joinRoom('schedules', reread);
    return () => leaveRoom('schedules', reread);
  }, [client, enabled]);
  useCompanyEvent(
    'schedule',
    (e) => {
      if (e.action === 'delete') dropSchedule(client, Number(e.scheduleId));
      else if (e.schedule) putSchedule(client, e.schedule);
    },
    enabled,
  );
}

export function useSaveSchedule() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (args: { id?: number; input: ScheduleInput | ScheduleUpdate }) =>
      args.id
        ? api.put<Schedule>(`/schedules/${args.id}`, args.input)
        : api.post<Schedule>('/schedules', args.input),
    onSuccess: (s) => putSchedule(client, s),
  });
}

export function useDeleteSchedule() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => api.delete<{ message: string }>(`/schedules/${id}`),
    onSuccess: (_a, id) => dropSchedule(client, id),
  });
}

export function useScheduleMedia() {
  const client = useQueryClient();
  const upload = useMutation({
    mutationFn: ({ id, file }: { id: number; file: File }) => {
      const form = new FormData();
      form.append('file', file, file.name);
      return api.post<Schedule>(`/schedules/${id}/media-upload`, form);
    },
    onSuccess: (s) => putSchedule(client, s),
  });
  const remove = useMutation({
    mutationFn: (id: number) => api.delete<Schedule>(`/schedules/${id}/media-upload`),
    onSuccess: (s) => putSchedule(client, s),
  });
  return { upload, remove };
}
