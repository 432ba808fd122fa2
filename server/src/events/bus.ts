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
 * - Durable consumers (docs/events.md "The outbox"): listeners and taps that write the record say so; `publish`
 *   tells whether they all succeeded, and `replay` hands a recovered event to them alone.
 */
export interface EmitMeta {
  /** The event's outbox row (events/outbox.ts): a durable consumer's idempotency key. */
  outboxId?: string;
  /**
   * An emitter that may emit the same event again (an at-least-once job) names it: the outbox id is derived
   * from this key, so the durable consumers write it once however often it is emitted.
   */
  outboxKey?: string;
  /** When it happened (a recovered event: when its change committed). */
  at?: Date;
  /** A recovered event, handed to the durable consumers again after a crash. */
  replay?: boolean;
}

export type Listener<P> = (payload: P, meta: EmitMeta) => void | Promise<void>;

/** One emitted event, name and payload (what a tap sees). */
export type Emitted<M> = {
  [K in keyof M & string]: { event: K; payload: M[K]; meta: EmitMeta };
}[keyof M & string];

export interface EventBus<M> {
  /** Adds a listener; `name` labels it in the log. Returns a function that removes it. */
  on<K extends keyof M & string>(
    event: K,
    listener: Listener<M[K]>,
    name?: string,
    /** durable: it writes the record; it must be idempotent on `meta.outboxId` (it may run again). */
    opts?: { durable?: boolean },
  ): () => void;
  /**
   * Hands the event to its listeners and returns at once. Call after the change committed. The promise
   * resolves (never rejects) once this event's listeners are done: most emitters ignore it; one whose
   * answer promises the effects (an HTTP request whose automatic messages used to be sent before its
   * answer) may await it.
   */
  emit<K extends keyof M & string>(event: K, payload: M[K], meta?: EmitMeta): Promise<void>;
  /**
   * `emit`, and whether the durable consumers of the event all succeeded (`durable`: true when it has none):
   * the outbox deletes an event's row only then.
   */
  publish<K extends keyof M & string>(
    event: K,
    payload: M[K],
    meta?: EmitMeta,
  ): { done: Promise<void>; durable: Promise<boolean> };
  /** A recovered event to its durable consumers only, in its key's order; true when they all succeeded. */
  replay<K extends keyof M & string>(event: K, payload: M[K], meta: EmitMeta): Promise<boolean>;
  /** Whether the event has a durable consumer (the outbox writes only those events). */
  hasDurable(event: keyof M & string): boolean;
  /** Resolves when every event emitted so far has been handled by all its listeners (tests, shutdown). */
  idle(): Promise<void>;
  /**
   * Sees every event inside `emit` itself, synchronously and in emit order, whatever its order key: for a
   * consumer that must record the order things happened in across keys (webhooks number their events). It
   * must only record (no I/O, no throw); a promise it returns (its own follow-up work) is awaited by `idle()`.
   */
  tap(
    observer: (e: Emitted<M>) => void | Promise<unknown>,
    name?: string,
    /**
     * durable: the events it writes the record of. For those, the promise it returns is their outcome: a
     * rejection or `false` means not written (the outbox keeps the event for the recovery sweep).
     */
    opts?: { durable?: readonly (keyof M & string)[] },
  ): () => void;
}

