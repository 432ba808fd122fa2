import { describe, expect, test } from 'vitest';
import { autoLayout, type LayoutNode } from './auto-layout.js';

const node = (id: string, root = false, width = 200, height = 80): LayoutNode => ({
  id,
  width,
  height,
  root,
});
const overlap = (a: { x: number; y: number }, b: { x: number; y: number }, w: number, h: number) =>
  Math.abs(a.x - b.x) < w && Math.abs(a.y - b.y) < h;

describe('auto-layout', () => {
  test('a chain goes left to right, one column per step, on one line', () => {
    const p = autoLayout(
      [node('c'), node('a', true), node('b')],
      [
        { source: 'a', target: 'b' },
        { source: 'b', target: 'c' },
      ],
    );
    expect(p.get('a')!.x).toBeLessThan(p.get('b')!.x);
    expect(p.get('b')!.x).toBeLessThan(p.get('c')!.x);
    expect(p.get('a')!.y).toBe(p.get('b')!.y);
    expect(p.get('b')!.y).toBe(p.get('c')!.y);
  });

  test("a branch's exits keep their order top to bottom, around their parent, without overlapping", () => {
    const p = autoLayout(
      [node('start', true), node('q'), node('yes'), node('no'), node('timeout')],
      [
        { source: 'start', target: 'q' },
        { source: 'q', target: 'yes' },
        { source: 'q', target: 'no' },
        { source: 'q', target: 'timeout' },
      ],
    );
    const [yes, no, timeout] = [p.get('yes')!, p.get('no')!, p.get('timeout')!];
    expect(yes.x).toBe(no.x);
    expect(yes.y).toBeLessThan(no.y);
    expect(no.y).toBeLessThan(timeout.y);
    expect(overlap(yes, no, 200, 80)).toBe(false);
    expect(overlap(no, timeout, 200, 80)).toBe(false);
    // The middle child sits level with its parent.
    expect(Math.abs(no.y - p.get('q')!.y)).toBeLessThanOrEqual(1);
  });

  test('a node is placed after its furthest parent (longest path), and loops back do not move it', () => {
    const p = autoLayout(
      [node('s', true), node('a'), node('b'), node('join')],
      [
        { source: 's', target: 'a' },
        { source: 'a', target: 'b' },
        { source: 'b', target: 'join' },
        { source: 's', target: 'join' },
        // A retry loop back to the start.
        { source: 'join', target: 's' },
        { source: 'b', target: 'b' },
      ],
    );
    expect(p.get('join')!.x).toBeGreaterThan(p.get('b')!.x);
    expect(p.get('s')!.x).toBeLessThan(p.get('a')!.x);
  });

  test('every node gets a place, unreachable ones and pure cycles included, and none overlap', () => {
    const nodes = [node('s', true), node('x'), node('y'), node('lonely'), node('c1'), node('c2')];
    const p = autoLayout(nodes, [
      { source: 's', target: 'x' },
      { source: 's', target: 'y' },
      { source: 'c1', target: 'c2' },
      { source: 'c2', target: 'c1' },
      { source: 'ghost', target: 's' },
    ]);
    expect([...p.keys()].sort()).toEqual(nodes.map((n) => n.id).sort());
    const all = [...p.values()];
    for (let i = 0; i < all.length; i++)
      for (let j = i + 1; j < all.length; j++) expect(overlap(all[i]!, all[j]!, 200, 80)).toBe(false);
  });

  test('a 500-node chain lays out without overflowing the stack', () => {
    const nodes = Array.from({ length: 500 }, (_, i) => node(`n${i}`, i === 0));
    const edges = nodes.slice(1).map((n, i) => ({ source: `n${i}`, target: n.id }));
    const p = autoLayout(nodes, edges);
    expect(p.get('n499')!.x).toBeGreaterThan(p.get('n498')!.x);
  });
});
