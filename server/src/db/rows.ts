import { fillPlaceholders, getTableColumns, getTableName, sql, type SQL } from 'drizzle-orm';
import { PgDialect, type AnyPgColumn, type PgTable } from 'drizzle-orm/pg-core';
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

const insertTexts = new Map<string, { name: string; text: string; columns: [string, AnyPgColumn][] }>();

/**
 * Inserts `rows` (table rows by their drizzle keys, every row with the same keys) in one statement whose text
 * depends only on the table, those keys and the options: the rows go as one JSON parameter
 * (`jsonb_to_recordset`), so on PostgreSQL the statement is prepared once per connection and a call neither
 * builds SQL nor parses it; omitted columns take their defaults. For hot inserts of listeners and batchers
 * (timeline entries, outbox rows, flow statistics, the simulator's phone). Answers the `returning` rows
 * (snake_case, as `rowOf` maps them) when `returning` is set. Array columns are not supported.
 */
export async function insertRows<T extends PgTable>(
  db: Db | Tx,
  table: T,
  rows: Partial<T['$inferInsert']>[],
  opts: { onConflictDoNothing?: boolean; returning?: boolean } = {},
): Promise<Record<string, unknown>[]> {
  if (!rows.length) return [];
  const keysOf = (r: object) => Object.keys(r).filter((k) => (r as Record<string, unknown>)[k] !== undefined);
  const keys = keysOf(rows[0]!);
  const signature = keys.join(',');
  const odd = rows.filter((r) => keysOf(r).join(',') !== signature);
  if (odd.length) {
    // Rows with other keys (a default taken in one, a value given in another) go in statements of their own.
    const out = await insertRows(
      db,
      table,
      rows.filter((r) => !odd.includes(r)),
      opts,
    );
    return out.concat(await insertRows(db, table, odd, opts));
  }
  const tableName = getTableName(table);
  const cacheKey = `${tableName}:${keys.join(',')}:${opts.onConflictDoNothing ? 1 : 0}${opts.returning ? 1 : 0}`;
  let made = insertTexts.get(cacheKey);
  if (!made) {
    const all = getTableColumns(table) as Record<string, AnyPgColumn>;
    const columns = keys.map((k) => {
      const c = all[k];
      if (!c) throw new Error(`insertRows: ${tableName} has no column ${k}`);
      return [k, c] as [string, AnyPgColumn];
    });
    // Every field travels as text and is cast to its column's type (jsonb keeps its JSON text).
    const names = columns.map(([, c]) => `"${c.name}"`).join(', ');
    const typeOf = (c: AnyPgColumn) =>
      c
        .getSQLType()
        .replace(/^bigserial$/, 'bigint')
        .replace(/^serial$/, 'integer')
        .replace(/^smallserial$/, 'smallint');
    const text =
      `insert into "${tableName}" (${names}) select ${columns.map(([, c]) => `x."${c.name}"::${typeOf(c)}`).join(', ')} ` +
      `from jsonb_to_recordset($1::jsonb) as x(${columns.map(([, c]) => `"${c.name}" text`).join(', ')})` +
      (opts.onConflictDoNothing ? ' on conflict do nothing' : '') +
      (opts.returning ? ' returning *' : '');
    made = { name: `ins_${insertTexts.size}_${tableName}`.slice(0, 60), text, columns };
    insertTexts.set(cacheKey, made);
  }
  const json = JSON.stringify(
    rows.map((r) => {
      const out: Record<string, unknown> = {};
      for (const [k, c] of made!.columns) {
        const v = (r as Record<string, unknown>)[k];
        if (v === null || v === undefined) continue;
        const d = c.mapToDriverValue(v);
        out[c.name] =
          d instanceof Date ? d.toISOString() : typeof d === 'object' ? JSON.stringify(d) : String(d);
      }
      return out;
    }),
  );
  const client = (db as unknown as { $client?: Pool }).$client;
  if (client && typeof client.totalCount === 'number')
    return (await client.query({ name: made.name, text: made.text, values: [json] })).rows as Record<
      string,
      unknown
    >[];
  const [head, tail] = made.text.split('$1');
  return executeRows(db as Db, sql`${sql.raw(head!)}${json}${sql.raw(tail!)}`);
}