export function eventBus<M>(deps: {
  log: { warn(o: object, m: string): void };
  /**
   * The order key of an event (e.g. `ticket:12`): events of one key are handled in order, across event
   * names. An event without a key is handled on its own.
   */
  keyOf?: { [K in keyof M]?: (payload: M[K]) => string | undefined };
}): EventBus<M> {
  type Entry = { fn: Listener<never>; name: string; durable: boolean };
  type Tap = { fn: (e: Emitted<M>) => void | Promise<unknown>; name: string; durable: Set<string> };
  const listeners = new Map<keyof M, Entry[]>();
  const chains = new Map<string, Promise<unknown>>();
  const loose = new Set<Promise<unknown>>();
  const taps: Tap[] = [];

  function track(run: Promise<unknown>) {
    loose.add(run);
    void run.finally(() => loose.delete(run));
  }

  /** Runs the event's listeners (only the durable ones on a replay); false when a durable one failed. */
  async function deliver<K extends keyof M & string>(event: K, payload: M[K], meta: EmitMeta) {
    let ok = true;
    for (const l of [...(listeners.get(event) ?? [])]) {
      if (meta.replay && !l.durable) continue;
      try {
        await (l.fn as Listener<M[K]>)(payload, meta);
      } catch (err) {
        if (l.durable) ok = false;
        deps.log.warn({ err, event, listener: l.name }, 'event listener failed');
      }
    }
    return ok;
  }

  /** Hands the event to the taps, synchronously; the durable taps' outcomes. */
  function runTaps<K extends keyof M & string>(event: K, payload: M[K], meta: EmitMeta) {
    const outcomes: Promise<boolean>[] = [];
    for (const t of [...taps]) {
      const durable = t.durable.has(event);
      if (meta.replay && !durable) continue;
      try {
        const after = t.fn({ event, payload, meta } as Emitted<M>);
        if (after) {
          const outcome = after.then(
            (v) => v !== false,
            (err: unknown) => {
              deps.log.warn({ err, event, tap: t.name }, 'event tap failed');
              return false;
            },
          );
          track(outcome);
          if (durable) outcomes.push(outcome);
        }
      } catch (err) {
        deps.log.warn({ err, event, tap: t.name }, 'event tap failed');
        if (durable) outcomes.push(Promise.resolve(false));
      }
    }
    return outcomes;
  }

  /** The listeners' run, in the event's key order (or a microtask later, never inside the emitter's call). */
  function schedule<K extends keyof M & string>(event: K, payload: M[K], meta: EmitMeta): Promise<boolean> {
    const raw = deps.keyOf?.[event]?.(payload);
    if (raw === undefined) {
      const run = Promise.resolve().then(() => deliver(event, payload, meta));
      track(run);
      return run;
    }
    const key = String(raw);
    const next = (chains.get(key) ?? Promise.resolve()).then(() => deliver(event, payload, meta));
    chains.set(key, next);
    void next.then(() => {
      if (chains.get(key) === next) chains.delete(key);
    });
    return next;
  }

  function publish<K extends keyof M & string>(event: K, payload: M[K], meta: EmitMeta = {}) {
    const outcomes = runTaps(event, payload, meta);
    const run = listeners.get(event)?.length ? schedule(event, payload, meta) : Promise.resolve(true);
    const durable = Promise.all([run, ...outcomes]).then((all) => all.every(Boolean));
    return { done: run.then(() => undefined), durable };
  }

  return {
    on(event, listener, name, opts) {
      const list = listeners.get(event) ?? [];
      const entry: Entry = {
        fn: listener as Listener<never>,
        name: name ?? (listener.name || 'anonymous'),
        durable: opts?.durable ?? false,
      };
      list.push(entry);
      listeners.set(event, list);
      return () => {
        const at = list.indexOf(entry);
        if (at >= 0) list.splice(at, 1);
      };
    },

    tap(fn, name = 'tap', opts) {
      const entry: Tap = { fn, name, durable: new Set(opts?.durable ?? []) };
      taps.push(entry);
      return () => {
        const at = taps.indexOf(entry);
        if (at >= 0) taps.splice(at, 1);
      };
    },

    emit(event, payload, meta) {
      return publish(event, payload, meta).done;
    },

    publish,

    replay(event, payload, meta) {
      const m = { ...meta, replay: true };
      const outcomes = runTaps(event, payload, m);
      const durable = listeners.get(event)?.some((l) => l.durable);
      const run = durable ? schedule(event, payload, m) : Promise.resolve(true);
      return Promise.all([run, ...outcomes]).then((all) => all.every(Boolean));
    },

    hasDurable(event) {
      return Boolean(listeners.get(event)?.some((l) => l.durable) || taps.some((t) => t.durable.has(event)));
    },

    async idle() {
      while (chains.size || loose.size) await Promise.all([...chains.values(), ...loose]);
    },
  };
}
