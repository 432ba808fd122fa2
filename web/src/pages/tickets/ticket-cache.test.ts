import { describe, expect, test } from 'vitest';
import { QueryClient } from '@tanstack/react-query';
import type { TicketView } from '@recado/contracts';
import {
  mergeTicket,
  putTicket,
  ticketFits,
  ticketKeys,
  type TicketFilter,
  type Viewer,
} from '../../api/tickets.js';
import {
  flattenMessages,
  normalizeMessage,
  putMessage,
  mergeNewestPage,
  type MessageData,
  type MessageView,
} from '../../api/messages.js';
import type { ListData } from '../../components/useInfiniteList.js';
import {
  FIRST_INDEX_BASE,
  audioFileOf,
  chatRows,
  cutLabel,
  firstItemIndex,
  signBody,
} from './ticket-format.js';

const admin: Viewer = { id: 1, profile: 'admin', queueIds: [], showQueuelessTickets: true };
const agent: Viewer = { id: 2, profile: 'user', queueIds: [10], showQueuelessTickets: false };

const ticket = (over: Partial<TicketView> = {}): TicketView => ({
  id: 1,
  uuid: 'u-1',
  status: 'pending',
  contactId: 5,
  contact: { id: 5, name: 'Maria', number: '5511988887777', email: '', profilePicUrl: '', isGroup: false },
  queueId: null,
  queue: null,
  userId: null,
  user: null,
  whatsappId: 3,
  whatsapp: { id: 3, name: 'Simulador', channel: 'simulator' },
  lastMessage: 'oi',
  unreadMessages: 1,
  isGroup: false,
  chatbot: false,
  useIntegration: false,
  integrationId: null,
  promptId: null,
  priority: 'normal',
  protocol: '20260101-000001',
  snoozedUntil: null,
  snoozeUntilReply: false,
  snoozedAt: null,
  sla: {
    firstResponseDueAt: null,
    nextResponseDueAt: null,
    resolutionDueAt: null,
    breached: [],
    atRiskAt: null,
  },
  tags: [],
  ticketSourceTracking: [],
  createdAt: '2026-01-01T10:00:00.000Z',
  updatedAt: '2026-01-01T10:00:00.000Z',
  ...over,
});

const filter = (over: Partial<TicketFilter> = {}): TicketFilter => ({
  searchParam: '',
  showAll: false,
  queueIds: [],
  users: [],
  tags: [],
  ...over,
});

describe('ticketFits mirrors the server lists', () => {
  test('status and "assigned" (open = mine unless show all)', () => {
    expect(ticketFits(filter({ status: 'pending' }), ticket(), admin)).toBe(true);
    expect(ticketFits(filter({ status: 'open' }), ticket(), admin)).toBe(false);
    const others = ticket({ status: 'open', userId: 9 });
    expect(ticketFits(filter({ status: 'open' }), others, admin)).toBe(false);
    expect(ticketFits(filter({ status: 'open', showAll: true }), others, admin)).toBe(true);
    expect(ticketFits(filter({ status: 'open' }), ticket({ status: 'open', userId: 1 }), admin)).toBe(true);
  });
  test("a non-admin sees their queues' pending tickets, queueless ones only when allowed", () => {
    const f = filter({ status: 'pending' });
    expect(ticketFits(f, ticket({ queueId: 10 }), agent)).toBe(true);
    expect(ticketFits(f, ticket({ queueId: 11 }), agent)).toBe(false);
    expect(ticketFits(f, ticket({ queueId: null }), agent)).toBe(false);
    expect(ticketFits(f, ticket({ queueId: null }), { ...agent, showQueuelessTickets: true })).toBe(true);
  });
  test("#34.4 the channel filter: a ticket fits when its connection's channel is one of those picked", () => {
    const on = (channel: string) => ticket({ whatsapp: { id: 3, name: 'Canal', channel } });
    const f = filter({ status: 'pending', channels: ['telegram', 'webchat'] });
    expect(ticketFits(f, on('telegram'), admin)).toBe(true);
    expect(ticketFits(f, on('webchat'), admin)).toBe(true);
    expect(ticketFits(f, on('baileys'), admin)).toBe(false);
    expect(ticketFits(f, ticket({ whatsapp: null }), admin)).toBe(false);
    expect(ticketFits(filter({ status: 'pending', channels: [] }), on('baileys'), admin)).toBe(true);
  });
  test('searches: a name match fits; otherwise unknown (message text)', () => {
    expect(ticketFits(filter({ searchParam: 'mar' }), ticket(), admin)).toBe(true);
    expect(ticketFits(filter({ searchParam: '8888' }), ticket(), admin)).toBe(true);
    expect(ticketFits(filter({ searchParam: 'pedido' }), ticket(), admin)).toBeNull();
  });
  test('searches are blind to accents and case, as on the server (docs/search.md)', () => {
    const joao = ticket({ contact: { ...ticket().contact, name: 'João Lúcio' } });
    for (const searchParam of ['joao', 'JOAO', 'João', 'lucio', 'LÚCIO'])
      expect(ticketFits(filter({ searchParam }), joao, admin), searchParam).toBe(true);
    expect(ticketFits(filter({ searchParam: 'maria' }), joao, admin)).toBeNull();
  });
});

