import { useQuery } from '@tanstack/react-query';
import type { Help } from '@recado/contracts';
import { api } from './client.js';

export const HELPS_KEY = ['helps'] as const;

/** The help videos every signed-in user sees (GET /api/helps). */
export function useHelps() {
  return useQuery({ queryKey: HELPS_KEY, queryFn: () => api.get<Help[]>('/helps') });
}
