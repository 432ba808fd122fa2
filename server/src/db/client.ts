import { AsyncLocalStorage, AsyncResource } from 'node:async_hooks';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import * as schema from './schema/index.js';
import { SERVER_ROOT } from '../lib/paths.js';

export type Schema = typeof schema;
export type Db = PgDatabase<PgQueryResultHKT, Schema>;
/** The handle inside `db.transaction(async (tx) => ...)`; services pass it to helpers that must join the transaction. */
export type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];

export interface Database {
  db: Db;
  kind: 'pglite' | 'postgres';
  /** Runs migrations (idempotent). */
  migrate(): Promise<void>;
  close(): Promise<void>;
  /** Plain SQL, used by infrastructure (job queue, benchmarks). */
  raw(sql: string, params?: unknown[]): Promise<{ rows: Record<string, unknown>[] }>;
  /**
   * LISTEN on a channel (NOTIFY from any connection, or any process on PostgreSQL, calls back with the
   * payload); resolves with a function that stops listening. Best effort: callers also poll.
   */
  listen(channel: string, onNotify: (payload: string) => void): Promise<() => Promise<void>>;
  /** PGlite only: the whole data folder as an uncompressed tarball, to start another from (`image`). */
  dumpImage?(): Promise<Blob>;
}

export const MIGRATIONS_DIR = join(SERVER_ROOT, 'drizzle');

/**
 * Connections of the server's pool on PostgreSQL. Inbound messages go in batches and most requests
 * authenticate from memory, so bursts hold few connections: 20 measured no better than 10 on the ingest
 * benchmark (docs/benchmarks.md; BENCH_POOL tries other sizes).
 */
export const DEFAULT_POOL_SIZE = 10;

/** pg_advisory_lock key held while migrations run (any fixed number; "recado" in ASCII). */
const MIGRATION_LOCK = 0x72656361646f;

export interface DatabaseOptions {
  /** A PostgreSQL URL; absent means embedded PGlite. */
  url?: string;
  /** PGlite data directory; absent means in memory (tests). */
  dataDir?: string;
  poolSize?: number;
  /**
   * The transaction guard (below): on by default on PGlite, where the mistake freezes the server, and on
   * PostgreSQL under tests (vitest), where it would only run a query outside its transaction.
   */
  transactionGuard?: boolean;
  /**
   * A new PGlite (in memory, or in an empty `dataDir`) starts from this data folder (a tarball from
   * `dumpImage()`) instead of an empty cluster: tests' databases skip initdb and the migrations
   * (src/db/scratch.ts, test/restart.ts).
   */
  image?: Blob;
}

/** What the transaction guard throws: code inside `db.transaction()` used the outer handle. */
export class OuterHandleInTransactionError extends Error {
  constructor(what: string) {
    super(
      `${what} through the outer database handle inside a transaction: pass the transaction (tx) instead. ` +
        'On PGlite (one session) the query would wait for the transaction that waits for it, forever.',
    );
    this.name = 'OuterHandleInTransactionError';
  }
}

/** The guard's error, as thrown or as the cause drizzle wraps a failed query's error around. */
export const isOuterHandleError = (err: unknown): boolean =>
  err instanceof OuterHandleInTransactionError ||
  (err instanceof Error && err.cause instanceof OuterHandleInTransactionError);

/**
 * The transaction guard (docs/security.md): while `db.transaction(fn)` runs, a query that `fn` (or anything it
 * awaits) sends through the outer handle — `db.select()…`, `database.raw()`, another `db.transaction()` —
 * throws OuterHandleInTransactionError at once instead of queueing behind the transaction. The scope follows
 * the async context of `fn` only: other requests' queries meanwhile wait their turn as usual, and work that
 * outlives the transaction is free again once it has ended.
 */
function transactionGuard(db: Db) {
  const scope = new AsyncLocalStorage<{ open: boolean }>();
  const check = (what: string) => {
    if (scope.getStore()?.open) throw new OuterHandleInTransactionError(what);
  };
  const transaction = db.transaction.bind(db);
  db.transaction = ((fn, config) => {
    check('a new transaction');
    const store = { open: true };
    return scope
      .run(store, () => transaction(fn, config))
      .finally(() => {
        store.open = false;
      });
  }) as Db['transaction'];
  /** Wraps the driver's query methods (a pg Pool's `query`, PGlite's `query` and `exec`). */
  const guard = <T extends object>(target: T, methods: (keyof T)[]) => {
    for (const m of methods) {
      const original = (target[m] as (...a: unknown[]) => unknown).bind(target);
      (target as Record<keyof T, unknown>)[m] = (...args: unknown[]) => {
        try {
          check('a query');
        } catch (err) {
          return Promise.reject(err);
        }
        return original(...args);
      };
    }
  };
  return { guard };
}

