import { describe, expect, test } from 'vitest';
import { QueryClient, type QueryKey } from '@tanstack/react-query';
import { removeListItem, upsertListItem, type ListData } from './useInfiniteList.js';

interface Row {
  id: number;
  name: string;
}
const byName = (a: Row, b: Row) => a.name.localeCompare(b.name);
const matches = (key: QueryKey, row: Row) => row.name.toLowerCase().includes(String(key[2] ?? ''));

function setup(pages: { items: Row[]; hasMore: boolean }[], search = '') {
  const client = new QueryClient();
  const key = ['rows', 'list', search];
  client.setQueryData<ListData<Row>>(key, { pages, pageParams: pages.map((_p, i) => i + 1) });
  const names = () =>
    client
      .getQueryData<ListData<Row>>(key)!
      .pages.flatMap((p) => p.items)
      .map((r) => r.name);
  return { client, names };
}

describe('live patches of paged lists', () => {
  test('a new row goes to its sorted place among the loaded rows', () => {
    const { client, names } = setup([
      {
        items: [
          { id: 1, name: 'Ana' },
          { id: 2, name: 'Carla' },
        ],
        hasMore: true,
      },
      { items: [{ id: 3, name: 'Eva' }], hasMore: true },
    ]);
    upsertListItem(client, ['rows', 'list'], { id: 9, name: 'Bia' }, { compare: byName, matches });
    upsertListItem(client, ['rows', 'list'], { id: 10, name: 'Dora' }, { compare: byName, matches });
    expect(names()).toEqual(['Ana', 'Bia', 'Carla', 'Dora', 'Eva']);
  });

  test('past the loaded rows it waits for its page, unless everything is loaded', () => {
    const more = setup([{ items: [{ id: 1, name: 'Ana' }], hasMore: true }]);
    upsertListItem(more.client, ['rows', 'list'], { id: 2, name: 'Zoe' }, { compare: byName, matches });
    expect(more.names()).toEqual(['Ana']);
    const all = setup([{ items: [{ id: 1, name: 'Ana' }], hasMore: false }]);
    upsertListItem(all.client, ['rows', 'list'], { id: 2, name: 'Zoe' }, { compare: byName, matches });
    expect(all.names()).toEqual(['Ana', 'Zoe']);
  });

  test('a changed row is replaced, or leaves a filtered list it no longer matches', () => {
    const { client, names } = setup(
      [
        {
          items: [
            { id: 1, name: 'ana' },
            { id: 2, name: 'anabel' },
          ],
          hasMore: false,
        },
      ],
      'ana',
    );
    upsertListItem(client, ['rows', 'list'], { id: 1, name: 'ana maria' }, { compare: byName, matches });
    expect(names()).toEqual(['ana maria', 'anabel']);
    upsertListItem(client, ['rows', 'list'], { id: 2, name: 'bel' }, { compare: byName, matches });
    expect(names()).toEqual(['ana maria']);
    upsertListItem(client, ['rows', 'list'], { id: 3, name: 'carla' }, { compare: byName, matches });
    expect(names()).toEqual(['ana maria']);
  });

  test('a deleted row disappears from every page', () => {
    const { client, names } = setup([
      { items: [{ id: 1, name: 'Ana' }], hasMore: true },
      { items: [{ id: 2, name: 'Bia' }], hasMore: false },
    ]);
    removeListItem(client, ['rows', 'list'], 2);
    expect(names()).toEqual(['Ana']);
  });
});
