import { describe, expect, test } from 'vitest';
import { groupCommit } from './group-commit.js';

describe('groupCommit', () => {
  test('a burst of one turn is one run; each caller gets its own result', async () => {
    const runs: number[][] = [];
    const double = groupCommit<number, number>(async (xs) => {
      runs.push(xs);
      return xs.map((x) => x * 2);
    });
    expect(await Promise.all([1, 2, 3].map(double))).toEqual([2, 4, 6]);
    expect(runs).toEqual([[1, 2, 3]]);
  });

  test('what arrives while a run is on its way leaves together in the next; inFlight and weight bound them', async () => {
    const runs: string[][] = [];
    let release: () => void = () => undefined;
    const gate = new Promise<void>((r) => (release = r));
    let active = 0;
    let most = 0;
    const commit = groupCommit<string, string>(
      async (xs) => {
        runs.push(xs);
        most = Math.max(most, ++active);
        if (runs.length === 1) await gate;
        active--;
        return xs;
      },
      { inFlight: 1, maxWeight: 3, weight: (x) => x.length },
    );
    const first = commit('a');
    await new Promise((r) => setImmediate(r));
    const later = ['b', 'cc', 'd', 'e'].map(commit);
    await new Promise((r) => setTimeout(r, 20));
    expect(runs).toEqual([['a']]);
    release();
    expect(await Promise.all([first, ...later])).toEqual(['a', 'b', 'cc', 'd', 'e']);
    expect(runs).toEqual([['a'], ['b', 'cc'], ['d', 'e']]);
    expect(most).toBe(1);
  });

  test('a run that throws fails each of its callers, and the next run goes on', async () => {
    let calls = 0;
    const commit = groupCommit<number, number>(async (xs) => {
      if (calls++ === 0) throw new Error('database away');
      return xs;
    });
    const failed = await Promise.allSettled([commit(1), commit(2)]);
    expect(failed.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect(await commit(3)).toBe(3);
  });
});
