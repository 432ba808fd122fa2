import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { sql } from 'drizzle-orm';
import pino from 'pino';
import { openDatabase, type Database } from '../db/client.js';
import { executeRows } from '../db/rows.js';
import { scratchDatabase } from '../db/scratch.js';
import { reachablePostgres } from '../../test/helpers.js';
import { manualClock } from '../lib/clock.js';
import { z } from 'zod';
import { defineJob, jobQueue, noPayload } from './job-queue.js';

const log = pino({ level: 'silent' });
const T0 = new Date('2030-01-01T12:00:00Z');
const numbered = z.object({ n: z.number().int() });

const until = async (fn: () => Promise<boolean> | boolean, ms = 10_000) => {
  const end = Date.now() + ms;
  while (!(await fn())) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
};

const jobRow = async (db: Database, kind: string) =>
  (
    await db.raw(
      'select status, attempts, key, payload, last_error, locked_by from jobs where kind = $1 order by id',
      [kind],
    )
  ).rows;

/** A PostgreSQL server for the two-process tests: DATABASE_URL, or the local one when it answers. */
const pgUrl = await reachablePostgres();

describe('job queue (one process)', () => {
  let database: Awaited<ReturnType<typeof scratchDatabase>>;
  beforeAll(async () => {
    database = await scratchDatabase(process.env.DATABASE_URL);
  });
  afterAll(() => database.drop());

  const queue = (start = T0) => {
    const clock = manualClock(start);
    const q = jobQueue({ db: database.db, clock, log, processId: `p-${Math.random()}` });
    return { q, clock };
  };

  test('a job runs once when due, not before', async () => {
    const { q, clock } = queue();
    const ran: unknown[] = [];
    const due = defineJob({
      kind: 'due.test',
      payload: numbered,
      handler: async (job) => {
        ran.push(job.payload);
      },
    });
    q.register(due);
    await q.schedule(due, { runAt: new Date(T0.getTime() + 60_000), payload: { n: 1 } });
    expect(await q.runDue()).toBe(0);
    clock.advance(59_999);
    expect(await q.runDue()).toBe(0);
    clock.advance(1);
    expect(await q.runDue()).toBe(1);
    expect(ran).toEqual([{ n: 1 }]);
    expect(await q.runDue()).toBe(0);
    expect((await jobRow(database, 'due.test'))[0]).toMatchObject({ status: 'done', attempts: 1 });
  });

  test('scheduling a key again moves the queued job instead of adding one', async () => {
    const { q, clock } = queue();
    const ran: unknown[] = [];
    const keyed = defineJob({
      kind: 'key.test',
      payload: numbered,
      handler: async (job) => {
        ran.push(job.payload);
      },
    });
    q.register(keyed);
    await q.schedule(keyed, { key: 'k1', runAt: new Date(T0.getTime() + 10_000), payload: { n: 1 } });
    await q.schedule(keyed, {
      key: 'k1',
      runAt: new Date(T0.getTime() + 20_000),
      payload: { n: 2 },
    });
    expect(await jobRow(database, 'key.test')).toHaveLength(1);
    clock.advance(10_000);
    expect(await q.runDue()).toBe(0);
    clock.advance(10_000);
    expect(await q.runDue()).toBe(1);
    expect(ran).toEqual([{ n: 2 }]);
    // Once done, the same key schedules a new run.
    await q.schedule(keyed, { key: 'k1', runAt: clock.now(), payload: { n: 3 } });
    expect(await q.runDue()).toBe(1);
    expect(ran).toEqual([{ n: 2 }, { n: 3 }]);
    expect(await jobRow(database, 'key.test')).toHaveLength(1);
  });

  test('a cancelled job never runs', async () => {
    const { q, clock } = queue();
    let runs = 0;
    const cancelled = defineJob({
      kind: 'cancel.test',
      payload: noPayload,
      handler: async () => {
        runs++;
      },
    });
    q.register(cancelled);
    await q.schedule(cancelled, { key: 'c1', runAt: new Date(T0.getTime() + 1000), payload: {} });
    await q.cancel(cancelled, 'c1');
    clock.advance(5000);
    expect(await q.runDue()).toBe(0);
    expect(runs).toBe(0);
    expect(await jobRow(database, 'cancel.test')).toHaveLength(0);
  });

  test('a failing job is retried after its delay, then marked failed after maxAttempts', async () => {
    const { q, clock } = queue();
    let runs = 0;
    const failing = defineJob({
      kind: 'fail.test',
      payload: noPayload,
      handler: async () => {
        runs++;
        throw new Error('provider down');
      },
      options: { maxAttempts: 3, retryDelayMs: 1000 },
    });
    q.register(failing);
    await q.schedule(failing, { payload: {} });
    expect(await q.runDue()).toBe(1);
    expect((await jobRow(database, 'fail.test'))[0]).toMatchObject({
      status: 'queued',
      attempts: 1,
      last_error: 'provider down',
    });
    expect(await q.runDue()).toBe(0); // waits for its retry delay
    clock.advance(1000);
    expect(await q.runDue()).toBe(1);
    clock.advance(1000);
    expect(await q.runDue()).toBe(0); // the second retry waits twice as long
    clock.advance(1000);
    expect(await q.runDue()).toBe(1);
    expect((await jobRow(database, 'fail.test'))[0]).toMatchObject({ status: 'failed', attempts: 3 });
    clock.advance(3600_000);
    expect(await q.runDue()).toBe(0);
    expect(runs).toBe(3);
  });

  test('a retry that succeeds ends done', async () => {
    const { q, clock } = queue();
    let runs = 0;
    const flaky = defineJob({
      kind: 'flaky.test',
      payload: noPayload,
      handler: async () => {
        if (++runs === 1) throw new Error('once');
      },
      options: { retryDelayMs: 500 },
    });
    q.register(flaky);
    await q.schedule(flaky, { key: 'f', payload: {} });
    await q.runDue();
    clock.advance(500);
    expect(await q.runDue()).toBe(1);
    expect((await jobRow(database, 'flaky.test'))[0]).toMatchObject({ status: 'done', attempts: 2 });
  });

  test('scheduled again while it runs, a job runs again at its new time', async () => {
    const { q, clock } = queue();
    const ran: unknown[] = [];
    const resched = defineJob({
      kind: 'resched.test',
      payload: numbered,
      handler: async (job) => {
        ran.push(job.payload);
        if (ran.length === 1)
          await q.schedule(resched, {
            key: 'r',
            runAt: new Date(clock.now().getTime() + 5000),
            payload: { n: 2 },
          });
      },
    });
    q.register(resched);
    await q.schedule(resched, { key: 'r', payload: { n: 1 } });
    expect(await q.runDue()).toBe(1);
    expect((await jobRow(database, 'resched.test'))[0]).toMatchObject({ status: 'queued', attempts: 0 });
    clock.advance(5000);
    expect(await q.runDue()).toBe(1);
    expect(ran).toEqual([{ n: 1 }, { n: 2 }]);
  });

  test('a recurring job comes back every interval, and survives a failing run', async () => {
    const { q, clock } = queue();
    let runs = 0;
    q.register(
      defineJob({
        kind: 'every.test',
        payload: noPayload,
        handler: async () => {
          runs++;
          if (runs === 2) throw new Error('bad sweep');
        },
        options: { every: 30_000 },
      }),
    );
    // Recurring runs are background work: runDue() does not count them.
    expect(await q.runDue()).toBe(0);
    expect(runs).toBe(1);
    await q.runDue();
    clock.advance(29_999);
    await q.runDue();
    expect(runs).toBe(1);
    clock.advance(1);
    await q.runDue();
    expect(runs).toBe(2);
    clock.advance(30_000);
    await q.runDue();
    expect(runs).toBe(3);
    expect(await jobRow(database, 'every.test')).toHaveLength(1);
  });

  test('a kind with a concurrency runs beside the others: a slow one holds back neither other kinds nor its own next jobs', async () => {
    const { q } = queue();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let running = 0;
    let most = 0;
    const slowDone: number[] = [];
    const slow = defineJob({
      kind: 'lane.slow',
      payload: numbered,
      handler: async (job) => {
        running++;
        most = Math.max(most, running);
        // The first waits like a dead endpoint until released; the others answer at once.
        if (job.payload.n === 1) await gate;
        running--;
        slowDone.push(job.payload.n);
      },
      options: { concurrency: 2 },
    });
    const quick: number[] = [];
    const timer = defineJob({
      kind: 'lane.inline',
      payload: numbered,
      handler: async (job) => {
        quick.push(job.payload.n);
      },
    });
    q.register(slow, timer);
    for (const n of [1, 2, 3, 4]) await q.schedule(slow, { payload: { n } });
    await q.schedule(timer, { payload: { n: 1 } });
    const pass = q.runDue();
    // While job 1 waits: the other kind ran, and the lane's later jobs went through its second place.
    await until(() => quick.length === 1 && slowDone.length >= 1);
    expect(slowDone).not.toContain(1);
    expect(most).toBeLessThanOrEqual(2);
    release();
    // runDue resolves once every job it started is done. Under a loaded machine the lane's last job may be
    // claimed by the next pass instead of this one (seen once in CI on PostgreSQL: 4 of 5); what this test is
    // about — the other kind and the lane's later jobs ran while job 1 waited — is checked above.
    const ran = await pass;
    expect(ran).toBeGreaterThanOrEqual(4);
    expect(ran + (ran < 5 ? await q.runDue() : 0)).toBe(5);
    expect(slowDone.sort()).toEqual([1, 2, 3, 4]);
    expect((await jobRow(database, 'lane.slow')).map((r) => r.status)).toEqual([
      'done',
      'done',
      'done',
      'done',
    ]);
  });

  test('jobs of kinds this process does not handle are left for others', async () => {
    const { q } = queue();
    q.register(defineJob({ kind: 'mine.test', payload: noPayload, handler: async () => undefined }));
    const theirs = defineJob({ kind: 'theirs.test', payload: noPayload, handler: async () => undefined });
    await q.schedule(theirs, { payload: {} });
    expect(await q.runDue()).toBe(0);
    expect((await jobRow(database, 'theirs.test'))[0]).toMatchObject({ status: 'queued', attempts: 0 });
  });

  test('payloads are checked by the job schema: refused when scheduled, and a bad row never reaches the handler', async () => {
    const { q } = queue();
    const ran: number[] = [];
    const typed = defineJob({
      kind: 'typed.test',
      payload: numbered,
      handler: async (job) => {
        ran.push(job.payload.n);
      },
      options: { maxAttempts: 1 },
    });
    q.register(typed);
    // @ts-expect-error -- the payload's type comes from the schema
    await expect(q.schedule(typed, { payload: { n: 'one' } })).rejects.toThrow();
    expect(await jobRow(database, 'typed.test')).toHaveLength(0);
    // A row written by something else (an older version, a hand-made insert) with a payload the schema refuses.
    await database.raw(
      `insert into jobs (kind, payload, run_at, max_attempts) values ('typed.test', '{"n":"x"}', $1, 1)`,
      [T0.toISOString()],
    );
    expect(await q.runDue()).toBe(1);
    expect(ran).toEqual([]);
    expect((await jobRow(database, 'typed.test'))[0]).toMatchObject({
      status: 'failed',
      last_error: 'invalid payload for typed.test',
    });
    expect(() => q.register(typed)).toThrow(/registered twice/);
  });
});

