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
import { chain } from './flow-test-kit.js';

// docs/flows.md#runtime: the real server in a child process, a customer between two questions of a flow, the
// process killed with SIGKILL, the server started again on the same database (PGlite's data directory, or a
// PostgreSQL database of its own when DATABASE_URL is set): the conversation continues at the same node.
const root = fileURLToPath(new URL('../../../../', import.meta.url));
const pgUrl = process.env.DATABASE_URL;
const scratch = pgUrl ? await scratchDatabase(pgUrl, { poolSize: 2 }) : undefined;
const dataDir = mkdtempSync(join(tmpdir(), 'recado-flow-restart-'));
const webDist = mkdtempSync(join(tmpdir(), 'recado-flow-restart-web-'));
const SUPER = { email: 'super@flowrestart.test', password: 'Super@12345' };
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

test('kill -9 between two questions, restart: the conversation continues at the same node', async () => {
  const first = await startServer();
  const su = await call(first.base, 'POST', '/auth/login', undefined, SUPER);
  expect(su.status, JSON.stringify(su.body)).toBe(200);
  const company = await call(first.base, 'POST', '/companies', su.body.token as string, {
    name: 'FlowRestart',
    email: 'admin@flowrestart.test',
    planId: 5,
    dueDate: '2099-01-01',
    adminName: 'Admin',
    adminPassword: 'Admin@123',
  });
  expect(company.status, JSON.stringify(company.body)).toBe(201);
  const login = async (base: string) =>
    (
      await call(base, 'POST', '/auth/login', undefined, {
        email: 'admin@flowrestart.test',
        password: 'Admin@123',
      })
    ).body.token as string;
  let token = await login(first.base);
  const w = await call(first.base, 'POST', '/whatsapp', token, { name: 'Sim', channel: 'simulator' });
  expect(w.status, JSON.stringify(w.body)).toBe(201);
  const whatsappId = w.body.id as number;
  const flow = await call(first.base, 'POST', '/flows', token, {
    name: 'Duas perguntas',
    graph: chain([
      { id: 'q1', type: 'question', data: { text: 'Primeira pergunta?', variable: 'a' } },
      { id: 'q2', type: 'question', data: { text: 'Segunda pergunta?', variable: 'b' } },
      { id: 'end', type: 'message', data: { text: 'Obrigado: {{a}} e {{b}}' } },
    ]),
  });
  expect(flow.status, JSON.stringify(flow.body)).toBe(201);
  expect((await call(first.base, 'POST', `/flows/${flow.body.id}/publish`, token)).status).toBe(200);
  expect(
    (await call(first.base, 'PUT', `/whatsapp/${whatsappId}`, token, { flowId: flow.body.id })).status,
  ).toBe(200);

  const number = '5511977012345';
  let seq = 0;
  const say = (base: string, body: string) =>
    call(base, 'POST', `/simulator/${whatsappId}/inbound`, token, {
      id: `restart-${++seq}`,
      from: number,
      body,
    });
  const phoneHas = (base: string, text: string) =>
    waitFor(async () => {
      const r = await call(base, 'GET', `/simulator/${whatsappId}/conversations/${number}`, token);
      return (
        r.status === 200 &&
        (r.body as unknown as { body: string; fromMe: boolean }[]).some((m) => m.fromMe && m.body === text)
      );
    }, 120_000);

  expect((await say(first.base, 'oi')).status).toBe(202);
  await phoneHas(first.base, 'Primeira pergunta?');
  expect((await say(first.base, 'um')).status).toBe(202);
  await phoneHas(first.base, 'Segunda pergunta?');

  process.kill(-first.child.pid!, 'SIGKILL');
  await first.exited;

  const second = await startServer();
  token = await login(second.base);
  expect((await say(second.base, 'dois')).status).toBe(202);
  await phoneHas(second.base, 'Obrigado: um e dois').catch(async (err) => {
    const conv = await call(second.base, 'GET', `/simulator/${whatsappId}/conversations/${number}`, token);
    throw new Error(
      `${String(err)}\nphone: ${JSON.stringify(conv.body)}\nserver: ${second.output().slice(-3000)}`,
    );
  });
  const conv = (await call(second.base, 'GET', `/simulator/${whatsappId}/conversations/${number}`, token))
    .body as unknown as { body: string; fromMe: boolean }[];
  // Each question went out once: nothing was asked again after the restart.
  expect(conv.filter((m) => m.fromMe).map((m) => m.body)).toEqual([
    'Primeira pergunta?',
    'Segunda pergunta?',
    'Obrigado: um e dois',
  ]);
  second.child.kill('SIGTERM');
  await second.exited;

  const database = scratch ?? (await openDatabase({ dataDir }));
  try {
    const { rows } = await database.raw(`select status, current_node_id, variables from flow_runs`);
    expect(rows).toEqual([
      { status: 'completed', current_node_id: 'end', variables: { a: 'um', b: 'dois' } },
    ]);
  } finally {
    if (!scratch) await database.close();
  }
}, 300_000);
