import v8 from 'node:v8';
import { expect, test } from 'vitest';
import { heapPacer } from './heap-pacer.js';

const MB = 1024 * 1024;
const used = () => v8.getHeapStatistics().used_heap_size;
/** About 40 MB of small objects, dropped: garbage in the heap until a collection. */
const garbage = () => {
  let junk: unknown[] | null = [];
  for (let i = 0; i < 400_000; i++) junk.push({ i, text: `row ${i} of a page that is no longer needed` });
  junk = null;
  return junk;
};

test('heapPacer collects once the heap has grown by its slack since the last collection, and not before', async () => {
  const lazy = heapPacer(1024 * MB);
  garbage();
  const before = used();
  await lazy(); // 1 GB of slack: far from reached, nothing collected
  expect(used()).toBeGreaterThan(before - 8 * MB);

  await heapPacer(0)(); // no slack: collects at once (the first garbage gone)
  const pace = heapPacer(16 * MB);
  garbage();
  const grown = used();
  await pace();
  expect(grown - used()).toBeGreaterThan(16 * MB);
  await pace(); // just collected: under the slack again
});
