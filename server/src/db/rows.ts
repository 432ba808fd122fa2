import { fillPlaceholders, getTableColumns, sql, type SQL } from 'drizzle-orm';
import { PgDialect, type PgTable } from 'drizzle-orm/pg-core';
import type { Db, Tx } from './client.js';

const dialect = new PgDialect();

type Pool = {
  totalCount: number;
  query(q: { name: string; text: string; values: unknown[] }): Promise<{ rows: unknown[] }>;
};

/**
 * The rows of `db.execute` on either driver (node-postgres and PGlite both answer `{ rows }`). With a
 * `prepared` name, on PostgreSQL the statement is prepared once per connection and planned from then on
 * without parsing it again (for hot statements whose text never changes; PGlite runs it as usual).
 */
export async function executeRows<T = Record<string, unknown>>(
  db: Db,
  query: SQL,
  prepared?: string,
): Promise<T[]> {
  const client = (db as unknown as { $client?: Pool }).$client;
  if (prepared && client && typeof client.totalCount === 'number') {
    const { sql: text, params } = dialect.sqlToQuery(query);
    return (await client.query({ name: prepared, text, values: params })).rows as T[];
  }
  const result = (await db.execute(query)) as unknown as { rows?: T[] } | T[];
  return Array.isArray(result) ? result : (result.rows ?? []);
}

const compiled = new Map<string, { sql: string; params: unknown[] }>();

/**
 * A hot statement whose text never changes, by name: `build` makes it with `p(key)` where each value goes;
 * on PostgreSQL it is turned into text once (placeholders) and prepared once per connection, and a call only
 * fills in `values`; PGlite runs it built with the values.
 */
export async function executePrepared<T = Record<string, unknown>>(
  db: Db,
  name: string,
  build: (p: (key: string) => unknown) => SQL,
  values: Record<string, unknown>,
): Promise<T[]> {
  const client = (db as unknown as { $client?: Pool }).$client;
  if (client && typeof client.totalCount === 'number') {
    let q = compiled.get(name);
    if (!q) {
      q = dialect.sqlToQuery(build((key) => sql.placeholder(key)));
      compiled.set(name, q);
    }
    return (await client.query({ name, text: q.sql, values: fillPlaceholders(q.params, values) }))
      .rows as T[];
  }
  return executeRows<T>(
    db,
    build((key) => values[key]),
  );
}

/**
 * A table row from raw SQL — a `returning *` row or `row_to_json(...)` of one (snake_case names) — mapped
 * the way drizzle maps its own results (timestamps to Date, bigint ids to numbers, jsonb parsed).
 */
export function rowOf<T extends PgTable>(table: T, raw: Record<string, unknown>): T['$inferSelect'] {
  const out: Record<string, unknown> = {};
  for (const [key, column] of Object.entries(getTableColumns(table))) {
    const value = raw[column.name];
    out[key] = value === null || value === undefined ? null : column.mapFromDriverValue(value);
  }
  return out as T['$inferSelect'];
}

/**
 * A drizzle prepared query (`.prepare(name)` with `sql.placeholder`s) made once per database connection: a hot
 * statement skips building its SQL on every call (for a five-join select, most of its client CPU) and, on
 * PostgreSQL, parsing and planning it (named statements are prepared once per connection). It is kept per
 * connection the handle runs on — the pool for `db`, the pooled client a transaction holds (the same client
 * object comes back with the next transaction that checks it out) — so a statement always runs where it was
 * asked to, inside the caller's transaction when given one.
 */
export function preparedQuery<Q>(build: (db: Db) => Q): (db: Db | Tx) => Q {
  const made = new WeakMap<object, Q>();
  return (db) => {
    const key = (db as unknown as { session?: { client?: object } }).session?.client ?? db;
    let q = made.get(key);
    if (!q) {
      q = build(db as Db);
      made.set(key, q);
    }
    return q;
  };
}
