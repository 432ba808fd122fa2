/**
 * The local to-do list (docs/product.md#screens): kept only in the browser's local storage under `todos`, never
 * sent to a server. Pure functions over an array of tasks; storage is passed in so tests need no DOM.
 */
export const TODO_KEY = 'todos';

export interface Task {
  text: string;
  /** ISO 8601 timestamps. */
  createdAt: string;
  updatedAt: string;
}

type Reader = Pick<Storage, 'getItem'>;
type Writer = Pick<Storage, 'setItem'>;

const isTask = (v: unknown): v is Task =>
  typeof v === 'object' &&
  v !== null &&
  typeof (v as Task).text === 'string' &&
  typeof (v as Task).createdAt === 'string' &&
  typeof (v as Task).updatedAt === 'string';

/** The stored tasks; anything missing or malformed reads as an empty list (or is skipped). */
export function parseTasks(raw: string | null): Task[] {
  if (!raw) return [];
  try {
    const data: unknown = JSON.parse(raw);
    return Array.isArray(data) ? data.filter(isTask) : [];
  } catch {
    return [];
  }
}

export function loadTasks(storage: Reader = localStorage): Task[] {
  try {
    return parseTasks(storage.getItem(TODO_KEY));
  } catch {
    return [];
  }
}

export function saveTasks(tasks: readonly Task[], storage: Writer = localStorage): void {
  try {
    storage.setItem(TODO_KEY, JSON.stringify(tasks));
  } catch {
    /* storage full or disabled: the list still works for this page view */
  }
}

/** Appends a task; blank or whitespace-only text leaves the list as it was (same array). */
export function addTask(tasks: readonly Task[], text: string, now: Date = new Date()): Task[] {
  const clean = text.trim();
  if (!clean) return tasks as Task[];
  const at = now.toISOString();
  return [...tasks, { text: clean, createdAt: at, updatedAt: at }];
}

/**
 * Replaces the text of task `index` and moves its updatedAt; blank text, an unchanged text or an index
 * out of range leave the list as it was (same array).
 */
export function editTask(
  tasks: readonly Task[],
  index: number,
  text: string,
  now: Date = new Date(),
): Task[] {
  const clean = text.trim();
  const current = tasks[index];
  if (!clean || !current || current.text === clean) return tasks as Task[];
  return tasks.map((t, i) => (i === index ? { ...t, text: clean, updatedAt: now.toISOString() } : t));
}

/** Removes task `index`; an index out of range leaves the list as it was (same array). */
export function deleteTask(tasks: readonly Task[], index: number): Task[] {
  if (index < 0 || index >= tasks.length) return tasks as Task[];
  return tasks.filter((_, i) => i !== index);
}
