import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, test } from 'vitest';
import { memoryCounter, redisCounter, type AttemptCounter } from './login-throttle.js';

// The memory counter always; the Redis one too when REDIS_URL names a server (shared by processes).
const kinds: [string, () => Promise<AttemptCounter>][] = [['memory', async () => memoryCounter()]];
if (process.env.REDIS_URL)
  kinds.push(['redis', () => redisCounter(process.env.REDIS_URL!, `test:${randomUUID()}:`)]);

describe.each(kinds)('%s attempt counter', (_, make) => {
  let counter: AttemptCounter;
  afterAll(() => counter?.close?.());

  test('takes up to max, refuses after, gives back, clears, and forgets after the window', async () => {
    counter = await make();
    const took = await Promise.all(Array.from({ length: 8 }, () => counter.take('k', 5, 60_000)));
    expect(took.filter(Boolean)).toHaveLength(5);
    await counter.give('k');
    expect(await counter.take('k', 5, 60_000)).toBe(true);
    expect(await counter.take('k', 5, 60_000)).toBe(false);
    // Other keys are separate.
    expect(await counter.take('other', 5, 60_000)).toBe(true);
    await counter.clear('k');
    expect(await counter.take('k', 5, 60_000)).toBe(true);
    // A short window ends by itself.
    expect(await counter.take('short', 1, 50)).toBe(true);
    expect(await counter.take('short', 1, 50)).toBe(false);
    const start = Date.now();
    while (!(await counter.take('short', 1, 50))) {
      if (Date.now() - start > 5000) throw new Error('window never ended');
      await new Promise((r) => setTimeout(r, 20));
    }
  });
});
