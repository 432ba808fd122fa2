/**
 * A small typed in-process event bus (docs/events.md). `emit` returns at once; listeners run afterwards,
 * outside the emitter's call and after the change it reports has committed (emit only after the commit).
 *
 * - Typed: the event map `M` (name → payload) is written once (domain-events.ts); `on` and `emit` check it.
 * - Ordered where it matters: events with the same key (`keyOf`, e.g. the ticket) are handled one after
 *   another, in emit order; each event's listeners run in registration order. Different keys run side by side.
 * - Isolated: a listener that throws (or rejects) is logged and never reaches the emitter or the other
 *   listeners.
 * - Awaitable: `idle()` resolves once everything emitted so far (and what it emitted in turn) was handled.
 */
export type Listener<P> = (payload: P) => void | Promise<void>;

/** One emitted event, name and payload (what a tap sees). */
export type Emitted<M> = { [K in keyof M & string]: { event: K; payload: M[K] } }[keyof M & string];

export interface EventBus<M> {
  /** Adds a listener; `name` labels it in the log. Returns a function that removes it. */
  on<K extends keyof M & string>(event: K, listener: Listener<M[K]>, name?: string): () => void;
  /**
   * Hands the event to its listeners and returns at once. Call after the change committed. The promise
   * resolves (never rejects) once this event's listeners are done: most emitters ignore it; one whose
   * answer promises the effects (an HTTP request whose automatic messages used to be sent before its
   * answer) may await it.
   */
  emit<K extends keyof M & string>(event: K, payload: M[K]): Promise<void>;
  /** Resolves when every event emitted so far has been handled by all its listeners (tests, shutdown). */
  idle(): Promise<void>;
  /**
   * Sees every event inside `emit` itself, synchronously and in emit order, whatever its order key: for a
   * consumer that must record the order things happened in across keys (webhooks number their events). It
   * must only record (no I/O, no throw); a promise it returns (its own follow-up work) is awaited by `idle()`.
   */
  tap(observer: (e: Emitted<M>) => void | Promise<void>, name?: string): () => void;
}

export function eventBus<M>(deps: {
  log: { warn(o: object, m: string): void };
  /**
   * The order key of an event (e.g. `ticket:12`): events of one key are handled in order, across event
   * names. An event without a key is handled on its own.
   */
  keyOf?: { [K in keyof M]?: (payload: M[K]) => string | undefined };
}): EventBus<M> {
  const listeners = new Map<keyof M, { fn: Listener<never>; name: string }[]>();
  const chains = new Map<string, Promise<void>>();
  const loose = new Set<Promise<void>>();
  const taps: { fn: (e: Emitted<M>) => void | Promise<void>; name: string }[] = [];

  function track(run: Promise<void>) {
    loose.add(run);
    void run.finally(() => loose.delete(run));
  }

  async function deliver<K extends keyof M & string>(event: K, payload: M[K]) {
    for (const l of [...(listeners.get(event) ?? [])]) {
      try {
        await (l.fn as Listener<M[K]>)(payload);
      } catch (err) {
        deps.log.warn({ err, event, listener: l.name }, 'event listener failed');
      }
    }
  }

  return {
    on(event, listener, name) {
      const list = listeners.get(event) ?? [];
      const entry = { fn: listener as Listener<never>, name: name ?? (listener.name || 'anonymous') };
      list.push(entry);
      listeners.set(event, list);
      return () => {
        const at = list.indexOf(entry);
        if (at >= 0) list.splice(at, 1);
      };
    },

    tap(fn, name = 'tap') {
      const entry = { fn, name };
      taps.push(entry);
      return () => {
        const at = taps.indexOf(entry);
        if (at >= 0) taps.splice(at, 1);
      };
    },

    emit(event, payload) {
      for (const t of taps) {
        try {
          const after = t.fn({ event, payload } as Emitted<M>);
          if (after)
            track(
              after.catch((err: unknown) => deps.log.warn({ err, event, tap: t.name }, 'event tap failed')),
            );
        } catch (err) {
          deps.log.warn({ err, event, tap: t.name }, 'event tap failed');
        }
      }
      if (!listeners.get(event)?.length) return Promise.resolve();
      const raw = deps.keyOf?.[event]?.(payload);
      if (raw === undefined) {
        // Never inside the emitter's call stack: a microtask later.
        const run = Promise.resolve().then(() => deliver(event, payload));
        track(run);
        return run;
      }
      const key = String(raw);
      const next = (chains.get(key) ?? Promise.resolve()).then(() => deliver(event, payload));
      chains.set(key, next);
      void next.then(() => {
        if (chains.get(key) === next) chains.delete(key);
      });
      return next;
    },

    async idle() {
      while (chains.size || loose.size) await Promise.all([...chains.values(), ...loose]);
    },
  };
}
