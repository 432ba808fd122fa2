import { createHash, randomUUID } from 'node:crypto';
import { sql, type SQL } from 'drizzle-orm';
import type { Db, Tx } from '../db/client.js';
import { eventOutbox } from '../db/schema/event-outbox.js';
import { executeRows, insertRows } from '../db/rows.js';
import { defineJob, noPayload } from '../jobs/job-queue.js';
import type { EmitMeta } from './bus.js';
import type { DomainBus, DomainEvents } from './domain-events.js';

/**
 * #32 The transactional outbox (docs/events.md "The outbox"): the events that feed the record — the ticket
 * timeline, the outgoing webhooks, the audit log — must survive a crash between the change's commit and the
 * listener's write.
 *
 * - **Staged** in the change's own transaction (`stage(tx, …)`, one INSERT for the change's events), then
 *   emitted after the commit with their meta (`bus.emit(event, payload, meta)`): the row commits or rolls
 *   back with the change.
 * - **Written at emit time** for an emitter without a transaction of its own: the bus dispatches at once (no
 *   added latency) and the rows of one tick go in one INSERT beside it; a crash before that INSERT loses the
 *   event as before, a crash after it does not.
 * - **Deleted** (in batches) once every durable consumer of the event succeeded.
 * - **Recovered**: a recurring job (`outbox.sweep`) claims rows older than RECOVER_AFTER_MS with a lease
 *   (`for update skip locked`, any process) and hands them to the durable consumers again, in order. The
 *   consumers key what they write on the row's id (unique indexes, `on conflict do nothing`): a second
 *   dispatch writes nothing twice. Other listeners (bot, ratings, routing…) are not replayed: they are at most
 *   once, as before.
 */

type Name = keyof DomainEvents & string;
export type OutboxEvent = { [K in Name]: { event: K; payload: DomainEvents[K] } }[Name];

/** An event not handled this long after its commit was left by a dead (or stuck) process: replayed. */
export const RECOVER_AFTER_MS = 10_000;
export const SWEEP_MS = 5_000;
const LEASE_MS = 60_000;
const BATCH = 200;
/** A row that failed this many replays (its ticket deleted meanwhile, a bug) is logged and dropped. */
const MAX_ATTEMPTS = 10;
const DELETE_AFTER_MS = 50;

/** JSON with dates kept as dates ({"$date": iso}). */
function replacer(this: Record<string, unknown>, key: string, value: unknown) {
  const raw = this[key];
  if (raw instanceof Date) return { $date: Number.isNaN(raw.getTime()) ? null : raw.toISOString() };
  return value;
}
function reviver(_key: string, value: unknown) {
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    const v = value as Record<string, unknown>;
    if ('$date' in v && Object.keys(v).length === 1)
      return typeof v.$date === 'string' ? new Date(v.$date) : new Date(NaN);
  }
  return value;
}

export const encodePayload = (event: string, payload: unknown) => {
  let p = payload as Record<string, unknown>;
  // A connection's channel settings may hold its secrets: the record's consumers need only its ids.
  if (event === 'message.stored' && p.ref && typeof p.ref === 'object')
    p = { ...p, ref: { ...(p.ref as object), channelConfig: {} } };
  return JSON.stringify(p, replacer);
};
export const decodePayload = (text: string): unknown => JSON.parse(text, reviver);

