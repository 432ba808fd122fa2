/**
 * Auto-layout of the canvas: a small layered (Sugiyama-style) layout, left to right, written here rather than
 * pulling dagre into the bundle. Pure: it reads sizes and edges and answers positions.
 *
 * 1. Cycles are broken by a depth-first walk from the roots (start nodes first): an edge back to a node
 *    still on the walk's path is ignored for layering.
 * 2. Layers: the longest path from a root (a node is one column to the right of its furthest parent).
 * 3. Order in a column: the walk's order (so a node's exits keep their order top to bottom), then a few
 *    sweeps that put each node at the mean position of its neighbours in the previous column.
 * 4. Coordinates: columns as wide as their widest node; in a column, each node as close as it can get to
 *    the middle of its parents, never overlapping.
 */
export interface LayoutNode {
  id: string;
  width: number;
  height: number;
  /** Roots are laid out first (the start node). */
  root?: boolean;
}

export interface LayoutEdge {
  source: string;
  target: string;
}

export interface LayoutOptions {
  /** Space between columns. */
  columnGap?: number;
  /** Space between nodes of one column. */
  rowGap?: number;
  /** Where the drawing starts. */
  origin?: { x: number; y: number };
}

export type Positions = Map<string, { x: number; y: number }>;

const SWEEPS = 4;

export function autoLayout(nodes: LayoutNode[], edges: LayoutEdge[], opts: LayoutOptions = {}): Positions {
  const columnGap = opts.columnGap ?? 90;
  const rowGap = opts.rowGap ?? 40;
  const origin = opts.origin ?? { x: 0, y: 0 };
  const byId = new Map(nodes.map((n) => [n.id, n]));
  // Edges in their given order (a node's exits in order), only between known nodes, no self-loops.
  const out = new Map<string, string[]>(nodes.map((n) => [n.id, []]));
  for (const e of edges)
    if (byId.has(e.source) && byId.has(e.target) && e.source !== e.target) out.get(e.source)!.push(e.target);

  // 1. Depth-first walk from the roots, then from nodes nobody enters, then whatever is left (pure cycles).
  const incoming = new Set(edges.filter((e) => e.source !== e.target).map((e) => e.target));
  const starts = [
    ...nodes.filter((n) => n.root),
    ...nodes.filter((n) => !n.root && !incoming.has(n.id)),
    ...nodes,
  ];
  const state = new Map<string, 'open' | 'done'>();
  const order: string[] = [];
  const forward: [string, string][] = [];
  for (const s of starts) {
    if (state.has(s.id)) continue;
    // Iterative, so a 500-node chain cannot overflow the stack.
    const stack: { id: string; next: number }[] = [{ id: s.id, next: 0 }];
    state.set(s.id, 'open');
    order.push(s.id);
    while (stack.length) {
      const top = stack[stack.length - 1]!;
      const targets = out.get(top.id)!;
      if (top.next >= targets.length) {
        state.set(top.id, 'done');
        stack.pop();
        continue;
      }
      const t = targets[top.next++]!;
      const st = state.get(t);
      if (st === 'open') continue; // a back edge: a loop, ignored for layering
      forward.push([top.id, t]);
      if (st === 'done') continue;
      state.set(t, 'open');
      order.push(t);
      stack.push({ id: t, next: 0 });
    }
  }

  // 2. Longest path layering over the acyclic edges, in topological order.
  const parents = new Map<string, string[]>(nodes.map((n) => [n.id, []]));
  const children = new Map<string, string[]>(nodes.map((n) => [n.id, []]));
  const indegree = new Map<string, number>(nodes.map((n) => [n.id, 0]));
  const seenPair = new Set<string>();
  for (const [a, b] of forward) {
    const k = `${a}\u0000${b}`;
    if (seenPair.has(k)) continue;
    seenPair.add(k);
    parents.get(b)!.push(a);
    children.get(a)!.push(b);
    indegree.set(b, indegree.get(b)! + 1);
  }
  const layer = new Map<string, number>();
  const queue = order.filter((id) => indegree.get(id) === 0);
  for (const id of queue) layer.set(id, 0);
  for (let i = 0; i < queue.length; i++) {
    const id = queue[i]!;
    for (const c of children.get(id)!) {
      layer.set(c, Math.max(layer.get(c) ?? 0, layer.get(id)! + 1));
      indegree.set(c, indegree.get(c)! - 1);
      if (indegree.get(c) === 0) queue.push(c);
    }
  }

  const columns: string[][] = [];
  for (const id of order) {
    const l = layer.get(id) ?? 0;
    (columns[l] ??= []).push(id);
  }

  // 3. Barycentre sweeps: down using parents, up using children.
  const rank = new Map<string, number>();
  const setRanks = () => columns.forEach((col) => col.forEach((id, i) => rank.set(id, i)));
  setRanks();
  const bary = (id: string, neighbours: string[]) => {
    if (!neighbours.length) return rank.get(id)!;
    return neighbours.reduce((s, n) => s + rank.get(n)!, 0) / neighbours.length;
  };
  for (let s = 0; s < SWEEPS; s++) {
    const down = s % 2 === 0;
    const range = down
      ? columns.map((_, i) => i).slice(1)
      : columns
          .map((_, i) => i)
          .reverse()
          .slice(1);
    for (const c of range) {
      const col = columns[c]!;
      const score = new Map(col.map((id) => [id, bary(id, down ? parents.get(id)! : children.get(id)!)]));
      // Stable: ties keep the current order.
      col.sort((a, b) => score.get(a)! - score.get(b)! || rank.get(a)! - rank.get(b)!);
      col.forEach((id, i) => rank.set(id, i));
    }
  }

  // 4. Coordinates.
  const positions: Positions = new Map();
  let x = origin.x;
  const center = new Map<string, number>();
  for (const col of columns) {
    if (!col) continue;
    const width = Math.max(...col.map((id) => byId.get(id)!.width));
    // Wanted centre: the middle of the parents already placed; the column's own stacking otherwise.
    let stacked = origin.y;
    const wanted = col.map((id) => {
      const h = byId.get(id)!.height;
      const ps = parents.get(id)!.filter((p) => center.has(p));
      const want = ps.length ? ps.reduce((s, p) => s + center.get(p)!, 0) / ps.length : stacked + h / 2;
      stacked += h + rowGap;
      return want - h / 2;
    });
    // Top to bottom, never overlapping the node above.
    const ys: number[] = [];
    col.forEach((id, i) => {
      const prev = i > 0 ? ys[i - 1]! + byId.get(col[i - 1]!)!.height + rowGap : -Infinity;
      ys.push(Math.max(wanted[i]!, prev));
    });
    // Pushing down drifts the column; moved back up as a whole by the mean drift, it stays centred on the
    // wanted positions (siblings spread around their parent, not all below it).
    const drift = ys.reduce((s, y, i) => s + (y - wanted[i]!), 0) / ys.length;
    for (let i = 0; i < ys.length; i++) ys[i] = ys[i]! - drift;
    col.forEach((id, i) => {
      const n = byId.get(id)!;
      positions.set(id, { x: x + (width - n.width) / 2, y: Math.round(ys[i]!) });
      center.set(id, ys[i]! + n.height / 2);
    });
    x += width + columnGap;
  }
  return positions;
}
