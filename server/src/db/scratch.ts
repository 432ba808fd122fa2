import { randomBytes } from 'node:crypto';
import { openDatabase, type Database } from './client.js';

/**
 * A throw-away migrated database: in-memory PGlite, or — given a PostgreSQL URL — a new database of its own
 * on that server, dropped by drop(). Used by tests and benchmarks; the server's own database is untouched.
 */
export async function scratchDatabase(
  url?: string,
  opts: { poolSize?: number } = {},
): Promise<Database & { drop(): Promise<void>; url?: string }> {
  if (!url) {
    const db = await openDatabase({});
    await db.migrate();
    return { ...db, drop: () => db.close() };
  }
  const { default: pg } = await import('pg');
  const name = `recado_t_${process.pid}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const u = new URL(url);
  u.pathname = `/${name}`;
  const db = await openDatabase({ url: u.toString(), poolSize: opts.poolSize ?? 10 });
  await db.migrate();
  return {
    ...db,
    // Tests that run two "processes" open a second pool on the same database.
    url: u.toString(),
    async drop() {
      await db.close();
      const a = new pg.Client({ connectionString: url });
      await a.connect();
      await a.query(`drop database if exists ${name} with (force)`);
      await a.end();
    },
  };
}
