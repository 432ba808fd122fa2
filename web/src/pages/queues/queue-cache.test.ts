import { describe, expect, test } from 'vitest';
import { QueryClient } from '@tanstack/react-query';
import type { Queue, QueueOption, UserView, Whatsapp } from '@recado/contracts';
import { byOptionKey, childrenOf, dropQueue, putQueue, queueKeys, subtreeIds } from '../../api/queues.js';

const queue = (over: Partial<Queue>): Queue => ({
  id: 1,
  companyId: 1,
  name: 'Q',
  color: '#000001',
  orderQueue: null,
  greetingMessage: '',
  outOfHoursMessage: '',
  completionMessage: '',
  schedules: [],
  integrationId: null,
  promptId: null,
  createdAt: '2026-01-01T10:00:00.000Z',
  updatedAt: '2026-01-01T10:00:00.000Z',
  ...over,
});

const option = (id: number, parentId: number | null, key: string): QueueOption => ({
  id,
  queueId: 1,
  parentId,
  title: `T${id}`,
  message: '',
  option: key,
  createdAt: '',
  updatedAt: '',
});

describe('queue cache', () => {
  test('live events keep the list in server order and never go back in time', () => {
    const client = new QueryClient();
    client.setQueryData(queueKeys.list(), [queue({ id: 1, name: 'B', orderQueue: 2 })]);
    putQueue(client, queue({ id: 2, name: 'A', orderQueue: 2 }));
    putQueue(client, queue({ id: 3, name: 'Z', orderQueue: 1 }));
    putQueue(client, queue({ id: 4, name: 'None' }));
    const ids = () => client.getQueryData<Queue[]>(queueKeys.list())!.map((q) => q.id);
    expect(ids()).toEqual([3, 2, 1, 4]);
    putQueue(client, queue({ id: 3, name: 'Old', orderQueue: 9, updatedAt: '2025-01-01T00:00:00.000Z' }));
    expect(client.getQueryData<Queue[]>(queueKeys.list())!.find((q) => q.id === 3)!.name).toBe('Z');
    dropQueue(client, 2);
    expect(ids()).toEqual([3, 1, 4]);
  });

  test("a renamed or deleted queue is patched in the users' and connections' copies", () => {
    const client = new QueryClient();
    const ref = { id: 7, name: 'Old', color: '#111111' };
    const other = { id: 8, name: 'Other', color: '#222222' };
    client.setQueryData(['users', 'list', ''], {
      pages: [{ items: [{ id: 1, queues: [ref, other] } as UserView], hasMore: false }],
      pageParams: [1],
    });
    client.setQueryData(['whatsapps', 'list'], [{ id: 5, queues: [ref] } as Whatsapp]);
    client.setQueryData(['whatsapps', 'detail', 5], { id: 5, queues: [ref] } as Whatsapp);
    putQueue(client, queue({ id: 7, name: 'New', color: '#333333' }));
    const users = () =>
      client.getQueryData<{ pages: { items: UserView[] }[] }>(['users', 'list', ''])!.pages[0]!.items[0]!;
    expect(users().queues).toEqual([{ id: 7, name: 'New', color: '#333333' }, other]);
    expect(client.getQueryData<Whatsapp[]>(['whatsapps', 'list'])![0]!.queues[0]!.name).toBe('New');
    dropQueue(client, 7);
    expect(users().queues).toEqual([other]);
    expect(client.getQueryData<Whatsapp[]>(['whatsapps', 'list'])![0]!.queues).toEqual([]);
    expect(client.getQueryData<Whatsapp>(['whatsapps', 'detail', 5])!.queues).toEqual([]);
  });

  test('option tree helpers: numeric order per level, subtree of a branch', () => {
    const all = [
      option(1, null, '10'),
      option(2, null, '2'),
      option(3, 2, '1'),
      option(4, 3, '1'),
      option(5, null, 'a'),
    ];
    expect(childrenOf(all, null).map((o) => o.id)).toEqual([2, 1, 5]);
    expect([...all].sort(byOptionKey)[0]!.option).toBe('1');
    expect([...subtreeIds(all, 2)].sort()).toEqual([2, 3, 4]);
    expect([...subtreeIds(all, 1)]).toEqual([1]);
  });
});
