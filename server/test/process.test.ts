import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { waitFor } from './helpers.js';
import { freePort } from './restart.js';

// The real start command (scripts/start.mjs spawning server/src/main.ts) on a free port and a fresh
// embedded database: what an operator's service manager or container runs.
const root = fileURLToPath(new URL('../../', import.meta.url));
const dirs: string[] = [];
const children: ChildProcess[] = [];
afterAll(() => {
  // Each start runs in a process group of its own: a server left behind by a failing test goes too.
  for (const c of children)
    try {
      process.kill(-c.pid!, 'SIGKILL');
    } catch {
      /* already gone */
    }
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** Whether something accepts connections on the port. */
const accepting = (port: number) =>
  new Promise<boolean>((resolve) => {
    const c = createConnection({ port, host: '127.0.0.1' });
    c.once('connect', () => {
      c.destroy();
      resolve(true);
    });
    c.once('error', () => resolve(false));
  });

async function start(command: string[], env: Record<string, string>) {
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), 'recado-start-'));
  // An empty web build of our own: the start script serves WEB_DIST as it is and builds nothing.
  const webDist = mkdtempSync(join(tmpdir(), 'recado-start-web-'));
  dirs.push(dataDir, webDist);
  const child = spawn(command[0]!, command.slice(1), {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
    env: {
      ...process.env,
      PORT: String(port),
      DATA_DIR: dataDir,
      WEB_DIST: webDist,
      // Never the shared PostgreSQL test database: the server would migrate it.
      DATABASE_URL: '',
      LOG_LEVEL: 'info',
      FORCE_COLOR: '0',
      ...env,
    },
  });
  children.push(child);
  let output = '';
  child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const base = `http://127.0.0.1:${port}`;
  await waitFor(async () => {
    if (child.exitCode !== null) throw new Error(`the server stopped:\n${output}`);
    return (await fetch(`${base}/api/health`).catch(() => undefined))?.ok;
  }, 150_000);
  // The health check answers as soon as the server listens; the ready line is logged right after and
  // reaches our pipe a moment later on a loaded machine: what the operator reads is the line.
  await waitFor(() => /Recado is ready[^\n]*\n/.test(output), 30_000);
  return { child, port, base, exited, output: () => output };
}

describe('npm start', () => {
  it('development: readable log, the address and demo logins at start, and SIGTERM to npm stops the server', async () => {
    const s = await start(['npm', 'start', '--silent'], { NODE_ENV: 'development', SEED_DEMO: 'true' });
    if (process.env.SHOW_START_LOG) console.log(s.output());
    await fetch(`${s.base}/api/health?probe=1`);
    // One short line per request, without the query string.
    await waitFor(() => s.output().includes('GET /api/health 200'), 15_000);
    const out = s.output();
    expect(out).not.toContain('probe=1');
    expect(out).toContain(`Recado is ready: http://localhost:${s.port}`);
    expect(out).toContain(`Listening on 0.0.0.0:${s.port}: every network interface`);
    expect(out).toContain('admin@demo.local / Demo@1234');
    expect(out).toContain('atendente@demo.local / Demo@1234');
    // No raw pino JSON objects in development.
    expect(out.split('\n').filter((l) => l.trimStart().startsWith('{"level"'))).toEqual([]);
    expect(out).not.toContain('FSTDEP');

    // What a service manager or `docker stop` does: SIGTERM to the process it started (npm).
    s.child.kill('SIGTERM');
    const end = await s.exited;
    expect(end.code).toBe(0);
    await waitFor(async () => !(await accepting(s.port)), 15_000);
    expect(s.output()).toContain('shutting down');
  }, 240_000);

  it('production: JSON log without demo logins, the address it listens on, and SIGINT stops it', async () => {
    const secret = () => randomBytes(24).toString('hex');
    // Production runs the compiled server with plain node (docs/deployment.md): compile it first.
    const build = spawnSync('npm', ['run', 'build', '-w', 'server'], { cwd: root, encoding: 'utf8' });
    expect(build.status, build.stderr).toBe(0);
    const s = await start(['node', 'scripts/start.mjs'], {
      NODE_ENV: 'production',
      HOST: '127.0.0.1',
      APP_SECRET: secret(),
      JWT_SECRET: secret(),
      SUPERUSER_PASSWORD: `Pw-${secret()}`,
      SEED_DEMO: 'false',
    });
    const lines = s
      .output()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const ready = lines.find((l) => l.msg === 'Recado is ready');
    expect(ready).toMatchObject({ listen: `127.0.0.1:${s.port}`, allInterfaces: false });
    expect(ready).not.toHaveProperty('demoLogins');
    expect(s.output()).not.toContain('Demo@1234');

    s.child.kill('SIGINT');
    const end = await s.exited;
    expect(end).toEqual({ code: 0, signal: null });
    await waitFor(async () => !(await accepting(s.port)), 15_000);
  }, 240_000);
});
