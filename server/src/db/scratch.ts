import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { MIGRATIONS_DIR, openDatabase, type Database } from './client.js';

/**
 * Where migrated PGlite images wait for the next scratch database. A new in-memory PGlite spends most of its
 * start on initdb and the migrations (≈4 s a file on a busy 2-core machine, against ≈1 s to load an image);
 * the image is keyed by the migrations' contents and PGlite's version, so a changed migration makes a new one.
 * RECADO_TEST_DB_IMAGE=off starts every scratch database from scratch.
 */
const IMAGE_DIR = join(tmpdir(), 'recado-pglite-images');

function imageKey(): string {
  const h = createHash('sha256');
  const walk = (dir: string) => {
    for (const name of readdirSync(dir, { withFileTypes: true }).sort((a, b) =>
      a.name.localeCompare(b.name),
    )) {
      const path = join(dir, name.name);
      if (name.isDirectory()) walk(path);
      else if (/\.(sql|json)$/.test(name.name)) h.update(name.name).update(readFileSync(path));
    }
  };
  walk(MIGRATIONS_DIR);
  let dir = dirname(createRequire(import.meta.url).resolve('@electric-sql/pglite'));
  while (!existsSync(join(dir, 'package.json')) && dirname(dir) !== dir) dir = dirname(dir);
  h.update(readFileSync(join(dir, 'package.json')));
  return h.digest('hex').slice(0, 16);
}

async function migratedPglite(): Promise<Database> {
  if (process.env.RECADO_TEST_DB_IMAGE === 'off') {
    const db = await openDatabase({});
    await db.migrate();
    return db;
  }
  const file = join(IMAGE_DIR, `${imageKey()}.tar`);
  if (existsSync(file)) {
    const db = await openDatabase({ image: new Blob([readFileSync(file)]) });
    await db.migrate(); // a no-op on a current image; a safety net if it is not
    return db;
  }
  const db = await openDatabase({});
  await db.migrate();
  const image = await db.dumpImage!();
  mkdirSync(IMAGE_DIR, { recursive: true });
  // Older migrations' images go; this one stays (another worker of the run may be reading it).
  for (const old of readdirSync(IMAGE_DIR))
    if (old.endsWith('.tar') && join(IMAGE_DIR, old) !== file) rmSync(join(IMAGE_DIR, old), { force: true });
  // Written aside and renamed: a worker starting meanwhile reads a whole image or none.
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
  writeFileSync(tmp, Buffer.from(await image.arrayBuffer()));
  renameSync(tmp, file);
  return db;
}

/**
 * The migrated image's file, made on first use; undefined with RECADO_TEST_DB_IMAGE=off. The restart harness
 * (test/restart.ts) starts a server's PGlite data directory from it.
 */
export async function migratedImageFile(): Promise<string | undefined> {
  if (process.env.RECADO_TEST_DB_IMAGE === 'off') return undefined;
  const file = join(IMAGE_DIR, `${imageKey()}.tar`);
  if (!existsSync(file)) await (await migratedPglite()).close();
  return file;
}

/**
 * A throw-away migrated database: in-memory PGlite, or — given a PostgreSQL URL — a new database of its own
 * on that server, dropped by drop(). Used by tests and benchmarks; the server's own database is untouched.
 */
export async function scratchDatabase(
  url?: string,
  opts: { poolSize?: number } = {},
): Promise<Database & { drop(): Promise<void>; url?: string }> {
  if (!url) {
    const db = await migratedPglite();
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
