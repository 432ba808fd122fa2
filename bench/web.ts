/**
 * npm run bench:web — what a first visit to /login downloads: the web client is built, served by the real
 * app (embedded PGlite), and loaded in Chromium (playwright-core) accepting gzip and brotli; the JavaScript
 * files are counted and their bytes on the wire (compressed) and decoded are summed.
 *   BENCH_WEB_DIST: serve this build instead of building one; BENCH_WEB_PATH (default /login);
 *   CHROMIUM_PATH (default /usr/bin/chromium)
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { benchConfig } from './lib.js';
import { scratchDatabase } from '../server/src/db/scratch.js';
import { buildApp } from '../server/src/app.js';
import { LOGIN_JS_BUDGET, measureFirstLoad } from '../web/e2e/first-load.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const path = process.env.BENCH_WEB_PATH ?? '/login';
const log = (...a: unknown[]) => console.log('[web]', ...a);
const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;

const tmp = mkdtempSync(join(tmpdir(), 'recado-bench-web-'));
let dist = process.env.BENCH_WEB_DIST;
if (!dist) {
  dist = join(tmp, 'dist');
  log('building the web client...');
  const r = spawnSync('npx', ['vite', 'build', '--logLevel', 'warn', '--outDir', dist, '--emptyOutDir'], {
    cwd: join(root, 'web'),
    stdio: 'inherit',
  });
  if (r.status !== 0) process.exit(r.status ?? 1);
}

const database = await scratchDatabase();
const { config, dataDir } = benchConfig();
const built = await buildApp({ config, database, webDist: dist, logger: false, jobs: { autoStart: false } });
const address = await built.app.listen({ port: 0, host: '127.0.0.1' });

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  headless: true,
  args: [
    '--no-sandbox',
    '--disable-gpu',
    '--disable-quic',
    '--no-first-run',
    '--disable-background-networking',
  ],
});
try {
  const page = await (await browser.newContext({ locale: 'pt-BR' })).newPage();
  const m = await measureFirstLoad(page, `${address}${path}`);
  log(`${path}: ${m.files.length} JavaScript files`);
  for (const f of m.files)
    log(
      `  ${f.name.padEnd(52)} ${(f.encoding || 'identity').padEnd(8)} ${kb(f.transferred).padStart(9)}` +
        ` gzip ${kb(f.gzipped).padStart(9)}`,
    );
  log(`transferred (compressed): ${kb(m.transferred)} (${m.transferred} bytes)`);
  log(`gzip only:                ${kb(m.gzipped)} (${m.gzipped} bytes)`);
  log(`decoded:                  ${kb(m.decoded)} (${m.decoded} bytes)`);
  const within = Math.max(m.transferred, m.gzipped) <= LOGIN_JS_BUDGET;
  log(`budget ${kb(LOGIN_JS_BUDGET)}: ${within ? 'within' : 'OVER'}`);
  console.log(
    JSON.stringify({
      bench: 'web',
      path,
      jsFiles: m.files.length,
      jsTransferredBytes: m.transferred,
      jsGzipBytes: m.gzipped,
      jsDecodedBytes: m.decoded,
      budgetBytes: LOGIN_JS_BUDGET,
    }),
  );
} finally {
  await browser.close();
  await built.close();
  await database.drop();
  rmSync(tmp, { recursive: true, force: true });
  rmSync(dataDir, { recursive: true, force: true });
}
