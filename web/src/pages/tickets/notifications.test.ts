import { describe, expect, test } from 'vitest';
import { QueryClient } from '@tanstack/react-query';
import type { TicketView } from '@recado/contracts';
import { mayNotify } from './notifications.js';
import { matchRanges, messageMatches } from './ticket-format.js';
import { originOf, safeUrl } from './SourceStrip.js';
import {
  applyNotificationEvent,
  concernsViewer,
  mergeNotifications,
  notificationKeys,
} from '../../layout/useNotificationTickets.js';
import type { MessageView } from '../../api/messages.js';
import { ticketFits, type TicketFilter } from '../../api/tickets.js';

const user = {
  id: 2,
  profile: 'user' as const,
  super: false,
  queues: [{ id: 10, name: 'Vendas', color: '#0a0' }],
  showQueuelessTickets: false,
  allTicket: 'desabled' as const,
};

const ticket = (id: number, over: Partial<TicketView> = {}) =>
  ({
    id,
    uuid: `u-${id}`,
    status: 'pending',
    userId: null,
    queueId: 10,
    unreadMessages: 1,
    updatedAt: `2024-05-0${id}T10:00:00.000Z`,
    ...over,
  }) as TicketView;

describe('who hears about a ticket (docs/visibility.md)', () => {
  test('own tickets, own queues; another attendant’s ticket never', () => {
    expect(mayNotify({ userId: 2, queueId: 99, status: 'open' }, user)).toBe(true);
    expect(mayNotify({ userId: 3, queueId: 10, status: 'open' }, user)).toBe(false);
    expect(mayNotify({ userId: null, queueId: 10, status: 'pending' }, user)).toBe(true);
    expect(mayNotify({ userId: null, queueId: 11, status: 'pending' }, user)).toBe(false);
    expect(mayNotify({ userId: null, queueId: null, status: 'pending' }, user)).toBe(false);
    expect(mayNotify({ userId: null, queueId: null }, { ...user, showQueuelessTickets: true })).toBe(true);
  });
  test('allTicket enabled: every waiting ticket; admins see all', () => {
    const all = { ...user, allTicket: 'enabled' as const };
    expect(mayNotify({ userId: null, queueId: 11, status: 'pending' }, all)).toBe(true);
    expect(mayNotify({ userId: null, queueId: 11, status: 'open' }, all)).toBe(false);
    expect(mayNotify({ userId: null, queueId: 11, status: 'pending' }, { ...user, profile: 'admin' })).toBe(
      true,
    );
  });
});

describe('live waiting list with allTicket', () => {
  test('every queue’s waiting tickets fit, within the picked queues; other lists do not widen', () => {
    const viewer = {
      id: 2,
      profile: 'user',
      queueIds: [10],
      showQueuelessTickets: false,
      allTicket: 'enabled',
    };
    const filter: TicketFilter = {
      status: 'pending',
      searchParam: '',
      showAll: false,
      queueIds: [],
      users: [],
      tags: [],
    };
    const other = {
      ...ticket(1, { queueId: 11 }),
      tags: [],
      contact: { name: 'A', number: '1' },
    } as unknown as TicketView;
    expect(ticketFits(filter, other, viewer)).toBe(true);
    expect(ticketFits({ ...filter, queueIds: [10] }, other, viewer)).toBe(false);
    expect(ticketFits(filter, other, { ...viewer, allTicket: 'desabled' })).toBe(false);
    expect(ticketFits({ ...filter, status: 'closed' }, { ...other, status: 'closed' }, viewer)).toBe(false);
    expect(ticketFits(filter, { ...other, queueId: null }, viewer)).toBe(false);
  });
});

describe('the notifications list', () => {
  test('newest first, a ticket in both lists once', () => {
    const merged = mergeNotifications(
      [ticket(1), ticket(3)],
      [ticket(2, { status: 'open', userId: 2 }), ticket(3)],
    );
    expect(merged.map((t) => t.id)).toEqual([3, 2, 1]);
  });

  test('events settle at once: accepted leaves "waiting", read leaves "unread", deleted leaves both', () => {
    const client = new QueryClient();
    client.setQueryData(notificationKeys.pending, { tickets: [ticket(1), ticket(2)], hasMore: false });
    client.setQueryData(notificationKeys.unread, {
      tickets: [ticket(3, { status: 'open', userId: 2 }), ticket(4, { status: 'open', userId: 2 })],
      hasMore: false,
    });
    const ids = (key: readonly unknown[]) =>
      client.getQueryData<{ tickets: TicketView[] }>(key)!.tickets.map((t) => t.id);
    applyNotificationEvent(client, { action: 'update', ticket: ticket(1, { status: 'open' }) });
    expect(ids(notificationKeys.pending)).toEqual([2]);
    applyNotificationEvent(client, { action: 'updateUnread', ticketId: 3 });
    expect(ids(notificationKeys.unread)).toEqual([4]);
    applyNotificationEvent(client, { action: 'update', ticket: ticket(4, { status: 'closed' }) });
    expect(ids(notificationKeys.unread)).toEqual([]);
    applyNotificationEvent(client, { action: 'delete', ticketId: 2 });
    expect(ids(notificationKeys.pending)).toEqual([]);
  });

  test('only events that may change the lists ask for a read', () => {
    const shown = new Set([7]);
    expect(concernsViewer({ id: 7, status: 'closed' }, user, shown)).toBe(true);
    expect(concernsViewer({ id: 8, status: 'pending', queueId: 10, userId: null }, user, shown)).toBe(true);
    expect(concernsViewer({ id: 8, status: 'pending', queueId: 11, userId: null }, user, shown)).toBe(false);
    expect(concernsViewer({ id: 9, status: 'open', userId: 2 }, user, shown)).toBe(true);
    expect(concernsViewer({ id: 9, status: 'open', userId: 3 }, user, shown)).toBe(false);
    expect(concernsViewer(undefined, user, shown)).toBe(false);
  });
});

describe('search inside a conversation', () => {
  test('ignores case and accents, and marks the original text', () => {
    expect(matchRanges('Ação confirmada, AÇÃO feita', 'acao')).toEqual([
      [0, 4],
      [17, 21],
    ]);
    expect(matchRanges('Pedido 123', '  pedido ')).toEqual([[0, 6]]);
    expect(matchRanges('😀 olá', 'OLA')).toEqual([[3, 6]]);
    expect(matchRanges('nada', '')).toEqual([]);
  });
  test('a deleted message never matches; a file name does', () => {
    const m = { body: 'boleto', isDeleted: false, mediaName: null } as MessageView;
    expect(messageMatches(m, 'bol')).toBe(true);
    expect(messageMatches({ ...m, isDeleted: true }, 'bol')).toBe(false);
    expect(messageMatches({ ...m, body: '', mediaName: 'Boleto-maio.pdf' }, 'maio')).toBe(true);
  });
});

describe('campaign-source strip', () => {
  test('only http(s) links; origin joins source and medium', () => {
    expect(safeUrl('https://ads.example.com/p?id=1')).toBe('https://ads.example.com/p?id=1');
    expect(safeUrl('javascript:alert(1)')).toBeNull();
    expect(safeUrl('not a url')).toBeNull();
    expect(safeUrl(undefined)).toBeNull();
    expect(originOf({ source: 'facebook', medium: 'cpc' })).toBe('facebook / cpc');
    expect(originOf({ source: 'instagram', medium: '' })).toBe('instagram');
  });
});
