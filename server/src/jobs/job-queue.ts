import { randomUUID } from 'node:crypto';
import { sql, type SQL } from 'drizzle-orm';
import { z } from 'zod';
import type { Db } from '../db/client.js';
import { executeRows } from '../db/rows.js';
import { systemClock, type Clock } from '../lib/clock.js';
import { truncate } from '../lib/text.js';
import { requestContext } from '../lib/request-context.js';

export interface JobRecord<P = unknown> {
  id: number;
  kind: string;
  key: string | null;
  companyId: number | null;
  /** Checked against the job's schema before the handler runs. */
  payload: P;
  attempts: number;
  runAt: Date;
}

export interface JobOptions {
  /** How long a claimed job belongs to this process before another may take it (default 60 s). */
  leaseMs?: number;
  /** Runs before the job is marked failed (default 5). */
  maxAttempts?: number;
  /** Delay before the first retry, doubled on each further one, at most an hour (default 30 s). */
  retryDelayMs?: number;
  /**
   * A recurring job: the handler runs every `every` ms (clock time), a failed run is logged and the next
   * one comes anyway. Nobody schedules it; its payload is `{}`.
   */
  every?: number;
  /** With `every`: each process has its own row (key = the process id), for work tied to a process. */
  perProcess?: boolean;
  /**
   * Jobs of this kind run beside the others, up to this many at a time in a process, instead of one after
   * another with every other kind: for work that waits on servers we do not run (a tenant's webhook endpoint
   * may take its whole timeout), so one slow server cannot hold back every company's timers and sends.
   */
  concurrency?: number;
}

/** A kind of job: its name, its payload's schema, what it does and how it is retried (docs in README.md). */
export interface JobDefinition<P = unknown> {
  readonly kind: string;
  readonly payload: z.ZodType<P>;
  // Method syntax: a definition of any payload fits where definitions of unknown payloads are listed.
  handler(job: JobRecord<P>): Promise<void>;
  readonly options?: JobOptions;
}

/** Declares a job; register it with `jobs.register(definition)` and schedule it with `jobs.schedule(definition, …)`. */
export function defineJob<S extends z.ZodType>(def: {
  kind: string;
  payload: S;
  handler: (job: JobRecord<z.output<S>>) => Promise<void>;
  options?: JobOptions;
}): JobDefinition<z.output<S>> {
  return def as JobDefinition<z.output<S>>;
}

/** The payload a recurring job (or one that needs nothing) carries. */
export const noPayload = z.object({});

export interface JobQueue {
  /** The one way to make a kind of job run in this process (app.ts registers every module's definitions). */
  register(...definitions: JobDefinition[]): void;
  /**
   * Durable insert; the payload is checked against the definition's schema first. With a key, (kind, key)
   * is unique: scheduling again replaces runAt/payload while the job is queued, queues it again once done
   * or failed, and — while it runs — records the new runAt/payload as its next run (the current run then
   * ends as queued instead of done). `executor` lets you enqueue inside your own drizzle transaction.
   */
  schedule<P>(
    definition: JobDefinition<P>,
    job: { key?: string; runAt?: Date; payload: P; companyId?: number },
    executor?: unknown,
  ): Promise<void>;
  /** `schedule` as a statement (same checks) for the caller to run in its own statement or transaction. */
  scheduleStatement<P>(
    definition: JobDefinition<P>,
    job: { key?: string; runAt?: Date; payload: P; companyId?: number },
  ): SQL;
  cancel(definition: Pick<JobDefinition, 'kind'>, key: string): Promise<void>;
  cancelStatement(definition: Pick<JobDefinition, 'kind'>, key: string): SQL;
  /**
   * Claims every due job (runAt <= clock.now()) and runs its handler; returns how many ran, not counting
   * recurring jobs, which run in the background of any pass.
   */
  runDue(): Promise<number>;
  start(): void;
  stop(): Promise<void>;
  readonly processId: string;
}

interface Registration {
  handler(job: JobRecord): Promise<void>;
  payload: z.ZodType;
  leaseMs: number;
  maxAttempts: number;
  retryDelayMs: number;
  concurrency?: number;
}

interface ClaimedRow {
  id: string | number;
  kind: string;
  key: string | null;
  company_id: number | null;
  payload: unknown;
  attempts: number;
  run_at: string | Date;
  revision: number;
  request_id: string | null;
}

const BATCH = 20;
/** One runDue() runs at most this many jobs, so a flood cannot keep one call busy forever. */
const MAX_PER_PASS = 500;
const CLEANUP_EVERY_MS = 10 * 60_000;
const KEEP_DONE_MS = 24 * 3600_000;
const KEEP_FAILED_MS = 30 * 24 * 3600_000;

const iso = (d: Date) => sql`${d.toISOString()}::timestamptz`;
const ms = (n: number) => sql`(${n}::bigint * interval '1 millisecond')`;

