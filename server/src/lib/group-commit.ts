/**
 * Group commit: what callers hand in during one turn of the loop, or while `inFlight` runs are on their way,
 * goes to `run` together (up to `maxWeight`, counted by `weight`), so a burst costs a few statements instead
 * of one each. `run` answers one result per item, in order; each caller gets its own. A run that throws
 * fails each of its callers.
 */
export function groupCommit<I, R>(
  run: (items: I[]) => Promise<R[]>,
  opts: { inFlight?: number; maxWeight?: number; weight?: (item: I) => number } = {},
) {
  const inFlight = opts.inFlight ?? 1;
  const maxWeight = opts.maxWeight ?? 200;
  const weight = opts.weight ?? (() => 1);
  const waiting: { item: I; done(r: R): void; fail(err: unknown): void }[] = [];
  let running = 0;
  let scheduled = false;

  function pump() {
    while (running < inFlight && waiting.length) {
      const batch: typeof waiting = [];
      let w = 0;
      while (waiting.length && (!batch.length || w + weight(waiting[0]!.item) <= maxWeight)) {
        const next = waiting.shift()!;
        w += weight(next.item);
        batch.push(next);
      }
      running++;
      void run(batch.map((b) => b.item))
        .then(
          (results) => batch.forEach((b, i) => b.done(results[i]!)),
          (err: unknown) => batch.forEach((b) => b.fail(err)),
        )
        .finally(() => {
          running--;
          pump();
        });
    }
  }

  return (item: I): Promise<R> =>
    new Promise<R>((done, fail) => {
      waiting.push({ item, done, fail });
      if (!scheduled) {
        scheduled = true;
        // After the loop has taken in what already arrived, so that a burst leaves together.
        setImmediate(() => {
          scheduled = false;
          pump();
        });
      }
    });
}
