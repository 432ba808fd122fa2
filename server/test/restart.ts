import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, expect } from 'vitest';
import { openDatabase, type Database } from '../src/db/client.js';
import { migratedImageFile, scratchDatabase } from '../src/db/scratch.js';
import { waitFor } from './helpers.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
/** The superuser every harness server is started with. */
export const SUPER = { email: 'super@restart.test', password: 'Super@12345' };

/** A TCP port nothing listens on right now. */
/**
 * A port for a child server, found free: drawn at random from 20000-29999, outside Linux's ephemeral range
 * (32768-60999) that `listen(0)` draws from. An ephemeral port just closed here can be handed to another test
 * file's `listen(0)` before this file's child binds it; that file's health check then reached this file's
 * server (a CI run: one file's requests went to another's crash-configured server).
 */
export const freePort = async (): Promise<number> => {
  for (;;) {
    const port = 20000 + Math.floor(Math.random() * 10000);
    const free = await new Promise<boolean>((resolve) => {
      const s = createServer();
      s.once('error', () => resolve(false));
      s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
    });
    if (free) return port;
  }
};

/** One JSON request to a child server's API (`base` ends in /api). */
export const call = async (base: string, method: string, path: string, token?: string, body?: unknown) => {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json().catch(() => null)) as Record<string, unknown> };
};

/** Logs in on a child server; the session's token. */
export async function login(base: string, who: { email: string; password: string }) {
  const r = await call(base, 'POST', '/auth/login', undefined, who);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body.token as string;
}

/**
 * Kill -9 and restart tests: the real server (server/src/main.ts, as `npm start` runs it) in child processes
 * on one database that outlives them (PGlite's data directory, or a PostgreSQL database of its own when
 * DATABASE_URL is set). Call once at the top of a test file: it removes what it made after the file.
 */
export async function restartHarness(
  name: string,
  opts: {
    env?: Record<string, string>;
    /** The child's entry, from the repository's root: the real server unless a test scripts its channels. */
    entry?: string;
  } = {},
) {
  const pgUrl = process.env.DATABASE_URL;
  const scratch = pgUrl ? await scratchDatabase(pgUrl, { poolSize: 2 }) : undefined;
  const dataDir = mkdtempSync(join(tmpdir(), `recado-${name}-`));
  const webDist = mkdtempSync(join(tmpdir(), `recado-${name}-web-`));
  const children: ChildProcess[] = [];
  // PGlite: the data directory starts from the tests' migrated image, so the first server skips initdb and the
  // migrations (≈15 s on a busy 2-core machine).
  const image = scratch ? undefined : await migratedImageFile();
  if (image) await (await openDatabase({ dataDir, image: new Blob([readFileSync(image)]) })).close();

  afterAll(async () => {
    // Each server runs in a process group of its own: one left behind by a failing test goes too.
    for (const c of children)
      try {
        process.kill(-c.pid!, 'SIGKILL');
      } catch {
        /* already gone */
      }
    await scratch?.drop();
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(webDist, { recursive: true, force: true });
  });

  /** A server on a free port, on this file's database, once its health check answers (`env`: this one's own). */
  async function startServer(env: Record<string, string> = {}) {
    const port = await freePort();
    const entry = join(root, opts.entry ?? 'server/src/main.ts');
    const child = spawn(process.execPath, ['--import', 'tsx', entry], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
      env: {
        ...process.env,
        PORT: String(port),
        HOST: '127.0.0.1',
        DATA_DIR: dataDir,
        WEB_DIST: webDist,
        DATABASE_URL: scratch?.url ?? '',
        NODE_ENV: 'development',
        SEED_DEMO: 'false',
        SUPERUSER_EMAIL: SUPER.email,
        SUPERUSER_PASSWORD: SUPER.password,
        LOG_LEVEL: 'warn',
        FORCE_COLOR: '0',
        ...opts.env,
        ...env,
      },
    });
    children.push(child);
    let output = '';
    child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    const base = `http://127.0.0.1:${port}/api`;
    await waitFor(async () => {
      if (child.exitCode !== null || child.signalCode) throw new Error(`the server stopped:\n${output}`);
      return (await fetch(`${base}/health`).catch(() => undefined))?.ok;
    }, 120_000);
    return {
      child,
      base,
      exited,
      output: () => output,
      alive: () => child.exitCode === null && !child.signalCode,
      /** SIGKILL to the server's whole process group, as a crash. */
      kill: () => process.kill(-child.pid!, 'SIGKILL'),
      /** SIGTERM (a clean shutdown), once the process is gone. */
      stop: async () => {
        process.kill(-child.pid!, 'SIGTERM');
        await exited;
      },
    };
  }

  /**
   * A company (admin password Admin@123) with a simulator connection, made on a running server through the
   * API as the superuser.
   */
  async function companyWithSimulator(base: string, company: { name: string; email: string }) {
    const created = await call(base, 'POST', '/companies', await login(base, SUPER), {
      name: company.name,
      email: company.email,
      planId: 5,
      dueDate: '2099-01-01',
      adminName: 'Admin',
      adminPassword: 'Admin@123',
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const admin = { email: company.email, password: 'Admin@123' };
    const token = await login(base, admin);
    const w = await call(base, 'POST', '/whatsapp', token, { name: 'Sim', channel: 'simulator' });
    expect(w.status, JSON.stringify(w.body)).toBe(201);
    return { admin, token, whatsappId: w.body.id as number };
  }

  /** The file's database, opened here once the servers are gone (PGlite's directory takes one process). */
  async function withDatabase<T>(fn: (database: Database) => Promise<T>): Promise<T> {
    const database = scratch ?? (await openDatabase({ dataDir }));
    try {
      return await fn(database);
    } finally {
      if (!scratch) await database.close();
    }
  }

  return { startServer, companyWithSimulator, withDatabase };
}
