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

// #30.7 "snooze wakes once after a kill -9 and restart": the real server (server/src/main.ts) in a child
// process snoozes a ticket for a few seconds and is killed with SIGKILL before the time; a new process on the
// same database (PGlite's data directory, or a PostgreSQL database of its own with DATABASE_URL) wakes it
// from the durable job, exactly once.
const root = fileURLToPath(new URL('../../../../', import.meta.url));
const pgUrl = process.env.DATABASE_URL;
const scratch = pgUrl ? await scratchDatabase(pgUrl, { poolSize: 2 }) : undefined;
const dataDir = mkdtempSync(join(tmpdir(), 'recado-snooze-crash-'));
const webDist = mkdtempSync(join(tmpdir(), 'recado-snooze-crash-web-'));
const SUPER = { email: 'super@snooze.test', password: 'Super@12345' };
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
  return { child, base, exited };
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

test('snooze wakes once after a kill -9 and restart', async () => {
  const first = await startServer();
  const su = await call(first.base, 'POST', '/auth/login', undefined, SUPER);
  expect(su.status).toBe(200);
  const company = await call(first.base, 'POST', '/companies', su.body.token as string, {
    name: 'Snooze crash',
    email: 'admin@snooze.test',
    planId: 5,
    dueDate: '2099-01-01',
    adminName: 'Admin',
    adminPassword: 'Admin@123',
  });
  expect(company.status, JSON.stringify(company.body)).toBe(201);
  const login = await call(first.base, 'POST', '/auth/login', undefined, {
    email: 'admin@snooze.test',
    password: 'Admin@123',
  });
  const token = login.body.token as string;
  const w = await call(first.base, 'POST', '/whatsapp', token, { name: 'Sim', channel: 'simulator' });
  expect(w.status).toBe(201);
  await call(first.base, 'POST', `/simulator/${w.body.id}/inbound`, token, {
    from: '5511933330001',
    name: 'Cliente',
    body: 'Olá',
  });
  const ticketId = await waitFor(async () => {
    const page = await call(first.base, 'GET', '/tickets?status=pending&showAll=true', token);
    return (page.body.tickets as { id: number }[])[0]?.id;
  });
  expect((await call(first.base, 'PUT', `/tickets/${ticketId}`, token, { status: 'open' })).status).toBe(200);
  // A few seconds ahead: the first process dies before the time comes.
  const until = new Date(Date.now() + 6000).toISOString();
  const snoozed = await call(first.base, 'POST', `/tickets/${ticketId}/snooze`, token, { until });
  expect(snoozed.status, JSON.stringify(snoozed.body)).toBe(200);
  process.kill(-first.child.pid!, 'SIGKILL');
  await first.exited;

  const second = await startServer();
  const token2 = (
    await call(second.base, 'POST', '/auth/login', undefined, {
      email: 'admin@snooze.test',
      password: 'Admin@123',
    })
  ).body.token as string;
  // Still snoozed until its time (unless the restart itself took longer), then back in the open list.
  await waitFor(async () => {
    const v = await call(second.base, 'GET', `/tickets/${ticketId}`, token2);
    return v.status === 200 && v.body.snoozedAt === null;
  }, 60_000);
  const open = await call(second.base, 'GET', '/tickets?status=open', token2);
  expect((open.body.tickets as { id: number }[]).map((x) => x.id)).toContain(ticketId);
  const history = await call(second.base, 'GET', `/ticket/${ticketId}/histories`, token2);
  const actions = (history.body as unknown as { action: string }[]).map((h) => h.action);
  expect(actions.filter((a) => a === 'wake')).toHaveLength(1);
  second.child.kill('SIGTERM');
  await second.exited;

  // In the database: one wake, and the job done (not queued again, not failed).
  const database = scratch ?? (await openDatabase({ dataDir }));
  try {
    const { rows } = await database.raw(
      `select status from jobs where kind = 'ticket.snooze-wake' and key = 'ticket:${ticketId}'`,
    );
    expect(rows.map((r) => r.status)).toEqual(['done']);
    const wakes = await database.raw(
      `select count(*)::int as n from ticket_histories where ticket_id = ${ticketId} and action = 'wake'`,
    );
    expect(wakes.rows[0]!.n).toBe(1);
  } finally {
    if (!scratch) await database.close();
  }
}, 300_000);
