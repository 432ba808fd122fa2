import { describe, expect, test } from 'vitest';
import {
  TODO_KEY,
  addTask,
  deleteTask,
  editTask,
  loadTasks,
  parseTasks,
  saveTasks,
  type Task,
} from './todo-store.js';

const t0 = new Date('2025-03-01T10:00:00.000Z');
const t1 = new Date('2025-03-02T11:30:00.000Z');

function memoryStorage(initial: Record<string, string> = {}) {
  const data = new Map(Object.entries(initial));
  return {
    data,
    getItem: (k: string) => data.get(k) ?? null,
    setItem: (k: string, v: string) => void data.set(k, v),
  };
}

describe('todo store', () => {
  test('add appends a trimmed task with createdAt = updatedAt', () => {
    const list = addTask([], '  buy coffee  ', t0);
    expect(list).toEqual([{ text: 'buy coffee', createdAt: t0.toISOString(), updatedAt: t0.toISOString() }]);
    const two = addTask(list, 'call Ana', t1);
    expect(two.map((t) => t.text)).toEqual(['buy coffee', 'call Ana']);
    expect(list).toHaveLength(1); // the input is not mutated
  });

  test('blank or whitespace text is ignored', () => {
    const list = addTask([], 'one', t0);
    expect(addTask(list, '', t1)).toBe(list);
    expect(addTask(list, '   \n\t ', t1)).toBe(list);
    expect(editTask(list, 0, '   ', t1)).toBe(list);
  });

  test('edit changes the text and updatedAt, keeps createdAt', () => {
    const list = addTask(addTask([], 'one', t0), 'two', t0);
    const edited = editTask(list, 1, ' two, edited ', t1);
    expect(edited[1]).toEqual({
      text: 'two, edited',
      createdAt: t0.toISOString(),
      updatedAt: t1.toISOString(),
    });
    expect(edited[0]).toBe(list[0]);
    expect(list[1]!.text).toBe('two');
  });

  test('edit with the same text or a missing index changes nothing', () => {
    const list = addTask([], 'one', t0);
    expect(editTask(list, 0, 'one', t1)).toBe(list);
    expect(editTask(list, 5, 'x', t1)).toBe(list);
  });

  test('delete removes one task by index', () => {
    const list = addTask(addTask(addTask([], 'a', t0), 'b', t0), 'c', t0);
    expect(deleteTask(list, 1).map((t) => t.text)).toEqual(['a', 'c']);
    expect(deleteTask(list, -1)).toBe(list);
    expect(deleteTask(list, 3)).toBe(list);
  });

  test('save and load round-trip through the todos key', () => {
    const storage = memoryStorage();
    const list = addTask(addTask([], 'a', t0), 'b', t1);
    saveTasks(list, storage);
    expect(JSON.parse(storage.data.get(TODO_KEY)!)).toEqual(list);
    expect(loadTasks(storage)).toEqual(list);
  });

  test('missing or malformed storage reads as an empty list, bad items are skipped', () => {
    expect(loadTasks(memoryStorage())).toEqual([]);
    expect(parseTasks('not json')).toEqual([]);
    expect(parseTasks('{"text":"x"}')).toEqual([]);
    const good: Task = { text: 'ok', createdAt: t0.toISOString(), updatedAt: t0.toISOString() };
    expect(parseTasks(JSON.stringify([good, { text: 1 }, null, 'x']))).toEqual([good]);
  });
});
