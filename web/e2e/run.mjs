// Browser tests: build the web client, start the real server on a fresh embedded database, and run
// e2e/*.test.ts with node's test runner driving Debian's Chromium through playwright-core; E2E_WORKERS (2)
// shards side by side, each with a server of its own. `node e2e/run.mjs e2e/x.test.ts` runs files alone.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
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

/** A port nothing listens on now, and not handed out before in this run (shards start side by side). */
const given = new Set();
const freePort = async () => {
  for (;;) {
    const p = await new Promise((resolve) => {
      const s = createServer().listen(0, '127.0.0.1', () => {
        const port = s.address().port;
        s.close(() => resolve(port));
      });
    });
    if (!given.has(p)) {
      given.add(p);
      return p;
    }
  }
};
const files = readdirSync(join(web, 'e2e'))
  .filter((f) => f.endsWith('.test.ts'))
  .map((f) => join('e2e', f));
const only = process.argv.slice(2);
const chosen = only.length ? only : files;

/*
 * Shards: E2E_WORKERS (2, or 1 when one file is asked for) servers side by side, each on its own embedded
 * database, ports and fakes, each running its share of the files one at a time. Files never share a server
 * with a file of another shard, so what one shard's tests leave behind cannot disturb the other's. Files
 * are dealt out largest first to the shard with the least so far (size is a fair proxy of a file's time).
 */
const workers = Math.max(1, Math.min(Number(process.env.E2E_WORKERS ?? 2), chosen.length));
const shards = Array.from({ length: workers }, () => ({ files: [], bytes: 0 }));
for (const f of [...chosen].sort((a, b) => statSync(join(web, b)).size - statSync(join(web, a)).size)) {
  const s = shards.reduce((m, x) => (x.bytes < m.bytes ? x : m));
  s.files.push(f);
  s.bytes += statSync(join(web, f)).size;
}

/** One shard: its server on a fresh embedded database, then its files with node's test runner. */
async function runShard(index, shardFiles, { port, openaiPort, asaasPort, graphPort, telegramPort }) {
  const tag = workers > 1 ? `[e2e ${index + 1}/${workers}] ` : '';
  const asaasWebhookToken = 'e2e-asaas-webhook-token-0123456789';
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
      TELEGRAM_API_URL: `http://127.0.0.1:${telegramPort}`,
    },
  });
  let serverLog = '';
  server.stdout.on('data', (d) => (serverLog += d));
  server.stderr.on('data', (d) => (serverLog += d));
  const cleanup = () => rmSync(dataDir, { recursive: true, force: true });

  const deadline = Date.now() + 240_000;
  for (;;) {
    try {
      const r = await fetch(`${baseUrl}/api/health`);
      if (r.ok) break;
    } catch {
      /* not up yet */
    }
    if (Date.now() > deadline || server.exitCode !== null) {
      console.error(`${tag}The server did not start:\n` + serverLog);
      server.kill('SIGKILL');
      cleanup();
      return 1;
    }
    await new Promise((r) => setTimeout(r, 250));
  }

  const tests = spawn(
    process.execPath,
    ['--import', 'tsx', '--test', '--test-concurrency=1', '--test-reporter=spec', ...shardFiles],
    {
      cwd: web,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        ...process.env,
        E2E_BASE_URL: baseUrl,
        E2E_DATA_DIR: dataDir,
        CHROMIUM_PATH: chromium,
        E2E_OPENAI_PORT: String(openaiPort),
        E2E_ASAAS_PORT: String(asaasPort),
        E2E_ASAAS_WEBHOOK_TOKEN: asaasWebhookToken,
        E2E_GRAPH_PORT: String(graphPort),
        E2E_TELEGRAM_PORT: String(telegramPort),
      },
    },
  );
  // Each line as it comes, marked with its shard when there are several.
  const relay = (from, to) => {
    let rest = '';
    from.on('data', (d) => {
      const lines = (rest + d).split('\n');
      rest = lines.pop();
      for (const l of lines) to.write(tag + l + '\n');
    });
    from.on('end', () => rest && to.write(tag + rest + '\n'));
  };
  relay(tests.stdout, process.stdout);
  relay(tests.stderr, process.stderr);
  const status = await new Promise((resolve) => tests.on('close', (code) => resolve(code ?? 1)));
  server.kill('SIGTERM');
  await new Promise((r) => setTimeout(r, 300));
  if (status !== 0 && serverLog.trim()) console.error(`${tag}--- server log ---\n` + serverLog.slice(-4000));
  cleanup();
  return status;
}

console.log(
  `Browser tests: ${chosen.length} files in ${workers} shard(s): ` +
    shards.map((s, i) => `${i + 1}: ${s.files.length} files`).join(', '),
);
// Ports first, one after the other, so no two shards get the same one.
const ports = [];
for (let i = 0; i < workers; i++)
  ports.push({
    port: await freePort(),
    // The local OpenAI server the automation test starts (server/test/fake-openai.ts) listens here.
    openaiPort: await freePort(),
    // The local Asaas (server/test/asaas-fake.ts) listens here once billing.test.ts starts it.
    asaasPort: await freePort(),
    // The Graph API double (server/src/messaging/channels/cloud-api/fake-graph-api.ts) cloud-templates.test.ts
    // starts: Cloud API connections on Meta's default URL reach it through CLOUD_API_GRAPH_URL.
    graphPort: await freePort(),
    // The Telegram Bot API stand-in (server/test/fake-telegram.ts) telegram.test.ts starts: TELEGRAM_API_URL.
    telegramPort: await freePort(),
  });
const statuses = await Promise.all(shards.map((s, i) => runShard(i, s.files, ports[i])));
rmSync(outDir, { recursive: true, force: true });
const failed = statuses.findIndex((x) => x !== 0);
if (failed >= 0)
  console.error(`Browser tests failed in shard ${failed + 1}: ${shards[failed].files.join(' ')}`);
process.exit(failed >= 0 ? 1 : 0);
