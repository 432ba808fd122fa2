import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createConnection, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, test } from 'vitest';
import { waitFor } from './helpers.js';
import { freePort } from './restart.js';

// docs/security.md: SIGTERM ends the server within 10 s even while a request hangs. A real process (the
// server's entry, as scripts/start.mjs runs it) on an embedded database, and a real half-sent request.
const root = fileURLToPath(new URL('../../', import.meta.url));
const dirs: string[] = [];
let child: ChildProcess | undefined;
afterAll(() => {
  if (child?.exitCode === null) child.kill('SIGKILL');
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

test('SIGTERM ends the process within 10 s while a request hangs', async () => {
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), 'recado-shutdown-'));
  const webDist = mkdtempSync(join(tmpdir(), 'recado-shutdown-web-'));
  dirs.push(dataDir, webDist);
  child = spawn(process.execPath, ['--import', 'tsx', join(root, 'server', 'src', 'main.ts')], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      WEB_DIST: webDist,
      DATABASE_URL: '',
      SEED_DEMO: 'false',
      NODE_ENV: 'development',
      LOG_LEVEL: 'info',
      ASAAS_WEBHOOK_TOKEN: 'shutdown-test-token-0123456789',
    },
  });
  let output = '';
  child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<number | null>((resolve) => child!.once('exit', (code) => resolve(code)));
  const base = `http://127.0.0.1:${port}`;
  await waitFor(async () => {
    if (child!.exitCode !== null) throw new Error(`the server stopped:\n${output}`);
    return (await fetch(`${base}/api/health`).catch(() => undefined))?.ok;
  }, 150_000);

  // A request whose body never finishes arriving: the server waits for it for minutes.
  const hanging: Socket = createConnection({ port, host: '127.0.0.1' });
  await new Promise<void>((r) => hanging.once('connect', () => r()));
  hanging.on('error', () => undefined);
  hanging.write(
    'POST /api/webhooks/asaas HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n' +
      'asaas-access-token: shutdown-test-token-0123456789\r\nContent-Length: 1000\r\n\r\n{"id":"evt_',
  );
  // The server has read the head and waits on the body: a request in flight.
  await new Promise((r) => setTimeout(r, 300));

  const started = Date.now();
  child.kill('SIGTERM');
  const code = await exited;
  const took = Date.now() - started;
  hanging.destroy();
  expect(output).toContain('shutting down');
  expect(took, output).toBeLessThan(10_000);
  expect(code).not.toBe(null);
}, 200_000);
