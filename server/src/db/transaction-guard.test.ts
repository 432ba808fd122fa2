import { eq, sql } from 'drizzle-orm';
import { afterAll, expect, test } from 'vitest';
import { freshDatabase } from '../../test/helpers.js';
import { isOuterHandleError } from './client.js';
import { plans } from './schema/index.js';

// docs/security.md: inside db.transaction(), a query through the outer handle fails at once instead of
// waiting (forever, on PGlite's one session) for the transaction that waits for it.
const database = await freshDatabase();
afterAll(() => database.drop());
const { db } = database;
const quick = <T>(p: Promise<T>) =>
  Promise.race([p, new Promise<never>((_, fail) => setTimeout(() => fail(new Error('hung')), 3000))]);
/** Rejects with the guard's error (drizzle wraps a failed query's error: the guard's is its cause). */
const guarded = async (p: Promise<unknown>) => {
  const err = await quick(p).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(isOuterHandleError(err), String(err)).toBe(true);
};

test('the outer handle inside a transaction throws; the transaction rolls back', async () => {
  const name = 'guard-probe';
  const attempt = db.transaction(async (tx) => {
    await tx.insert(plans).values({ name, value: 1 });
    await db.select().from(plans).where(eq(plans.name, name));
  });
  await guarded(attempt);
  expect(await db.select().from(plans).where(eq(plans.name, name))).toEqual([]);

  // Raw SQL and a nested transaction through the outer handle: the same.
  await guarded(db.transaction(async () => void (await database.raw('select 1'))));
  await guarded(db.transaction(async () => db.transaction(async (inner) => inner.select().from(plans))));
  // Deeper in the awaited chain (a helper called from the body) is caught too.
  const helper = async () => (await db.select().from(plans).limit(1)).length;
  await guarded(db.transaction(async () => helper()));
});

test('the transaction handle, other work meanwhile and work after the commit are untouched', async () => {
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  const name = 'guard-ok';
  const tx = db.transaction(async (t) => {
    await t.insert(plans).values({ name, value: 2 });
    // A savepoint on the transaction's own handle is fine.
    await t.transaction(async (sp) => sp.select().from(plans).where(eq(plans.name, name)));
    await held;
    return (await t.select().from(plans).where(eq(plans.name, name))).length;
  });
  // Another caller's query while the transaction is open waits its turn (PGlite) or runs (PostgreSQL).
  const other = db.select().from(plans).limit(1);
  release();
  expect(await quick(tx)).toBe(1);
  expect((await quick(other)).length).toBe(1);
  // Work started inside the transaction that runs after it ended may use the outer handle.
  let later: Promise<number> | undefined;
  await db.transaction(async () => {
    later = new Promise<void>((r) => setTimeout(r, 50)).then(
      async () => (await db.select().from(plans).where(eq(plans.name, name))).length,
    );
  });
  expect(await quick(later!)).toBe(1);
});

test('a listener woken by a notification a transaction commits may use the outer handle', async () => {
  // PGlite calls listeners back from inside the COMMIT that delivered the notification: without its own
  // context the listener's queries were taken for the transaction's (the outbox owner never sent).
  const channel = 'guard_listen_probe';
  let seen!: (n: number) => void;
  const answered = new Promise<number>((r) => (seen = r));
  const stop = await database.listen(channel, () => {
    void db
      .select()
      .from(plans)
      .then(
        (rows) => seen(rows.length),
        () => seen(-1),
      );
  });
  await db.transaction(async (tx) => {
    await tx.execute(sql`select pg_notify(${channel}, 'x')`);
  });
  expect(await quick(answered)).toBeGreaterThan(0);
  await stop();
});
