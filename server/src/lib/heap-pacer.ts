import v8 from 'node:v8';
import vm from 'node:vm';

type Gc = (options?: { type?: 'major' | 'minor'; execution?: 'sync' | 'async' }) => void | Promise<void>;
let collector: Gc | null | undefined;

/** V8's collector function: `globalThis.gc` when node runs with --expose-gc, else made available once. */
function gcFunction(): Gc | null {
  if (collector !== undefined) return collector;
  try {
    const own = (globalThis as { gc?: Gc }).gc;
    if (typeof own === 'function') collector = own;
    else {
      // Only contexts made after the flag get `gc`: a new one, once (the main context stays without it).
      v8.setFlagsFromString('--expose-gc');
      const fn = vm.runInNewContext('gc') as unknown;
      collector = typeof fn === 'function' ? (fn as Gc) : null;
    }
  } catch {
    collector = null;
  }
  return collector;
}

const heapBytes = () => {
  const s = v8.getHeapStatistics();
  return s.used_heap_size + s.external_memory;
};

/**
 * Keeps a long streamed job's garbage bounded (#35.4, docs/benchmarks.md "Company export and import").
 * A job that streams a million rows allocates gigabytes of short-lived strings and rows; with Node's default
 * heap sizing V8 lets the old generation grow to about four times the live size before it collects (a
 * server with ~70 MB live reaches ~250 MB of heap, ~400 MB RSS) — the live memory is small, the garbage is
 * not. Call the answer after each page/batch: when the heap (JS + external) has grown by `slackBytes` since
 * the last collection, it runs a full collection (V8's, as a task: awaited) and takes the new floor. Cost
 * (bench:export, 32 MB): 242 full collections of ~57 ms over a 1,000,000-message export and import; if V8
 * refused the flag (no collector) it does nothing.
 */
export function heapPacer(slackBytes = 32 * 1024 * 1024) {
  let floor = heapBytes();
  return async (): Promise<void> => {
    const now = heapBytes();
    if (now < floor) floor = now; // V8 collected on its own
    if (now < floor + slackBytes) return;
    const gc = gcFunction();
    if (!gc) return;
    await gc({ type: 'major', execution: 'async' });
    floor = heapBytes();
  };
}
