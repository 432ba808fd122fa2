import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, test } from 'vitest';
import { openDatabase } from '../../db/client.js';
import { scratchDatabase } from '../../db/scratch.js';
import { waitFor } from '../../../test/helpers.js';

// #28.5 (docs/external-api.md "Idempotency"): the real server in a child process, killed with SIGKILL in the
// middle of a burst of sends with externalKeys, then started again on the same database (PGlite's data
// directory, or a PostgreSQL database of its own when DATABASE_URL is set). Resending every key answers
// every one (201), each message exists exactly once, and a key answered before the crash answers the same.
const root = fileURLToPath(new URL('../../../../', import.meta.url));
const pgUrl = process.env.DATABASE_URL;
const scratch = pgUrl ? await scratchDatabase(pgUrl, { poolSize: 2 }) : undefined;
const dataDir = mkdtempSync(join(tmpdir(), 'recado-h2-crash-'));
const webDist = mkdtempSync(join(tmpdir(), 'recado-h2-crash-web-'));
const SUPER = { email: 'super@crash.test', password: 'Super@12345' };
const children: ChildProcess[] = [];

afterAll(async () => {
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

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });

/** The server (server/src/main.ts, as `npm start` runs it) on a free port, on this test's database. */
async function startServer() {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', join(root, 'server', 'src', 'main.ts')], {
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
      API_RATE_LIMIT: '100000',
      LOG_LEVEL: 'warn',
      FORCE_COLOR: '0',
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
  return { child, base, exited, output: () => output };
}

const call = async (base: string, method: string, path: string, token?: string, body?: unknown) => {
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

const KEYS = 80;
const KILL_DELAY_MS = 25;
const number = (i: number) => `5511977${String(100000 + (i % 6)).slice(-6)}`;
const sendBody = (i: number) => ({ number: number(i), body: `crash burst ${i}`, externalKey: `order-${i}` });

test('kill -9 mid-burst of keyed sends, restart, resend every key: each message once, every key answered', async () => {
  const first = await startServer();
  const su = await call(first.base, 'POST', '/auth/login', undefined, SUPER);
  expect(su.status, JSON.stringify(su.body)).toBe(200);
  const company = await call(first.base, 'POST', '/companies', su.body.token as string, {
    name: 'Crash',
    email: 'admin@crash.test',
    planId: 5,
    dueDate: '2099-01-01',
    adminName: 'Admin',
    adminPassword: 'Admin@123',
  });
  expect(company.status, JSON.stringify(company.body)).toBe(201);
  const admin = await call(first.base, 'POST', '/auth/login', undefined, {
    email: 'admin@crash.test',
    password: 'Admin@123',
  });
  const adminToken = admin.body.token as string;
  const w = await call(first.base, 'POST', '/whatsapp', adminToken, { name: 'Sim', channel: 'simulator' });
  expect(w.status, JSON.stringify(w.body)).toBe(201);
  const token = (await call(first.base, 'GET', `/whatsapp/${w.body.id}/token`, adminToken)).body
    .token as string;

  // The burst: 16 sends in flight at a time; SIGKILL once a quarter are answered.
  const before = new Map<number, Record<string, unknown>>();
  let next = 0;
  let killing = false;
  let killed = false;
  const worker = async () => {
    while (!killed && next < KEYS) {
      const i = next++;
      const r = await call(first.base, 'POST', '/messages/send', token, sendBody(i)).catch(() => undefined);
      if (r?.status === 201) before.set(i, r.body);
      if (!killing && before.size >= KEYS / 4) {
        // A little after an answer, while the other sends are in the middle of their work.
        killing = true;
        setTimeout(() => {
          killed = true;
          process.kill(-first.child.pid!, 'SIGKILL');
        }, KILL_DELAY_MS);
      }
    }
  };
  await Promise.all(Array.from({ length: 16 }, worker));
  await first.exited;
  expect(killed).toBe(true);
  expect(before.size).toBeLessThan(KEYS);

  const second = await startServer();
  // Every key again, as a client that lost its answers would: each is answered, none is still "in progress".
  const after = new Map<number, Record<string, unknown>>();
  const statuses: number[] = [];
  for (let i = 0; i < KEYS; i++) {
    const r = await call(second.base, 'POST', '/messages/send', token, sendBody(i));
    statuses.push(r.status);
    after.set(i, r.body);
  }
  expect(statuses.filter((s) => s !== 201)).toEqual([]);
  // A key answered before the crash answers the same message now.
  for (const [i, answer] of before) expect(after.get(i)).toMatchObject({ ...answer, duplicate: true });
  const ids = [...after.values()].map((a) => a.messageId as number);
  expect(new Set(ids).size).toBe(KEYS);

  // Every message reaches the customer (the outbox sends what the crash left stored but unsent).
  await waitFor(async () => {
    for (const id of ids) {
      const s = await call(second.base, 'GET', `/messages/status/${id}`, token);
      if (s.status !== 200 || (s.body.ack as number) < 1) return false;
    }
    return true;
  }, 60_000);
  second.child.kill('SIGTERM');
  await second.exited;

  // In the database: exactly one message per key, and it is the one the key answers.
  const database = scratch ?? (await openDatabase({ dataDir }));
  try {
    const { rows } = await database.raw(
      `select body, count(*)::int as n, min(id)::int as id from messages where from_me and body like 'crash burst %' group by body`,
    );
    const byBody = new Map(rows.map((r) => [r.body as string, r as { n: number; id: number }]));
    for (let i = 0; i < KEYS; i++) {
      const row = byBody.get(`crash burst ${i}`);
      expect(row, `key ${i}`).toMatchObject({ n: 1, id: after.get(i)!.messageId });
    }
    expect(byBody.size).toBe(KEYS);
  } finally {
    if (!scratch) await database.close();
  }
}, 300_000);
