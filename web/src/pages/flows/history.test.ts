import { describe, expect, test } from 'vitest';
import { canRedo, canUndo, commit, createHistory, record, redo, replace, undo } from './history.js';

describe('flow editor history', () => {
  test('undo and redo walk the recorded actions; a new action drops the redo steps', () => {
    let h = createHistory('a');
    h = record(h, 'b');
    h = record(h, 'c');
    expect(h.present).toBe('c');
    h = undo(h);
    expect(h.present).toBe('b');
    expect(canRedo(h)).toBe(true);
    h = undo(h);
    expect(h.present).toBe('a');
    expect(canUndo(h)).toBe(false);
    expect(undo(h)).toBe(h);
    h = redo(h);
    expect(h.present).toBe('b');
    h = record(h, 'x');
    expect(canRedo(h)).toBe(false);
    expect(redo(h)).toBe(h);
    expect(undo(h).present).toBe('b');
  });

  test('actions of one key in a row are one step (typing in one field)', () => {
    let h = createHistory('');
    h = record(h, 'H', 'name');
    h = record(h, 'Hi', 'name');
    h = record(h, 'Hi!', 'name');
    h = record(h, 'Hi! (2)', 'text');
    expect(undo(h).present).toBe('Hi!');
    expect(undo(undo(h)).present).toBe('');
    // After an undo, typing again in the same field is a new step, not a change of the undone one.
    let back = undo(h);
    back = record(back, 'Hi!?', 'text');
    expect(undo(back).present).toBe('Hi!');
  });

  test('a drag is one step: replace while moving, commit from where it started', () => {
    const start = { x: 0 };
    let h = record(createHistory({ x: -1 }), start);
    h = replace(h, { x: 5 });
    h = replace(h, { x: 10 });
    expect(h.past).toHaveLength(1);
    h = commit(h, start);
    expect(h.present).toEqual({ x: 10 });
    expect(undo(h).present).toBe(start);
    // A drag that moved nothing adds nothing.
    expect(commit(h, h.present)).toBe(h);
  });

  test('the same present is no step; the oldest steps go past the limit', () => {
    let h = createHistory(0);
    expect(record(h, 0)).toBe(h);
    for (let i = 1; i <= 10; i++) h = record(h, i, null, 3);
    expect(h.past).toEqual([7, 8, 9]);
  });
});