/**
 * Two "processes" (two queues, each with its own pool on PostgreSQL) on one database. The handler claims
 * its entity with a conditional UPDATE before its side effect, as every handler must.
 */
function twoProcessSuite(
  name: string,
  open: () => Promise<{ a: Database; b: Database; drop(): Promise<void> }>,
) {
  describe(name, () => {
    let a: Database;
    let b: Database;
    let drop: () => Promise<void>;
    beforeAll(async () => {
      ({ a, b, drop } = await open());
      await a.raw('create table job_test_entities (id int primary key, state text not null)');
    });
    afterAll(() => drop());

    const chargeHandler =
      (db: Database, who: string, effects: string[], hold?: Promise<void>) =>
      async (job: { payload: { id: number } }) => {
        const claimed = await executeRows(
          db.db,
          sql`update job_test_entities set state = 'charged' where id = ${job.payload.id} and state = 'pending'
            returning id`,
        );
        if (claimed.length) effects.push(who);
        if (hold) await hold;
      };

    test('a process killed mid-job: the lease expires, a second process reclaims it, the effect happens once', async () => {
      await a.raw(`insert into job_test_entities values (1, 'pending')`);
      const clockA = manualClock(T0);
      const clockB = manualClock(T0);
      const qa = jobQueue({ db: a.db, clock: clockA, log, processId: 'proc-A' });
      const qb = jobQueue({ db: b.db, clock: clockB, log, processId: 'proc-B' });
      const effects: string[] = [];
      let release!: () => void;
      const hang = new Promise<void>((r) => (release = r));
      const charge = (handler: ReturnType<typeof chargeHandler>) =>
        defineJob({
          kind: 'charge',
          payload: z.object({ id: z.number() }),
          handler,
          options: { leaseMs: 5000 },
        });
      qa.register(charge(chargeHandler(a, 'A', effects, hang)));
      qb.register(charge(chargeHandler(b, 'B', effects)));
      await qa.schedule(charge(chargeHandler(a, 'A', effects)), { key: 'entity-1', payload: { id: 1 } });

      // A claims the job and does the side effect, then "dies" before it can mark the job done.
      const aRun = qa.runDue();
      await until(() => effects.length === 1);
      expect((await jobRow(a, 'charge'))[0]).toMatchObject({ status: 'running', locked_by: 'proc-A' });

      // B does not touch it while A's lease holds...
      expect(await qb.runDue()).toBe(0);
      // ...and takes it over once the lease has expired; the handler finds its entity already claimed.
      clockB.advance(5001);
      expect(await qb.runDue()).toBe(1);
      expect(effects).toEqual(['A']);
      expect((await jobRow(a, 'charge'))[0]).toMatchObject({ status: 'done', attempts: 2, locked_by: null });

      // The old owner waking up cannot overwrite the new owner's outcome.
      release();
      expect(await aRun).toBe(1);
      expect((await jobRow(a, 'charge'))[0]).toMatchObject({ status: 'done', attempts: 2 });
      expect(await qa.runDue()).toBe(0);
      expect(effects).toEqual(['A']);
    });

    test('two processes working the same jobs never run one job twice', async () => {
      const clock = manualClock(T0);
      const qa = jobQueue({ db: a.db, clock, log, processId: 'proc-A2' });
      const qb = jobQueue({ db: b.db, clock, log, processId: 'proc-B2' });
      const runs = new Map<number, string[]>();
      const inFlight = new Set<number>();
      let overlaps = 0;
      const handler = (who: string) => async (job: { payload: { n: number } }) => {
        const n = job.payload.n;
        if (inFlight.has(n)) overlaps++;
        inFlight.add(n);
        // Yield so both processes are claiming at the same time.
        await new Promise((r) => setTimeout(r, 2));
        runs.set(n, [...(runs.get(n) ?? []), who]);
        inFlight.delete(n);
      };
      const many = (who: string) =>
        defineJob({ kind: 'many', payload: numbered, handler: handler(who), options: { leaseMs: 600_000 } });
      const manyA = many('A');
      qa.register(manyA);
      qb.register(many('B'));
      const total = 120;
      for (let n = 0; n < total; n++) await qa.schedule(manyA, { payload: { n } });
      const [ra, rb] = await Promise.all([qa.runDue(), qb.runDue()]);
      expect(ra + rb).toBe(total);
      expect(overlaps).toBe(0);
      expect(runs.size).toBe(total);
      for (const who of runs.values()) expect(who).toHaveLength(1);
      const rows = await jobRow(a, 'many');
      expect(rows.every((r) => r.status === 'done' && r.attempts === 1)).toBe(true);
    });
  });
}

twoProcessSuite('job queue, two processes on one embedded database', async () => {
  const db = await scratchDatabase();
  return { a: db, b: db, drop: () => db.drop() };
});

describe.skipIf(!pgUrl)('on PostgreSQL', () => {
  twoProcessSuite('job queue, two processes with their own pools on one PostgreSQL database', async () => {
    const db = await scratchDatabase(pgUrl);
    const other = await openDatabase({ url: db.url!, poolSize: 4 });
    return {
      a: db,
      b: other,
      drop: async () => {
        await other.close();
        await db.drop();
      },
    };
  });
});