function seed(client: QueryClient, f: TicketFilter, items: TicketView[], hasMore = false) {
  client.setQueryData<ListData<TicketView>>(ticketKeys.list(f), {
    pages: [{ items, hasMore }],
    pageParams: [1],
  });
}
const ids = (client: QueryClient, f: TicketFilter) =>
  client
    .getQueryData<ListData<TicketView>>(ticketKeys.list(f))!
    .pages.flatMap((p) => p.items.map((i) => i.id));

describe('putTicket patches every cached list', () => {
  test('a status change leaves one list and enters the other, sorted by updatedAt', () => {
    const client = new QueryClient();
    const pending = filter({ status: 'pending' });
    const open = filter({ status: 'open' });
    seed(client, pending, [ticket({ id: 1 }), ticket({ id: 2, updatedAt: '2026-01-01T09:00:00.000Z' })]);
    seed(client, open, [ticket({ id: 3, status: 'open', userId: 1, updatedAt: '2026-01-01T09:30:00.000Z' })]);
    putTicket(
      client,
      ticket({ id: 2, status: 'open', userId: 1, updatedAt: '2026-01-01T11:00:00.000Z' }),
      admin,
    );
    expect(ids(client, pending)).toEqual([1]);
    expect(ids(client, open)).toEqual([2, 3]);
  });
  test('an update moves the row to the top; a row past a page with more is left for paging', () => {
    const client = new QueryClient();
    const pending = filter({ status: 'pending' });
    seed(
      client,
      pending,
      [ticket({ id: 1 }), ticket({ id: 2, updatedAt: '2026-01-01T09:00:00.000Z' })],
      true,
    );
    putTicket(client, ticket({ id: 2, updatedAt: '2026-01-02T09:00:00.000Z' }), admin);
    expect(ids(client, pending)).toEqual([2, 1]);
    putTicket(client, ticket({ id: 7, updatedAt: '2025-01-01T00:00:00.000Z' }), admin);
    expect(ids(client, pending)).toEqual([2, 1]);
  });
  test('a search list refreshes rows it shows but does not guess new ones', () => {
    const client = new QueryClient();
    const search = filter({ searchParam: 'pedido' });
    seed(client, search, [ticket({ id: 1 })]);
    putTicket(client, ticket({ id: 1, lastMessage: 'novo' }), admin);
    putTicket(client, ticket({ id: 2 }), admin);
    const rows = client.getQueryData<ListData<TicketView>>(ticketKeys.list(search))!.pages[0]!.items;
    expect(rows.map((r) => [r.id, r.lastMessage])).toEqual([[1, 'novo']]);
  });
});

test('mergeTicket keeps the relations of a partial (inbound) ticket, or asks for the full view', () => {
  const cached = ticket({ queueId: 4, queue: { id: 4, name: 'Vendas', color: '#f00' } });
  const raw = {
    id: 1,
    status: 'pending' as const,
    queueId: 4,
    unreadMessages: 3,
    lastMessage: 'de novo',
    contact: cached.contact,
  };
  const merged = mergeTicket(raw, cached)!;
  expect(merged.queue?.name).toBe('Vendas');
  expect(merged.unreadMessages).toBe(3);
  expect(merged.whatsapp?.name).toBe('Simulador');
  expect(mergeTicket({ ...raw, queueId: 5 }, cached)).toBeNull();
  expect(mergeTicket(raw, undefined)).toBeNull();
  expect(mergeTicket(ticket({ lastMessage: 'full' }), undefined)?.lastMessage).toBe('full');
});

const message = (over: Partial<MessageView> = {}): MessageView => ({
  id: 1,
  ticketId: 1,
  body: 'oi',
  mediaType: null,
  mediaUrl: null,
  mediaName: null,
  fromMe: false,
  ack: 0,
  read: false,
  isDeleted: false,
  isEdited: false,
  userId: null,
  createdAt: '2026-01-01T10:00:00.000Z',
  updatedAt: '2026-01-01T10:00:00.000Z',
  quotedMsg: null,
  contact: null,
  data: null,
  ...over,
});

