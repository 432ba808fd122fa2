// Browser tests: build the web client, start the real server on a fresh embedded database, and run
// e2e/*.test.ts with node's test runner driving Debian's Chromium through playwright-core.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const web = fileURLToPath(new URL('..', import.meta.url));
const root = join(web, '..');
const chromium = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
if (!existsSync(chromium)) {
  console.log(`Browser tests skipped: ${chromium} is missing (apt-get install -y chromium).`);
  process.exit(process.env.CI ? 1 : 0);
}

// A build folder of this run's own, so parallel runs never serve each other's half-written files.
const outDir = mkdtempSync(join(tmpdir(), 'recado-e2e-web-'));
const build = spawnSync('npx', ['vite', 'build', '--logLevel', 'warn', '--outDir', outDir, '--emptyOutDir'], {
  cwd: web,
  stdio: 'inherit',
});
if (build.status !== 0) process.exit(build.status ?? 1);

/** A port nothing listens on now. */
const freePort = () =>
  new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const p = s.address().port;
      s.close(() => resolve(p));
    });
  });
const port = await freePort();
// The local OpenAI server the automation test starts (server/test/fake-openai.ts) listens here.
const openaiPort = await freePort();
// The local Asaas (server/test/asaas-fake.ts) listens here once billing.test.ts starts it.
const asaasPort = await freePort();
const asaasWebhookToken = 'e2e-asaas-webhook-token-0123456789';
// The Graph API double (server/src/messaging/channels/cloud-api/fake-graph-api.ts) cloud-templates.test.ts
// starts: Cloud API connections on Meta's default URL reach it through CLOUD_API_GRAPH_URL.
const graphPort = await freePort();
const dataDir = mkdtempSync(join(tmpdir(), 'recado-e2e-'));
const baseUrl = `http://127.0.0.1:${port}`;
const server = spawn(process.execPath, ['--import', 'tsx', join(root, 'server', 'src', 'main.ts')], {
  cwd: root,
  stdio: ['ignore', 'pipe', 'pipe'],
  env: {
    ...process.env,
    NODE_ENV: 'development',
    DATABASE_URL: '',
    PORT: String(port),
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    PUBLIC_URL: baseUrl,
    WEB_DIST: outDir,
    SUPERUSER_EMAIL: 'super@e2e.local',
    SUPERUSER_PASSWORD: 'Super@12345',
    LOG_LEVEL: 'warn',
    // Every browser test signs in as the demo admin; the limit itself is tested in the server suite.
    LOGIN_RATE_LIMIT: '1000',
    OPENAI_BASE_URL: `http://127.0.0.1:${openaiPort}/v1`,
    ASAAS_API_URL: `http://127.0.0.1:${asaasPort}/api/v3`,
    ASAAS_WEBHOOK_TOKEN: asaasWebhookToken,
    CLOUD_API_GRAPH_URL: `http://127.0.0.1:${graphPort}`,
  },
});
let serverLog = '';
server.stdout.on('data', (d) => (serverLog += d));
server.stderr.on('data', (d) => (serverLog += d));

const deadline = Date.now() + 240_000;
for (;;) {
  try {
    const r = await fetch(`${baseUrl}/api/health`);
    if (r.ok) break;
  } catch {
    /* not up yet */
  }
  if (Date.now() > deadline || server.exitCode !== null) {
    console.error('The server did not start:\n' + serverLog);
    process.exit(1);
  }
  await new Promise((r) => setTimeout(r, 250));
}

const files = readdirSync(join(web, 'e2e'))
  .filter((f) => f.endsWith('.test.ts'))
  .map((f) => join('e2e', f));
const only = process.argv.slice(2);
const tests = spawnSync(
  process.execPath,
  [
    '--import',
    'tsx',
    '--test',
    '--test-concurrency=1',
    '--test-reporter=spec',
    ...(only.length ? only : files),
  ],
  {
    cwd: web,
    stdio: 'inherit',
    env: {
      ...process.env,
      E2E_BASE_URL: baseUrl,
      E2E_DATA_DIR: dataDir,
      CHROMIUM_PATH: chromium,
      E2E_OPENAI_PORT: String(openaiPort),
      E2E_ASAAS_PORT: String(asaasPort),
      E2E_ASAAS_WEBHOOK_TOKEN: asaasWebhookToken,
      E2E_GRAPH_PORT: String(graphPort),
    },
  },
);
server.kill('SIGTERM');
await new Promise((r) => setTimeout(r, 300));
if (tests.status !== 0 && serverLog.trim()) console.error('--- server log ---\n' + serverLog.slice(-4000));
rmSync(dataDir, { recursive: true, force: true });
rmSync(outDir, { recursive: true, force: true });
process.exit(tests.status ?? 1);