/** Error text for the job row and the log: the message only (never a payload, which may hold personal data). */
const describe = (err: unknown) => truncate(err instanceof Error ? err.message : String(err), 500);

/**
 * A small durable job queue on the application's own database (PGlite or PostgreSQL). Jobs are claimed
 * with one UPDATE … FOR UPDATE SKIP LOCKED statement and run outside any transaction (PGlite has one
 * session: nothing is held open across a handler). Delivery is at-least-once: every handler claims its
 * own entity's state before its side effect (docs/jobs.md).
 */
export function jobQueue(deps: {
  db: Db;
  clock?: Clock;
  log: { warn(o: object, m: string): void; error(o: object, m: string): void };
  processId?: string;
  pollMs?: number;
}): JobQueue {
  const { db, log } = deps;
  const clock = deps.clock ?? systemClock;
  const me = deps.processId ?? `proc-${randomUUID()}`;
  const pollMs = deps.pollMs ?? 1000;
  const registry = new Map<string, Registration>();
  const recurring = new Map<string, { ms: number; key: string }>();
  let recurringEnsured = false;
  let timer: ReturnType<typeof setInterval> | undefined;
  let pass: Promise<number> = Promise.resolve(0);
  let busy = false;
  let lastCleanup = 0;

  const exec = <T = Record<string, unknown>>(q: SQL, on: Db = db) => executeRows<T>(on, q);

  function add(kind: string, payload: z.ZodType, handler: Registration['handler'], opts: JobOptions = {}) {
    if (registry.has(kind)) throw new Error(`job kind ${kind} registered twice`);
    registry.set(kind, {
      handler,
      payload,
      leaseMs: opts.leaseMs ?? 60_000,
      maxAttempts: opts.maxAttempts ?? 5,
      retryDelayMs: opts.retryDelayMs ?? 30_000,
      concurrency: opts.concurrency,
    });
  }

  function register(...definitions: JobDefinition[]) {
    for (const d of definitions) {
      if (d.options?.every) every(d.kind, d.options.every, (job) => d.handler(job), d.options);
      else add(d.kind, d.payload, (job) => d.handler(job), d.options);
    }
  }

  async function schedule<P>(
    definition: JobDefinition<P>,
    input: { key?: string; runAt?: Date; payload: unknown; companyId?: number },
    executor?: unknown,
  ) {
    await insert(
      { ...input, kind: definition.kind, payload: definition.payload.parse(input.payload) },
      executor,
    );
  }

  async function insert(
    job: { kind: string; key?: string; runAt?: Date; payload?: unknown; companyId?: number },
    executor?: unknown,
  ) {
    await exec(insertStatement(job), (executor as Db | undefined) ?? db);
  }

  /** The INSERT (an upsert with a key) that schedules a job, for a caller's own statement or transaction. */
  function insertStatement(job: {
    kind: string;
    key?: string;
    runAt?: Date;
    payload?: unknown;
    companyId?: number;
  }): SQL {
    const runAt = job.runAt ?? clock.now();
    const payload = JSON.stringify(job.payload ?? {});
    const maxAttempts = registry.get(job.kind)?.maxAttempts ?? 5;
    const values = sql`(${job.kind}, ${job.key ?? null}, ${job.companyId ?? null}, ${payload}::jsonb,
      ${iso(runAt)}, ${maxAttempts}, ${requestContext.reqId() ?? null})`;
    if (job.key === undefined)
      return sql`insert into jobs (kind, key, company_id, payload, run_at, max_attempts, request_id) values ${values}`;
    return sql`insert into jobs (kind, key, company_id, payload, run_at, max_attempts, request_id) values ${values}
        on conflict (kind, key) where key is not null do update set
          run_at = excluded.run_at, payload = excluded.payload, company_id = excluded.company_id,
          request_id = excluded.request_id,
          max_attempts = excluded.max_attempts, revision = jobs.revision + 1,
          status = case when jobs.status = 'running' then 'running' else 'queued' end,
          attempts = case when jobs.status = 'running' then jobs.attempts else 0 end,
          last_error = case when jobs.status = 'running' then jobs.last_error else null end,
          done_at = null`;
  }

  /** `schedule` as a statement: the caller runs it (in its own statement's CTE, or its transaction). */
  function scheduleStatement<P>(
    definition: JobDefinition<P>,
    input: { key?: string; runAt?: Date; payload: unknown; companyId?: number },
  ): SQL {
    return insertStatement({
      ...input,
      kind: definition.kind,
      payload: definition.payload.parse(input.payload),
    });
  }

  async function cancel(definition: Pick<JobDefinition, 'kind'>, key: string) {
    await exec(cancelStatement(definition, key));
  }

  /** `cancel` as a statement, for a caller's own statement (a CTE) or transaction. */
  function cancelStatement(definition: Pick<JobDefinition, 'kind'>, key: string): SQL {
    return sql`delete from jobs where kind = ${definition.kind} and key = ${key}`;
  }

  function every(kind: string, everyMs: number, handler: Registration['handler'], opts: JobOptions = {}) {
    const key = opts.perProcess ? `process:${me}` : 'every';
    recurring.set(kind, { ms: everyMs, key });
    add(
      kind,
      noPayload,
      async (job) => {
        try {
          await handler(job);
        } catch (err) {
          // A recurring job never dies of one bad run: it logs and comes back at its next time.
          log.warn({ kind, jobId: job.id, err: describe(err) }, 'recurring job failed');
        }
        // A dead process's own row (taken over after its lease) runs once more here and then ends.
        if (job.key === key) await insert({ kind, key, runAt: new Date(clock.now().getTime() + everyMs) });
      },
      opts,
    );
  }

  /** Recurring rows exist (created once, or queued again after a failure); an existing schedule is kept. */
  async function ensureRecurring() {
    for (const [kind, r] of recurring) {
      await exec(
        sql`insert into jobs (kind, key, payload, run_at, max_attempts)
          values (${kind}, ${r.key}, '{}'::jsonb, ${iso(clock.now())}, 5)
          on conflict (kind, key) where key is not null do update set status = 'queued', attempts = 0,
            run_at = ${iso(clock.now())}, revision = jobs.revision + 1, done_at = null
          where jobs.status in ('done', 'failed')`,
      );
    }
    recurringEnsured = true;
  }

  async function claim(now: Date, ran: number[], kinds: string[], limit = BATCH): Promise<ClaimedRow[]> {
    if (!kinds.length || limit <= 0) return [];
    const leases = Object.fromEntries([...registry].map(([k, r]) => [k, r.leaseMs]));
    return exec<ClaimedRow>(
      sql`update jobs set status = 'running', locked_by = ${me}, attempts = jobs.attempts + 1,
          locked_until = ${iso(now)} + ((${JSON.stringify(leases)}::jsonb ->> jobs.kind)::bigint * interval '1 millisecond')
        where jobs.id in (
          select id from jobs
          where kind in (select jsonb_array_elements_text(${JSON.stringify(kinds)}::jsonb))
            and ((status = 'queued' and run_at <= ${iso(now)})
              or (status = 'running' and locked_until < ${iso(now)}))
            and not (id = any (select (jsonb_array_elements_text(${JSON.stringify(ran)}::jsonb))::bigint))
          order by run_at, id
          limit ${limit}
          for update skip locked)
        returning jobs.id, jobs.kind, jobs.key, jobs.company_id, jobs.payload, jobs.attempts, jobs.run_at,
          jobs.revision, jobs.request_id`,
    );
  }

  async function runOne(row: ClaimedRow) {
    const reg = registry.get(row.kind)!;
    const id = Number(row.id);
    const raw: unknown = typeof row.payload === 'string' ? JSON.parse(row.payload) : row.payload;
    // A long handler keeps its lease (another process may take it only once this one stops renewing).
    const renew = setInterval(
      () =>
        void exec(
          sql`update jobs set locked_until = ${iso(clock.now())} + ${ms(reg.leaseMs)}
            where id = ${id} and locked_by = ${me} and status = 'running'`,
        ).catch(() => undefined),
      Math.max(1000, Math.floor(reg.leaseMs / 3)),
    );
    renew.unref?.();
    try {
      const parsed = reg.payload.safeParse(raw ?? {});
      // A payload its schema refuses never reaches the handler (the job fails like a throwing handler).
      if (!parsed.success) throw new Error(`invalid payload for ${row.kind}`);
      const job = {
        id,
        kind: row.kind,
        key: row.key,
        companyId: row.company_id,
        payload: parsed.data,
        attempts: row.attempts,
        runAt: new Date(row.run_at),
      };
      // The request that scheduled the job stays the context of its run (log lines, jobs it schedules).
      await (row.request_id ? requestContext.run(row.request_id, () => reg.handler(job)) : reg.handler(job));
      clearInterval(renew);
      const now = clock.now();
      // Done — unless it was scheduled again while it ran: then that is its next run.
      await exec(
        sql`update jobs set locked_by = null, locked_until = null, last_error = null,
            status = case when revision = ${row.revision} then 'done' else 'queued' end,
            attempts = case when revision = ${row.revision} then attempts else 0 end,
            done_at = case when revision = ${row.revision} then ${iso(now)} end
          where id = ${id} and locked_by = ${me} and status = 'running'`,
      );
    } catch (err) {
      clearInterval(renew);
      const now = clock.now();
      const delay = Math.min(reg.retryDelayMs * 2 ** Math.max(0, row.attempts - 1), 3600_000);
      const message = describe(err);
      const [after] = await exec<{ status: string }>(
        sql`update jobs set locked_by = null, locked_until = null, last_error = ${message},
            status = case when revision <> ${row.revision} then 'queued'
              when attempts >= max_attempts then 'failed' else 'queued' end,
            run_at = case when revision <> ${row.revision} then run_at else ${iso(now)} + ${ms(delay)} end,
            attempts = case when revision <> ${row.revision} then 0 else attempts end,
            done_at = case when revision = ${row.revision} and attempts >= max_attempts then ${iso(now)} end
          where id = ${id} and locked_by = ${me} and status = 'running'
          returning status`,
      );
      const context = {
        jobId: id,
        kind: row.kind,
        attempts: row.attempts,
        err: message,
        ...(row.request_id ? { reqId: row.request_id } : {}),
      };
      if (after?.status === 'failed') log.error(context, 'job failed for good');
      else log.warn(context, 'job failed; it will run again');
    }
  }

  async function cleanup(now: Date) {
    if (now.getTime() - lastCleanup < CLEANUP_EVERY_MS) return;
    lastCleanup = now.getTime();
    // A recurring row that could not reschedule itself (a database error at the wrong moment) comes back.
    await ensureRecurring();
    await exec(
      sql`delete from jobs where (status = 'done' and done_at < ${iso(now)} - ${ms(KEEP_DONE_MS)})
        or (status = 'failed' and done_at < ${iso(now)} - ${ms(KEEP_FAILED_MS)})`,
    );
  }

  /** Kinds with a concurrency of their own: the jobs of each now running in this process. */
  const lanes = new Map<string, Set<Promise<void>>>();
  const laneOf = (kind: string) => {
    let set = lanes.get(kind);
    if (!set) lanes.set(kind, (set = new Set()));
    return set;
  };

  /**
   * Claims and runs what is due: each lane's kind up to its free places, started beside the rest; every
   * other kind one job after another. `waitLanes`: resolve only once the lane jobs this pass started are done
   * (runDue's promise: "what was due has run"); the poller does not wait, so a slow lane never delays the
   * next poll.
   */
  async function onePass(waitLanes: boolean): Promise<number> {
    if (!recurringEnsured) await ensureRecurring();
    const ran: number[] = [];
    const started: Promise<void>[] = [];
    const inline = [...registry].filter(([, r]) => !r.concurrency).map(([k]) => k);
    let counted = 0;
    while (ran.length < MAX_PER_PASS) {
      for (const [kind, reg] of registry) {
        if (!reg.concurrency) continue;
        const running = laneOf(kind);
        for (const row of await claim(clock.now(), ran, [kind], reg.concurrency - running.size)) {
          ran.push(Number(row.id));
          if (!recurring.has(kind)) counted++;
          // Nobody awaits it in the poller's pass: its own failure is logged here, never left unhandled.
          const job: Promise<void> = runOne(row)
            .catch((err: unknown) => log.warn({ err: describe(err), kind }, 'job run failed'))
            .finally(() => running.delete(job));
          running.add(job);
          started.push(job);
        }
      }
      const rows = await claim(clock.now(), ran, inline);
      if (!rows.length) {
        // runDue: what waits for a lane's place is due too; wait for a place, then claim again.
        const active = [...lanes.values()].flatMap((set) => [...set]);
        if (!waitLanes || !active.length) break;
        await Promise.race(active);
        continue;
      }
      for (const row of rows) {
        ran.push(Number(row.id));
        await runOne(row);
        if (!recurring.has(row.kind)) counted++;
      }
    }
    if (waitLanes) await Promise.all(started);
    await cleanup(clock.now());
    return counted;
  }

  const queue: JobQueue = {
    processId: me,
    register,
    schedule,
    scheduleStatement,
    cancel,
    cancelStatement,
    // One pass at a time in a process: a call made during a pass runs its own pass after it.
    runDue() {
      const next = pass.catch(() => 0).then(() => onePass(true));
      pass = next;
      return next;
    },
    start() {
      if (timer) return;
      timer = setInterval(() => {
        if (busy) return;
        busy = true;
        const next = pass.catch(() => 0).then(() => onePass(false));
        pass = next;
        next
          .catch((err: unknown) => log.warn({ err: describe(err) }, 'job poll failed'))
          .finally(() => {
            busy = false;
          });
      }, pollMs);
      timer.unref?.();
    },
    async stop() {
      if (timer) clearInterval(timer);
      timer = undefined;
      // Let a pass in progress and the lane jobs running finish, but never hang a shutdown on a stuck
      // handler (its lease runs out and another process runs it).
      const drained = pass
        .catch(() => 0)
        .then(() => Promise.all([...lanes.values()].flatMap((set) => [...set])));
      await Promise.race([drained, new Promise((r) => setTimeout(r, 5000).unref?.())]);
    },
  };
  return queue;
}
