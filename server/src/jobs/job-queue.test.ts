import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { sql } from 'drizzle-orm';
import pino from 'pino';
import { openDatabase, type Database } from '../db/client.js';
import { executeRows } from '../db/rows.js';
import { scratchDatabase } from '../db/scratch.js';
import { manualClock } from '../lib/clock.js';
import { jobQueue } from './job-queue.js';

const log = pino({ level: 'silent' });
const T0 = new Date('2030-01-01T12:00:00Z');

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
const pgUrl = await (async () => {
  const url = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
  try {
    const { default: pg } = await import('pg');
    const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
    await c.connect();
    await c.end();
    return url;
  } catch {
    return undefined;
  }
})();

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
    q.register('due.test', async (job) => {
      ran.push(job.payload);
    });
    await q.schedule({ kind: 'due.test', runAt: new Date(T0.getTime() + 60_000), payload: { n: 1 } });
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
    q.register('key.test', async (job) => {
      ran.push(job.payload);
    });
    await q.schedule({
      kind: 'key.test',
      key: 'k1',
      runAt: new Date(T0.getTime() + 10_000),
      payload: { n: 1 },
    });
    await q.schedule({
      kind: 'key.test',
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
    await q.schedule({ kind: 'key.test', key: 'k1', runAt: clock.now(), payload: { n: 3 } });
    expect(await q.runDue()).toBe(1);
    expect(ran).toEqual([{ n: 2 }, { n: 3 }]);
    expect(await jobRow(database, 'key.test')).toHaveLength(1);
  });

  test('a cancelled job never runs', async () => {
    const { q, clock } = queue();
    let runs = 0;
    q.register('cancel.test', async () => {
      runs++;
    });
    await q.schedule({ kind: 'cancel.test', key: 'c1', runAt: new Date(T0.getTime() + 1000) });
    await q.cancel('cancel.test', 'c1');
    clock.advance(5000);
    expect(await q.runDue()).toBe(0);
    expect(runs).toBe(0);
    expect(await jobRow(database, 'cancel.test')).toHaveLength(0);
  });

  test('a failing job is retried after its delay, then marked failed after maxAttempts', async () => {
    const { q, clock } = queue();
    let runs = 0;
    q.register(
      'fail.test',
      async () => {
        runs++;
        throw new Error('provider down');
      },
      { maxAttempts: 3, retryDelayMs: 1000 },
    );
    await q.schedule({ kind: 'fail.test' });
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
    q.register(
      'flaky.test',
      async () => {
        if (++runs === 1) throw new Error('once');
      },
      { retryDelayMs: 500 },
    );
    await q.schedule({ kind: 'flaky.test', key: 'f' });
    await q.runDue();
    clock.advance(500);
    expect(await q.runDue()).toBe(1);
    expect((await jobRow(database, 'flaky.test'))[0]).toMatchObject({ status: 'done', attempts: 2 });
  });

  test('scheduled again while it runs, a job runs again at its new time', async () => {
    const { q, clock } = queue();
    const ran: unknown[] = [];
    q.register('resched.test', async (job) => {
      ran.push(job.payload);
      if (ran.length === 1)
        await q.schedule({
          kind: 'resched.test',
          key: 'r',
          runAt: new Date(clock.now().getTime() + 5000),
          payload: { n: 2 },
        });
    });
    await q.schedule({ kind: 'resched.test', key: 'r', payload: { n: 1 } });
    expect(await q.runDue()).toBe(1);
    expect((await jobRow(database, 'resched.test'))[0]).toMatchObject({ status: 'queued', attempts: 0 });
    clock.advance(5000);
    expect(await q.runDue()).toBe(1);
    expect(ran).toEqual([{ n: 1 }, { n: 2 }]);
  });

  test('a recurring job comes back every interval, and survives a failing run', async () => {
    const { q, clock } = queue();
    let runs = 0;
    q.every('every.test', 30_000, async () => {
      runs++;
      if (runs === 2) throw new Error('bad sweep');
    });
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

  test('jobs of kinds this process does not handle are left for others', async () => {
    const { q } = queue();
    q.register('mine.test', async () => undefined);
    await q.schedule({ kind: 'theirs.test' });
    expect(await q.runDue()).toBe(0);
    expect((await jobRow(database, 'theirs.test'))[0]).toMatchObject({ status: 'queued', attempts: 0 });
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
      qa.register('charge', chargeHandler(a, 'A', effects, hang), { leaseMs: 5000 });
      qb.register('charge', chargeHandler(b, 'B', effects), { leaseMs: 5000 });
      await qa.schedule({ kind: 'charge', key: 'entity-1', payload: { id: 1 } });

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
      qa.register('many', handler('A'), { leaseMs: 600_000 });
      qb.register('many', handler('B'), { leaseMs: 600_000 });
      const total = 120;
      for (let n = 0; n < total; n++) await qa.schedule({ kind: 'many', payload: { n } });
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
