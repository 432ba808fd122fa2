import { useEffect } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  CLIENT_EVENTS,
  PRESENCE_AWAY_MINUTES_DEFAULT,
  can,
  type LiveView,
  type Presence,
  type PresenceView,
  type RoutingUserStats,
} from '@recado/contracts';
import { api } from './client.js';
import { useAuth } from '../app/auth.js';
import { useCompanyEvent } from '../realtime/useCompanyEvent.js';
import { getSocket, joinRoom, leaveRoom } from '../realtime/socket.js';
import { useSetting } from './settings.js';

/** #30.2 The signed-in user's presence and #30.8 the live view (docs/routing.md). */
export const presenceKeys = {
  mine: ['presence', 'me'] as const,
  live: ['live'] as const,
  routing: ['live', 'routing-stats'] as const,
};

/** Colour of each presence's dot (theme palette paths). */
export const PRESENCE_COLOR: Record<Presence, string> = {
  online: 'success.main',
  away: 'warning.main',
  offline: 'text.disabled',
};

/** GET /users/me/presence, kept current by `company-{id}-presence` (this user's changes, from any tab or process). */
export function useMyPresence() {
  const { user } = useAuth();
  const client = useQueryClient();
  useCompanyEvent('presence', (e) => {
    if (e.presence.userId === user?.id) client.setQueryData(presenceKeys.mine, e.presence);
  });
  return useQuery({
    queryKey: presenceKeys.mine,
    queryFn: () => api.get<PresenceView>('/users/me/presence'),
    enabled: Boolean(user),
  });
}

/** PUT /users/me/presence: the top-bar switch. */
export function useSetPresence() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (presence: Presence) => api.put<PresenceView>('/users/me/presence', { presence }),
    onSuccess: (view) => client.setQueryData(presenceKeys.mine, view),
  });
}

const ACTIVITY = ['pointerdown', 'pointermove', 'keydown', 'wheel', 'touchstart', 'focus'] as const;

/**
 * Reports idleness to the server: no activity in the app for the company's `presenceAwayMinutes` sends
 * `presenceIdle` (an online user becomes away); the next activity sends `presenceActive`. 0 turns it off.
 */
export function useIdleReport() {
  const { user } = useAuth();
  const raw = useSetting('presenceAwayMinutes');
  const minutes = Number.parseInt(raw, 10);
  const awayMs = (Number.isFinite(minutes) ? minutes : PRESENCE_AWAY_MINUTES_DEFAULT) * 60_000;
  useEffect(() => {
    if (!user || awayMs <= 0) return;
    let idle = false;
    let last = Date.now();
    const onActivity = () => {
      last = Date.now();
      if (idle) {
        idle = false;
        getSocket().emit(CLIENT_EVENTS.presenceActive);
      }
    };
    const check = window.setInterval(
      () => {
        if (!idle && Date.now() - last >= awayMs) {
          idle = true;
          getSocket().emit(CLIENT_EVENTS.presenceIdle);
        }
      },
      Math.min(15_000, Math.max(1000, awayMs / 4)),
    );
    const onVisible = () => {
      if (document.visibilityState === 'visible') onActivity();
    };
    for (const e of ACTIVITY) window.addEventListener(e, onActivity, { passive: true });
    document.addEventListener('visibilitychange', onVisible);
    return () => {
      window.clearInterval(check);
      for (const e of ACTIVITY) window.removeEventListener(e, onActivity);
      document.removeEventListener('visibilitychange', onVisible);
    };
  }, [user, awayMs]);
}

/**
 * GET /live, then live: the room `live` (admins and supervisors; the server checks) pushes the whole view
 * on every change, at most once a second; a read every 30 s keeps the time-based figures honest, and again
 * whenever the room is (re)joined.
 */
export function useLive() {
  const { user } = useAuth();
  const client = useQueryClient();
  const allowed = can(user, 'live:view') || Boolean(user?.super);
  useCompanyEvent(
    'live',
    (e) => {
      if (e.action === 'update') client.setQueryData(presenceKeys.live, e.live);
    },
    allowed,
  );
  useEffect(() => {
    if (!allowed) return;
    const reread = () => void client.invalidateQueries({ queryKey: presenceKeys.live });
    joinRoom('live', reread);
    return () => leaveRoom('live', reread);
  }, [allowed, client]);
  return useQuery({
    queryKey: presenceKeys.live,
    queryFn: () => api.get<LiveView>('/live'),
    enabled: allowed,
    refetchInterval: 30_000,
  });
}

/**
 * #30.1 Per attendant, the tickets routing gave them and those they skipped in the last 24 h (GET
 * /routing/stats, admins and supervisors): read again with the live view (its key sits under `live`).
 */
export function useRoutingStats() {
  const { user } = useAuth();
  const allowed = can(user, 'live:view') || Boolean(user?.super);
  return useQuery({
    queryKey: presenceKeys.routing,
    queryFn: async () => {
      const list = await api.get<RoutingUserStats[]>('/routing/stats');
      return new Map(list.map((s) => [s.userId, s]));
    },
    enabled: allowed,
    refetchInterval: 60_000,
  });
}
