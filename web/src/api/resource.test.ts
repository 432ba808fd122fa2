import { describe, expect, test } from 'vitest';
import { QueryClient } from '@tanstack/react-query';
import { RESOURCES, type Tag } from '@recado/contracts';
import type { ListData } from '../components/useInfiniteList.js';
import { defineResource } from './resource.js';
import { kanbanKeys, tagKeys, tagResource } from './tags.js';

/** The cache side of the resource kit, once for every resource defined with it. */

const tag = (over: Partial<Tag>): Tag =>
  ({ id: 1, name: 'x', color: '#000000', kanban: 0, ticketsCount: 0, companyId: 1, ...over }) as Tag;

const pages = <T>(client: QueryClient, key: readonly unknown[]) =>
  client.getQueryData<ListData<T>>(key)?.pages.flatMap((p) => p.items);
const seed = <T>(client: QueryClient, key: readonly unknown[], items: T[], hasMore = false) =>
  client.setQueryData<ListData<T>>(key, { pages: [{ items, hasMore }], pageParams: [1] });

describe('defineResource: paged lists', () => {
  test('keys: one list per trimmed, lower-case search under the lists prefix', () => {
    expect(tagResource.keys.list('  Ab ')).toEqual([...tagKeys.pages(), 'ab']);
    expect(tagResource.keys.list('')).toEqual(tagKeys.page(''));
  });

  test('put places a record in every list whose search it matches, in server order; drop removes it', () => {
    const client = new QueryClient();
    seed(client, tagResource.keys.list(''), [tag({ id: 1, name: 'Beta' })]);
    seed(client, tagResource.keys.list('al'), [] as Tag[]);
    tagResource.put(client, tag({ id: 2, name: 'alfa' }));
    tagResource.put(client, tag({ id: 3, name: 'Gama' }));
    expect(pages<Tag>(client, tagResource.keys.list(''))!.map((x) => x.id)).toEqual([2, 1, 3]);
    expect(pages<Tag>(client, tagResource.keys.list('al'))!.map((x) => x.id)).toEqual([2]);
    // Renamed out of a search: it leaves that list and is replaced where it is in the others.
    tagResource.put(client, tag({ id: 2, name: 'Zeta' }));
    expect(pages<Tag>(client, tagResource.keys.list('al'))).toEqual([]);
    expect(pages<Tag>(client, tagResource.keys.list(''))!.map((x) => x.name)).toEqual([
      'Zeta',
      'Beta',
      'Gama',
    ]);
    tagResource.drop(client, 1);
    expect(pages<Tag>(client, tagResource.keys.list(''))!.map((x) => x.id)).toEqual([2, 3]);
  });

  test('a record past the loaded rows waits for its page', () => {
    const client = new QueryClient();
    seed(client, tagResource.keys.list(''), [tag({ id: 1, name: 'a' }), tag({ id: 2, name: 'b' })], true);
    tagResource.put(client, tag({ id: 3, name: 'z' }));
    expect(pages<Tag>(client, tagResource.keys.list(''))!.map((x) => x.id)).toEqual([1, 2]);
  });

  test("the resource's own side effects run with put and drop (tags: picker list and lanes)", () => {
    const client = new QueryClient();
    client.setQueryData<Tag[]>(tagKeys.options(), [tag({ id: 1, name: 'b' })]);
    client.setQueryData<Tag[]>(kanbanKeys.lanes(), []);
    tagResource.put(client, tag({ id: 2, name: 'a', kanban: 1 }));
    expect(client.getQueryData<Tag[]>(tagKeys.options())!.map((x) => x.id)).toEqual([2, 1]);
    expect(client.getQueryData<Tag[]>(kanbanKeys.lanes())!.map((x) => x.id)).toEqual([2]);
    tagResource.drop(client, 2);
    expect(client.getQueryData<Tag[]>(tagKeys.options())!.map((x) => x.id)).toEqual([1]);
    expect(client.getQueryData<Tag[]>(kanbanKeys.lanes())).toEqual([]);
  });
});

describe('defineResource: unpaged lists', () => {
  interface Row {
    id: number;
    name: string;
    updatedAt: string;
  }
  const rows = defineResource<Row>({
    spec: RESOURCES.queue,
    listsKey: ['rows-test'],
    paged: false,
    compare: (a, b) => a.name.localeCompare(b.name) || a.id - b.id,
    newestWins: true,
  });
  const at = (h: number) => `2026-01-01T${String(h).padStart(2, '0')}:00:00.000Z`;

  test('put keeps server order and never goes back in time; drop removes', () => {
    const client = new QueryClient();
    client.setQueryData<Row[]>(['rows-test'], [{ id: 1, name: 'B', updatedAt: at(10) }]);
    rows.put(client, { id: 2, name: 'A', updatedAt: at(10) });
    rows.put(client, { id: 1, name: 'C', updatedAt: at(12) });
    rows.put(client, { id: 1, name: 'old', updatedAt: at(11) });
    expect(client.getQueryData<Row[]>(['rows-test'])!.map((x) => x.name)).toEqual(['A', 'C']);
    rows.drop(client, 2);
    expect(client.getQueryData<Row[]>(['rows-test'])!.map((x) => x.id)).toEqual([1]);
  });

  test('nothing cached, nothing written', () => {
    const client = new QueryClient();
    rows.put(client, { id: 1, name: 'A', updatedAt: at(10) });
    rows.drop(client, 1);
    expect(client.getQueryData(['rows-test'])).toBeUndefined();
  });
});
