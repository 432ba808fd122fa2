import { describe, expect, test } from 'vitest';
import type { QueueOption } from '@recado/contracts';
import { byOptionKey, childrenOf, subtreeIds } from '../../api/queues.js';

const option = (id: number, parentId: number | null, key: string): QueueOption => ({
  id,
  queueId: 1,
  parentId,
  title: `T${id}`,
  message: '',
  option: key,
  priority: null,
  createdAt: '',
  updatedAt: '',
});

describe('queue options', () => {
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