/** A UUID made from a key (the same key, the same id): an event an at-least-once emitter may emit twice. */
export function keyedId(key: string): string {
  const h = createHash('sha256').update(`recado-outbox:${key}`).digest('hex');
  const variant = ((parseInt(h[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

const companyOf = (payload: unknown): number | null => {
  const p = payload as { companyId?: unknown; ref?: { companyId?: unknown } };
  const id = p.companyId ?? p.ref?.companyId;
  return typeof id === 'number' ? id : null;
};

/** What the sweep does with a row that is not a domain event (an audit intent). */
export type Recoverer = (payload: unknown, meta: { outboxId: string; at: Date }) => Promise<void>;

export interface OutboxBus extends DomainBus {
  /**
   * Inside the change's transaction: writes these events' outbox rows (one INSERT) and answers their metas;
   * emit each event after the commit with its meta. Events without a durable consumer get no row.
   */
  stage(tx: Tx | Db, events: OutboxEvent[]): Promise<EmitMeta[]>;
  /**
   * `stage` as a statement for the change's own statement (a CTE of a data-modifying statement) or
   * transaction: null when no event has a durable consumer. `when`: the rows are written only if it holds
   * (`exists (select 1 from r)`: only when the change's CTE `r` changed a row). Emit each event after the
   * statement with its meta, and only if the condition held.
   */
  stageStatement(events: OutboxEvent[], when?: SQL): { statement: SQL | null; metas: EmitMeta[] };
  /**
   * A row of its own (not a bus event: an audit intent), recovered by `recoverWith(kind)` if not forgotten;
   * `graceMs`: the sweep leaves it alone that much longer (work that may legitimately run long).
   */
  put(kind: string, companyId: number | null, payload: unknown, opts?: { graceMs?: number }): Promise<string>;
  /** The row's work is done: delete it (batched). */
  forget(id: string): void;
  /** How the sweep recovers rows of a kind that is not a bus event. */
  recoverWith(kind: string, fn: Recoverer): void;
  /**
   * How the sweep rebuilds an event whose row a statement wrote with ids only (`{"$rebuild": {...}}`, e.g. the
   * inbound pipeline's `message.stored`): the event's payload, or null when there is nothing left to record.
   */
  rebuildWith<K extends Name>(event: K, fn: (partial: unknown) => Promise<DomainEvents[K] | null>): void;
  /** One sweep: claims the rows left behind and replays them; how many it took. */
  recover(opts?: { olderThanMs?: number }): Promise<number>;
  readonly sweepJob: ReturnType<typeof defineJob<typeof noPayload>>;
}

export function outboxBus(
  inner: DomainBus,
  deps: {
    db: Db;
    log: { warn(o: object, m: string): void; error?(o: object, m: string): void };
    /**
     * Tests only (RECADO_TEST_CRASH_AFTER_COMMIT, never in production): the process kills itself (SIGKILL)
     * right after a change staged this event and committed, before it is dispatched.
     */
    crashAfterCommit?: string;
  },
): OutboxBus {
  const { db, log } = deps;
  const recoverers = new Map<string, Recoverer>();
  const rebuilders = new Map<string, (partial: unknown) => Promise<unknown>>();
  const working = new Set<Promise<unknown>>();
  let rows: (typeof eventOutbox.$inferInsert)[] = [];
  let writing: Promise<boolean> | null = null;
  let doomed: string[] = [];
  let deleteTimer: NodeJS.Timeout | null = null;
  let deleting: Promise<void> | null = null;

  const track = <T>(p: Promise<T>) => {
    working.add(p);
    void p.finally(() => working.delete(p));
    return p;
  };

  /** The rows emitted in this tick, in one INSERT beside the dispatch. */
  function write(row: typeof eventOutbox.$inferInsert): Promise<boolean> {
    rows.push(row);
    if (!writing)
      writing = track(
        Promise.resolve().then(async () => {
          const batch = rows;
          rows = [];
          writing = null;
          try {
            // A keyed event emitted again while its row is still here: one row.
            await insertRows(db, eventOutbox, batch, { onConflictDoNothing: true });
            return true;
          } catch (err) {
            log.warn({ err, events: batch.length }, 'outbox rows not written');
            return false;
          }
        }),
      );
    return writing;
  }

  async function flushDeletes() {
    if (deleteTimer) clearTimeout(deleteTimer);
    deleteTimer = null;
    while (deleting) await deleting;
    if (!doomed.length) return;
    const ids = doomed;
    doomed = [];
    deleting = (async () => {
      try {
        await db.execute(
          sql`delete from event_outbox where id in (${sql.join(
            ids.map((id) => sql`${id}::uuid`),
            sql`, `,
          )})`,
        );
      } catch (err) {
        // The rows stay: the sweep replays them, and the consumers write nothing twice.
        log.warn({ err, rows: ids.length }, 'outbox rows not deleted');
      } finally {
        deleting = null;
      }
    })();
    await deleting;
  }

  function forget(id: string) {
    doomed.push(id);
    if (doomed.length >= 500) void track(flushDeletes());
    else if (!deleteTimer) {
      deleteTimer = setTimeout(() => void track(flushDeletes()), DELETE_AFTER_MS);
      deleteTimer.unref?.();
    }
  }

  /** The outbox rows of events about to be staged (those with a durable consumer) and every event's meta. */
  function staged(events: OutboxEvent[]) {
    const metas: EmitMeta[] = [];
    const values: (typeof eventOutbox.$inferInsert)[] = [];
    const at = new Date();
    for (const e of events) {
      if (!inner.hasDurable(e.event)) {
        metas.push({});
        continue;
      }
      const id = randomUUID();
      metas.push({ outboxId: id, at });
      values.push({
        id,
        companyId: companyOf(e.payload),
        event: e.event,
        payload: encodePayload(e.event, e.payload),
        createdAt: at,
      });
    }
    return { values, metas };
  }

  function publish<K extends Name>(event: K, payload: DomainEvents[K], meta: EmitMeta = {}) {
    if (!inner.hasDurable(event)) return inner.publish(event, payload, meta);
    let written: Promise<boolean>;
    if (meta.outboxId && !meta.outboxKey) {
      // Staged in the change's transaction, which committed.
      if (deps.crashAfterCommit === event) process.kill(process.pid, 'SIGKILL');
      written = Promise.resolve(true);
    } else {
      const id = meta.outboxKey ? keyedId(meta.outboxKey) : randomUUID();
      meta = { ...meta, outboxId: id, at: meta.at ?? new Date() };
      written = write({
        id: meta.outboxId!,
        companyId: companyOf(payload),
        event,
        payload: encodePayload(event, payload),
        createdAt: meta.at!,
      });
    }
    const r = inner.publish(event, payload, meta);
    const id = meta.outboxId!;
    void track(
      Promise.all([written, r.durable]).then(([w, ok]) => {
        if (w && ok) forget(id);
      }),
    );
    return r;
  }

  async function recover(opts: { olderThanMs?: number } = {}) {
    const now = Date.now();
    const claimed = await executeRows<{
      id: string;
      seq: number | string;
      event: string;
      payload: string;
      created_at: Date | string;
      attempts: number;
    }>(
      db,
      sql`update event_outbox set claimed_until = ${new Date(now + LEASE_MS).toISOString()}::timestamptz,
          attempts = attempts + 1
        where id in (
          select id from event_outbox
          where created_at < ${new Date(now - (opts.olderThanMs ?? RECOVER_AFTER_MS)).toISOString()}::timestamptz
            and (claimed_until is null or claimed_until < ${new Date(now).toISOString()}::timestamptz)
          order by seq
          limit ${BATCH}
          for update skip locked)
        returning id, seq, event, payload, created_at, attempts`,
    );
    claimed.sort((a, b) => Number(a.seq) - Number(b.seq));
    const runs: Promise<void>[] = [];
    for (const row of claimed) {
      const meta = { outboxId: row.id, at: new Date(row.created_at) };
      if (row.attempts > MAX_ATTEMPTS) {
        (log.error ?? log.warn)(
          { outboxId: row.id, event: row.event },
          'outbox event dropped after its replays',
        );
        forget(row.id);
        continue;
      }
      let payload: unknown;
      try {
        payload = decodePayload(row.payload);
      } catch (err) {
        log.warn({ err, outboxId: row.id, event: row.event }, 'outbox event unreadable');
        forget(row.id);
        continue;
      }
      const recoverer = recoverers.get(row.event);
      const partial =
        payload && typeof payload === 'object' && '$rebuild' in payload
          ? (payload as { $rebuild: unknown }).$rebuild
          : undefined;
      const rebuild = partial !== undefined ? rebuilders.get(row.event) : undefined;
      if (partial !== undefined && !rebuild) {
        log.warn({ outboxId: row.id, event: row.event }, 'outbox event without a rebuilder');
        continue;
      }
      // In seq order: the taps see them in that order, and each key's listeners in turn.
      const done = recoverer
        ? recoverer(payload, meta).then(() => true)
        : rebuild
          ? rebuild(partial).then((full) =>
              full === null ? true : inner.replay(row.event as Name, full as never, meta),
            )
          : inner.replay(row.event as Name, payload as never, meta);
      runs.push(
        done.then(
          (ok) => {
            if (ok) forget(row.id);
          },
          (err: unknown) =>
            log.warn({ err, outboxId: row.id, event: row.event }, 'outbox event not recovered'),
        ),
      );
    }
    await Promise.all(runs);
    await flushDeletes();
    return claimed.length;
  }

  const sweepJob = defineJob({
    kind: 'outbox.sweep',
    payload: noPayload,
    handler: async () => {
      // Up to a few batches a run; the rest comes at the next.
      for (let i = 0; i < 5; i++) if ((await recover()) < BATCH) break;
    },
    // A short lease (renewed while a sweep runs): a process killed in the middle of one holds up the next
    // process's sweeps for seconds, not minutes.
    options: { every: SWEEP_MS, leaseMs: 15_000 },
  });

  return {
    ...inner,
    emit: (event, payload, meta) => publish(event, payload, meta).done,
    publish,
    async idle() {
      for (;;) {
        await inner.idle();
        if (!working.size && !doomed.length && !writing) return;
        await Promise.all([...working]);
        await flushDeletes();
      }
    },

    async stage(tx, events) {
      const { values, metas } = staged(events);
      if (values.length) await tx.insert(eventOutbox).values(values);
      return metas;
    },

    stageStatement(events, when) {
      const { values, metas } = staged(events);
      if (!values.length) return { statement: null, metas };
      const rows = sql.join(
        values.map(
          (v) =>
            sql`(${v.id}::uuid, ${v.companyId ?? null}::int, ${v.event}::text, ${v.payload}::text, ${v.createdAt!.toISOString()}::timestamptz)`,
        ),
        sql`, `,
      );
      return {
        statement: sql`insert into event_outbox (id, company_id, event, payload, created_at)
          select * from (values ${rows}) as v (id, company_id, event, payload, created_at)${when ? sql` where ${when}` : sql``}`,
        metas,
      };
    },

    async put(kind, companyId, payload, opts) {
      const id = randomUUID();
      await db.insert(eventOutbox).values({
        id,
        companyId,
        event: kind,
        payload: encodePayload(kind, payload),
        createdAt: new Date(Date.now() + (opts?.graceMs ?? 0)),
      });
      return id;
    },

    forget,
    recoverWith: (kind, fn) => void recoverers.set(kind, fn),
    rebuildWith: (event, fn) => void rebuilders.set(event, fn),
    recover,
    sweepJob,
  };
}