describe('messages cache', () => {
  test('a stored row becomes a view: media path, quoted message from the cache, acks never go back', () => {
    const quoted = message({ id: 5, body: 'pergunta' });
    const row = {
      id: 9,
      ticketId: 1,
      body: 'foto',
      mediaType: 'image',
      mediaUrl: '1/abc.png',
      quotedMsgId: 5,
      ack: 2,
    };
    const view = normalizeMessage(row, undefined, (id) => (id === 5 ? quoted : undefined));
    expect(view.mediaUrl).toBe('/api/messages/9/media');
    expect(view.quotedMsg).toMatchObject({ id: 5, body: 'pergunta' });
    expect(normalizeMessage({ id: 9, ticketId: 1, ack: 1 }, view).ack).toBe(2);
    expect(normalizeMessage({ id: 9, ticketId: 1, isDeleted: true }, view)).toMatchObject({
      body: '',
      mediaUrl: null,
    });
  });
  test('putMessage appends to the newest page and updates in place; pages flatten oldest first', () => {
    const client = new QueryClient();
    const data: MessageData = {
      pages: [
        { messages: [message({ id: 3, createdAt: '2026-01-01T10:03:00.000Z' })], hasMore: true },
        {
          messages: [message({ id: 1 }), message({ id: 2, createdAt: '2026-01-01T10:02:00.000Z' })],
          hasMore: false,
        },
      ],
      pageParams: [1, 2],
    };
    client.setQueryData(['messages', 1], data);
    putMessage(client, {
      id: 4,
      ticketId: 1,
      body: 'nova',
      createdAt: '2026-01-01T10:04:00.000Z',
      fromMe: true,
    });
    putMessage(client, { id: 1, ticketId: 1, ack: 3 });
    const list = flattenMessages(client.getQueryData<MessageData>(['messages', 1]));
    expect(list.map((m) => m.id)).toEqual([1, 2, 3, 4]);
    expect(list[0]!.ack).toBe(3);
  });
  test('a re-read of the newest page keeps the rows added live and takes the fresh copies', () => {
    const at = (n: number) => `2026-01-01T10:${String(n).padStart(2, '0')}:00.000Z`;
    const cached: MessageData = {
      pages: [{ messages: [1, 2, 3, 4].map((id) => message({ id, createdAt: at(id) })), hasMore: false }],
      pageParams: [1],
    };
    // The server's newest page now starts at 3 (more arrived) and has 3 read by the customer.
    const fresh = {
      messages: [message({ id: 3, createdAt: at(3), ack: 3 }), message({ id: 4, createdAt: at(4) })].concat(
        message({ id: 5, createdAt: at(5) }),
      ),
      hasMore: true,
    };
    const merged = mergeNewestPage(cached, fresh);
    expect(merged.messages.map((m) => m.id)).toEqual([1, 2, 3, 4, 5]);
    expect(merged.messages.find((m) => m.id === 3)!.ack).toBe(3);
    expect(merged.hasMore).toBe(true);
    expect(mergeNewestPage(undefined, fresh)).toBe(fresh);
  });
});

describe('chat rows', () => {
  test('day separators, and the first index keeps the anchor in place when older pages arrive', () => {
    const label = (iso: string) => iso.slice(0, 10);
    const newest = [
      message({ id: 3, createdAt: '2026-01-02T10:00:00.000Z' }),
      message({ id: 4, createdAt: '2026-01-02T11:00:00.000Z' }),
    ];
    const rows = chatRows(newest, label);
    expect(rows.map((r) => r.kind)).toEqual(['day', 'message', 'message']);
    expect(firstItemIndex(rows, 3)).toBe(FIRST_INDEX_BASE);
    // Two older messages of the same day: two rows prepended.
    const sameDay = chatRows(
      [
        message({ id: 1, createdAt: '2026-01-02T08:00:00.000Z' }),
        message({ id: 2, createdAt: '2026-01-02T09:00:00.000Z' }),
        ...newest,
      ],
      label,
    );
    expect(firstItemIndex(sameDay, 3)).toBe(FIRST_INDEX_BASE - 2);
    // One older message of another day: its separator and itself.
    const otherDay = chatRows([message({ id: 1, createdAt: '2026-01-01T08:00:00.000Z' }), ...newest], label);
    expect(firstItemIndex(otherDay, 3)).toBe(FIRST_INDEX_BASE - 2);
  });
});

test('input helpers: signature, quick-reply label, recorded audio file', () => {
  expect(signBody('olá', 'Ana', true)).toBe('*Ana*:\nolá');
  expect(signBody('olá', 'Ana', false)).toBe('olá');
  expect(signBody('', 'Ana', true)).toBe('');
  expect(cutLabel('a'.repeat(40))).toBe(`${'a'.repeat(35)}…`);
  expect(audioFileOf('audio/webm;codecs=opus', 42)).toEqual({
    name: 'audio-record-42.webm',
    type: 'audio/webm',
  });
  expect(audioFileOf('audio/mpeg', 42).name).toBe('audio-record-42.mp3');
});
