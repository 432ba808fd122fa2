/**
 * The editor's undo/redo: snapshots of the drawing (nodes and edges, never the selection), newest last.
 * Pure: every function answers a new history and leaves the given one as it was.
 *
 * - `record` is one user action (a node placed, an edge drawn, a paste). Actions with the same `key`
 *   in a row are one step (typing in one field of the side panel is one undo, not one per letter).
 * - `replace` changes the present without a step (a node following the mouse while it is dragged);
 *   `commit(h, before)` then makes the whole drag one step from `before`.
 */
export interface History<T> {
  past: T[];
  present: T;
  future: T[];
  /** The key of the last recorded action, while the next one may join it. */
  key: string | null;
}

/** How many steps back are kept. */
export const HISTORY_LIMIT = 100;

export const createHistory = <T>(present: T): History<T> => ({ past: [], present, future: [], key: null });

const pushPast = <T>(past: T[], item: T, limit: number) => {
  const next = [...past, item];
  return next.length > limit ? next.slice(next.length - limit) : next;
};

/** One action: `next` becomes the present; an action of the same `key` as the last one joins it. */
export function record<T>(
  h: History<T>,
  next: T,
  key: string | null = null,
  limit = HISTORY_LIMIT,
): History<T> {
  if (next === h.present) return h;
  if (key !== null && key === h.key && h.future.length === 0) return { ...h, present: next };
  return { past: pushPast(h.past, h.present, limit), present: next, future: [], key };
}

/** The present changes without a step of its own (a drag in progress); the next action starts anew. */
export const replace = <T>(h: History<T>, next: T): History<T> =>
  next === h.present ? h : { ...h, present: next, key: null };

/** Ends a change made with `replace`: one step back to `before` (nothing when it changed nothing). */
export function commit<T>(h: History<T>, before: T, limit = HISTORY_LIMIT): History<T> {
  if (before === h.present) return h;
  return { past: pushPast(h.past, before, limit), present: h.present, future: [], key: null };
}

export const canUndo = (h: History<unknown>) => h.past.length > 0;
export const canRedo = (h: History<unknown>) => h.future.length > 0;

export function undo<T>(h: History<T>): History<T> {
  if (!h.past.length) return h;
  const previous = h.past[h.past.length - 1]!;
  return { past: h.past.slice(0, -1), present: previous, future: [h.present, ...h.future], key: null };
}

export function redo<T>(h: History<T>): History<T> {
  if (!h.future.length) return h;
  const [next, ...rest] = h.future;
  return { past: [...h.past, h.present], present: next!, future: rest, key: null };
}

/** A fresh history on `present` (a flow loaded or reloaded from the server). */
export const reset = <T>(present: T): History<T> => createHistory(present);
