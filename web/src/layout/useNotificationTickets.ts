import { useCallback, useEffect, useMemo, useRef } from 'react';
import { useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
import type { TicketView } from '@recado/contracts';
import { request } from '../api/client.js';
import type { TicketEvent } from '../api/tickets.js';

import { joinNotification, joinTickets } from '../realtime/socket.js';
import { useCompanyEvent } from '../realtime/useCompanyEvent.js';
import { useAuth } from '../app/auth.js';
import { mayNotify } from '../pages/tickets/notifications.js';

interface TicketPage {
  tickets: TicketView[];
  hasMore: boolean;
}

/** Under 'tickets', so whatever refreshes every ticket query refreshes these too. */
export const notificationKeys = {
  all: ['tickets', 'notifications'] as const,
  pending: ['tickets', 'notifications', 'pending'] as const,
  unread: ['tickets', 'notifications', 'unread'] as const,
};

/** Events come in bursts (a customer sending five messages): one read per burst, at most one a second. */
const REFRESH_DELAY_MS = 300;
const REFRESH_EVERY_MS = 1000;

/** Newest first: the server's order (updatedAt desc, then id desc), over both lists. */
export function mergeNotifications(pending: TicketView[] = [], unread: TicketView[] = []): TicketView[] {
  const byId = new Map<number, TicketView>();
  for (const t of [...pending, ...unread]) {
    const seen = byId.get(t.id);
    if (!seen || Date.parse(t.updatedAt) >= Date.parse(seen.updatedAt)) byId.set(t.id, t);
  }
  return [...byId.values()].sort((a, b) => Date.parse(b.updatedAt) - Date.parse(a.updatedAt) || b.id - a.id);
}

/** What an event settles at once, before the lists are read again. */
export function applyNotificationEvent(client: QueryClient, e: TicketEvent) {
  const drop = (key: readonly unknown[], gone: (t: TicketView) => boolean) =>
    client.setQueryData<TicketPage>(key, (page) =>
      page ? { ...page, tickets: page.tickets.filter((t) => !gone(t)) } : page,
    );
  if (e.action === 'delete') {
    const id = Number(e.ticketId);
    drop(notificationKeys.pending, (t) => t.id === id);
    drop(notificationKeys.unread, (t) => t.id === id);
  } else if (e.action === 'updateUnread') {
    const id = Number(e.ticketId);
    if (!e.ticket || e.ticket.unreadMessages === 0) drop(notificationKeys.unread, (t) => t.id === id);
  } else if (e.ticket) {
    const { id, status } = e.ticket;
    if (status && status !== 'pending') drop(notificationKeys.pending, (t) => t.id === id);
    if (status && status !== 'open') drop(notificationKeys.unread, (t) => t.id === id);
  }
}

type Viewer = Parameters<typeof mayNotify>[1];
type TicketLike = Partial<TicketView> & { id: number };

/**
 * Whether a ticket (from an event) may change these lists: one of them shows it, or it is waiting where
 * the user may see it, or it is the user's own open ticket. The notification room hears the whole
 * company; the rest is not worth a read.
 */
export function concernsViewer(ticket: TicketLike | undefined, viewer: Viewer, shown: Set<number>) {
  if (!ticket) return false;
  if (shown.has(ticket.id)) return true;
  if (ticket.status === 'pending') return mayNotify(ticket, viewer);
  return ticket.status === 'open' && ticket.userId === viewer.id;
}

const fetchPage = (params: Record<string, string>, signal: AbortSignal) =>
  request<TicketPage>('GET', '/tickets', { params: { pageNumber: '1', ...params }, signal });

/**
 * The top bar's notifications (docs/product.md#screens, docs/visibility.md): tickets waiting (GET /tickets?status=pending: the server
 * decides which the user may see, allTicket included) and the user's open tickets with unread messages,
 * newest first. Kept live from the notification and status rooms: events settle what they can at once
 * and the lists are read again, throttled.
 */
export function useNotificationTickets(enabled: boolean) {
  const client = useQueryClient();
  const { user } = useAuth();
  const pending = useQuery({
    queryKey: notificationKeys.pending,
    queryFn: ({ signal }) => fetchPage({ status: 'pending' }, signal),
    enabled,
    staleTime: 30_000,
  });
  const unread = useQuery({
    queryKey: notificationKeys.unread,
    queryFn: ({ signal }) => fetchPage({ status: 'open', withUnreadMessages: 'true' }, signal),
    enabled,
    staleTime: 30_000,
  });

  const timer = useRef<number | null>(null);
  const lastRead = useRef(0);
  const refresh = useCallback(() => {
    if (timer.current !== null) return;
    const wait = Math.max(REFRESH_DELAY_MS, REFRESH_EVERY_MS - (Date.now() - lastRead.current));
    timer.current = window.setTimeout(() => {
      timer.current = null;
      lastRead.current = Date.now();
      void client.invalidateQueries({ queryKey: notificationKeys.all });
    }, wait);
  }, [client]);
  useEffect(
    () => () => {
      if (timer.current !== null) window.clearTimeout(timer.current);
      timer.current = null;
    },
    [],
  );

  useEffect(() => {
    if (!enabled) return;
    // Once the server confirms the notification rooms (first time, and back from a lost connection),
    // the lists are read again: what happened between the first read and the join was never heard.
    const release = [joinNotification(refresh), joinTickets('pending'), joinTickets('open')];
    return () => {
      release.forEach((leave) => leave());
    };
  }, [enabled, refresh]);

  const tickets = useMemo(
    () => mergeNotifications(pending.data?.tickets, unread.data?.tickets),
    [pending.data, unread.data],
  );
  const shown = useMemo(() => new Set(tickets.map((t) => t.id)), [tickets]);

  useCompanyEvent(
    'ticket',
    (e) => {
      if (!user) return;
      applyNotificationEvent(client, e);
      if (e.action === 'update' && concernsViewer(e.ticket, user, shown)) refresh();
      else if (e.action === 'updateUnread' && e.ticket?.unreadMessages && shown.has(e.ticket.id)) refresh();
    },
    enabled,
  );
  useCompanyEvent(
    'appMessage',
    (e) => {
      if (!user || e.action !== 'create' || !e.message || e.message.fromMe) return;
      if (concernsViewer(e.ticket, user, shown)) refresh();
    },
    enabled,
  );
  return {
    tickets,
    /** More than one page waits: the count is "at least". */
    more: Boolean(pending.data?.hasMore || unread.data?.hasMore),
    loading: pending.isLoading || unread.isLoading,
    error: pending.isError && unread.isError,
  };
}
