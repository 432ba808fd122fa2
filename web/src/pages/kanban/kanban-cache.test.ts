import { describe, expect, test } from 'vitest';
import { QueryClient } from '@tanstack/react-query';
import { kanbanLaneOf, type KanbanTickets, type Tag, type TicketView } from '@recado/contracts';
import { dropTag, kanbanKeys, putBoardTicket, putTag, tagKeys } from '../../api/tags.js';
import { ticketKeys } from '../../api/tickets.js';
import type { ListData } from '../../components/useInfiniteList.js';

const tag = (over: Partial<Tag>): Tag => ({
  id: 1,
  companyId: 1,
  name: 'Tag',
  color: '#000001',
  kanban: 0,
  userId: null,
  ticketsCount: 0,
  createdAt: '2026-01-01T10:00:00.000Z',
  updatedAt: '2026-01-01T10:00:00.000Z',
  ...over,
});

const ticket = (over: Partial<TicketView>): TicketView =>
  ({
    id: 1,
    uuid: 'u',
    status: 'open',
    contactId: 1,
    contact: { id: 1, name: 'C', number: '5511', email: '', profilePicUrl: '', isGroup: false },
    queueId: null,
    queue: null,
    userId: null,
    user: null,
    whatsappId: null,
    whatsapp: null,
    lastMessage: '',
    unreadMessages: 0,
    tags: [],
    updatedAt: '2026-01-01T10:00:00.000Z',
    createdAt: '2026-01-01T10:00:00.000Z',
    ...over,
  }) as TicketView;

describe('kanban lanes', () => {
  test('a ticket sits in its kanban tag lane (the first lane when it has two), else in the open lane', () => {
    const lanes = [{ id: 5 }, { id: 7 }];
    expect(kanbanLaneOf(ticket({ tags: [] }), lanes)).toBeNull();
    expect(kanbanLaneOf(ticket({ tags: [{ id: 9, name: 'x', color: '#000000' }] }), lanes)).toBeNull();
    expect(kanbanLaneOf(ticket({ tags: [{ id: 7, name: 'x', color: '#000000' }] }), lanes)).toBe(7);
    const both = ticket({
      tags: [
        { id: 7, name: 'b', color: '#000000' },
        { id: 5, name: 'a', color: '#000000' },
      ],
    });
    expect(kanbanLaneOf(both, lanes)).toBe(5);
  });
});

describe('tag cache', () => {
  test('a tag event updates the lists, the lanes and the tags the cached tickets carry', () => {
    const client = new QueryClient();
    client.setQueryData<ListData<Tag>>(tagKeys.page(''), {
      pages: [{ items: [tag({ id: 1, name: 'Beta' })], hasMore: false }],
      pageParams: [1],
    });
    client.setQueryData<ListData<Tag>>(tagKeys.page('zz'), {
      pages: [{ items: [], hasMore: false }],
      pageParams: [1],
    });
    client.setQueryData<Tag[]>(kanbanKeys.lanes(), [tag({ id: 1, name: 'Beta', kanban: 1 })]);
    client.setQueryData<Tag[]>(tagKeys.options(), [tag({ id: 1, name: 'Beta' })]);
    const tagged = ticket({ id: 10, tags: [{ id: 1, name: 'Beta', color: '#000001' }] });
    client.setQueryData<KanbanTickets>(kanbanKeys.tickets(true), { tickets: [tagged], hasMore: false });
    client.setQueryData<TicketView>(ticketKeys.detail('u'), tagged);

    putTag(client, tag({ id: 2, name: 'alfa', kanban: 1 }));
    putTag(client, tag({ id: 1, name: 'Beta 2', color: '#FF0000', kanban: 0 }));

    const page = client.getQueryData<ListData<Tag>>(tagKeys.page(''))!;
    expect(page.pages[0]!.items.map((x) => x.name)).toEqual(['alfa', 'Beta 2']);
    // A search the tag does not match stays as it is.
    expect(client.getQueryData<ListData<Tag>>(tagKeys.page('zz'))!.pages[0]!.items).toEqual([]);
    // No longer a lane; the new lane joins.
    expect(client.getQueryData<Tag[]>(kanbanKeys.lanes())!.map((x) => x.id)).toEqual([2]);
    expect(client.getQueryData<Tag[]>(tagKeys.options())!.map((x) => x.name)).toEqual(['alfa', 'Beta 2']);
    const board = client.getQueryData<KanbanTickets>(kanbanKeys.tickets(true))!;
    expect(board.tickets[0]!.tags).toEqual([{ id: 1, name: 'Beta 2', color: '#FF0000' }]);
    expect(client.getQueryData<TicketView>(ticketKeys.detail('u'))!.tags[0]!.name).toBe('Beta 2');

    dropTag(client, 1);
    expect(client.getQueryData<ListData<Tag>>(tagKeys.page(''))!.pages[0]!.items.map((x) => x.id)).toEqual([
      2,
    ]);
    expect(client.getQueryData<KanbanTickets>(kanbanKeys.tickets(true))!.tickets[0]!.tags).toEqual([]);
    expect(client.getQueryData<TicketView>(ticketKeys.detail('u'))!.tags).toEqual([]);
  });

  test('a board keeps active tickets newest first, drops closed ones, and ignores older snapshots', () => {
    const client = new QueryClient();
    const old = ticket({ id: 1, updatedAt: '2026-01-01T10:00:00.000Z' });
    client.setQueryData<KanbanTickets>(kanbanKeys.tickets(false), { tickets: [old], hasMore: false });
    putBoardTicket(client, ticket({ id: 2, status: 'pending', updatedAt: '2026-01-01T11:00:00.000Z' }));
    const ids = () => client.getQueryData<KanbanTickets>(kanbanKeys.tickets(false))!.tickets.map((x) => x.id);
    expect(ids()).toEqual([2, 1]);
    putBoardTicket(client, ticket({ id: 2, lastMessage: 'stale', updatedAt: '2026-01-01T09:00:00.000Z' }));
    expect(client.getQueryData<KanbanTickets>(kanbanKeys.tickets(false))!.tickets[0]!.lastMessage).toBe('');
    putBoardTicket(client, ticket({ id: 1, status: 'closed', updatedAt: '2026-01-01T12:00:00.000Z' }));
    expect(ids()).toEqual([2]);
  });
});