const underTests = () => Boolean(process.env.VITEST) || process.env.NODE_ENV === 'test';

export async function openDatabase(opts: DatabaseOptions): Promise<Database> {
  if (opts.url) {
    const { default: pg } = await import('pg');
    const { drizzle } = await import('drizzle-orm/node-postgres');
    const { migrate } = await import('drizzle-orm/node-postgres/migrator');
    const pool = new pg.Pool({ connectionString: opts.url, max: opts.poolSize ?? DEFAULT_POOL_SIZE });
    // An idle connection the server ended (restart, terminated backend, a dropped scratch database while
    // closing) must not take the process down: the pool drops it and the next query opens another.
    pool.on('error', () => undefined);
    const db = drizzle(pool, { schema }) as unknown as Db;
    if (opts.transactionGuard ?? underTests()) transactionGuard(db).guard(pool, ['query']);
    return {
      db,
      kind: 'postgres',
      // Several processes starting together: one applies the migrations under a session advisory lock on
      // its own connection, the others wait for it and then find nothing left to apply.
      migrate: async () => {
        const client = await pool.connect();
        try {
          await client.query('select pg_advisory_lock($1)', [MIGRATION_LOCK]);
          await migrate(drizzle(client, { schema }) as never, { migrationsFolder: MIGRATIONS_DIR });
        } finally {
          await client.query('select pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => undefined);
          client.release();
        }
      },
      close: () => pool.end(),
      raw: async (text, params) => {
        const r = await pool.query(text, params as unknown[]);
        return { rows: r.rows };
      },
      listen: (channel, onNotify) => listenOnPostgres(opts.url!, channel, onNotify),
    };
  }
  const { PGlite } = await import('@electric-sql/pglite');
  // pg_trgm backs the search indexes (migration 0005) and unaccent the accent-blind search_norm() they index
  // (migration 0015, docs/search.md); PGlite bundles both as contrib extensions.
  const { pg_trgm } = await import('@electric-sql/pglite/contrib/pg_trgm');
  const { unaccent } = await import('@electric-sql/pglite/contrib/unaccent');
  const { drizzle } = await import('drizzle-orm/pglite');
  const { migrate } = await import('drizzle-orm/pglite/migrator');
  if (opts.dataDir) mkdirSync(opts.dataDir, { recursive: true });
  const extensions = { pg_trgm, unaccent };
  const image = opts.image ? { loadDataDir: opts.image } : {};
  const client = opts.dataDir
    ? new PGlite(join(opts.dataDir, 'pglite'), { extensions, ...image })
    : new PGlite({ extensions, ...image });
  await client.waitReady;
  const db = drizzle(client, { schema }) as unknown as Db;
  if (opts.transactionGuard ?? true) transactionGuard(db).guard(client, ['query', 'exec']);
  return {
    db,
    kind: 'pglite',
    migrate: () => migrate(db as never, { migrationsFolder: MIGRATIONS_DIR }),
    close: () => client.close(),
    dumpImage: () => client.dumpDataDir('none'),
    raw: async (text, params) => {
      const r = await client.query<Record<string, unknown>>(text, params as unknown[]);
      return { rows: r.rows };
    },
    listen: async (channel, onNotify) => {
      // PGlite calls back from inside the query that received the notification — often a transaction's COMMIT,
      // whose async context the transaction guard reads as "inside the transaction". The callback runs in the
      // context it was registered in instead, so a listener's own queries are never taken for the transaction's.
      const stop = await client.listen(channel, AsyncResource.bind(onNotify));
      return async () => {
        await stop().catch(() => undefined);
      };
    },
  };
}

/**
 * A dedicated connection outside the pool holds the LISTEN (a pooled one would be handed to others). When it
 * drops, it reconnects after a second; notifications sent meanwhile are lost, which the callers' polls cover.
 */
async function listenOnPostgres(url: string, channel: string, onNotify: (payload: string) => void) {
  const { default: pg } = await import('pg');
  let client: InstanceType<typeof pg.Client> | undefined;
  let stopped = false;
  let retry: NodeJS.Timeout | undefined;
  const connect = async () => {
    if (stopped) return;
    const c = new pg.Client({ connectionString: url });
    c.on('notification', (n) => {
      if (n.channel === channel) onNotify(n.payload ?? '');
    });
    c.on('error', () => {
      void c.end().catch(() => undefined);
      if (client === c) client = undefined;
      if (!stopped) retry = setTimeout(() => void connect().catch(() => undefined), 1000);
    });
    await c.connect();
    await c.query(`listen "${channel.replace(/"/g, '""')}"`);
    client = c;
    if (stopped) await c.end().catch(() => undefined);
  };
  await connect();
  return async () => {
    stopped = true;
    if (retry) clearTimeout(retry);
    await client?.end().catch(() => undefined);
  };
}
