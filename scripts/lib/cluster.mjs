// The pieces of compose.yaml's topology without containers, shared by `npm run cluster` (scripts/cluster.mjs),
// `npm run test:scale` and the two-process benchmarks: two (or more) compiled app processes on one
// PostgreSQL database behind Debian's nginx with deploy/nginx.conf (docs/deployment.md).
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

export const root = fileURLToPath(new URL('../..', import.meta.url));
export const nginxBin = process.env.NGINX ?? '/usr/sbin/nginx';
export const mainJs = join(root, 'server', 'dist', 'main.js');

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
export const alive = (pid) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** Creates the database of `url` when missing (through the server's `postgres` database). */
export async function ensureDatabase(url) {
  const name = new URL(url).pathname.slice(1);
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const c = new pg.Client({ connectionString: admin.href });
  await c.connect();
  try {
    const { rowCount } = await c.query('select 1 from pg_database where datname = $1', [name]);
    if (!rowCount) await c.query(`create database "${name.replace(/"/g, '""')}"`);
  } finally {
    await c.end();
  }
}

/** Drops the database of `url` (connections closed by force). */
export async function dropDatabase(url) {
  const name = new URL(url).pathname.slice(1);
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const c = new pg.Client({ connectionString: admin.href });
  await c.connect();
  try {
    await c.query(`drop database if exists "${name.replace(/"/g, '""')}" with (force)`);
  } finally {
    await c.end();
  }
}

/** Polls `url` until it answers 2xx (bounded). */
export async function waitReady(url, ms = 120_000) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    const ok = await fetch(url)
      .then((r) => r.ok)
      .catch(() => false);
    if (ok) return;
    await sleep(200);
  }
  throw new Error(`${url} not ready within ${ms} ms`);
}

/** deploy/nginx.conf with these upstreams, port and writable paths under `dir`. */
export function nginxConf({ dir, port, appPorts }) {
  const conf = readFileSync(join(root, 'deploy', 'nginx.conf'), 'utf8')
    .replace(/^\s*server app\d+:8080(.*)$/gm, '')
    .replace(
      /upstream recado \{/,
      `upstream recado {\n${appPorts.map((p) => `    server 127.0.0.1:${p} max_fails=1 fail_timeout=5s;`).join('\n')}`,
    )
    .replace(/listen 80;/, `listen 127.0.0.1:${port};`)
    .replace(
      /^http \{/m,
      `http {\n  access_log off;\n${['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((t) => `  ${t}_temp_path ${dir}/nginx/${t};`).join('\n')}`,
    );
  return `pid ${dir}/nginx.pid;\nerror_log ${dir}/nginx-error.log;\n${conf}`;
}

/** Secrets kept in `dir` (made once), so restarted processes accept the same tokens. */
export function clusterSecrets(dir) {
  const file = join(dir, 'secrets.json');
  if (!existsSync(file))
    writeFileSync(
      file,
      JSON.stringify({ app: randomBytes(24).toString('hex'), jwt: randomBytes(24).toString('hex') }),
      { mode: 0o600 },
    );
  return JSON.parse(readFileSync(file, 'utf8'));
}

/**
 * Starts one compiled app process (detached, its log in `dir/app<n>.log`) and returns { pid, port, log }.
 * `env` adds to (or overrides) the process's environment; `nodeArgs` go to node before the script (a bench's
 * `--inspect`).
 */
export function startApp({ dir, index, port, publicPort, dbUrl, env = {}, nodeArgs = [] }) {
  if (!existsSync(mainJs)) throw new Error('run `npm run build` first (server/dist/main.js is missing)');
  mkdirSync(dir, { recursive: true });
  const { app, jwt } = clusterSecrets(dir);
  const logFile = join(dir, `app${index + 1}.log`);
  const log = openSync(logFile, 'a');
  const childEnv = {
    ...process.env,
    NODE_ENV: 'production',
    HOST: '127.0.0.1',
    PORT: String(port),
    DATABASE_URL: dbUrl,
    DATA_DIR: join(dir, 'data'),
    APP_SECRET: app,
    JWT_SECRET: jwt,
    PUBLIC_URL: `http://127.0.0.1:${publicPort}`,
    TRUST_PROXY: '127.0.0.1',
    ALLOW_PRIVATE_URLS: process.env.ALLOW_PRIVATE_URLS ?? 'true',
    ...env,
  };
  // `env: { REDIS_URL: undefined }` removes a variable inherited from this process.
  for (const [k, v] of Object.entries(childEnv)) if (v === undefined) delete childEnv[k];
  // APP_CPU_PROFILE=dir writes each process's V8 CPU profile there when it exits (benchmarks' "where does the
  // time go"); node refuses --cpu-prof in NODE_OPTIONS, so it is passed here.
  const profile = process.env.APP_CPU_PROFILE
    ? ['--cpu-prof', `--cpu-prof-dir=${process.env.APP_CPU_PROFILE}`]
    : [];
  const child = spawn(process.execPath, [...profile, ...nodeArgs, mainJs], {
    cwd: root,
    detached: true,
    stdio: ['ignore', log, log],
    env: childEnv,
  });
  child.unref();
  return { pid: child.pid, port, log: logFile };
}

/** Starts nginx on `port` in front of `appPorts` (config and pid in `dir`). */
export function startNginx({ dir, port, appPorts }) {
  for (const t of ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'])
    mkdirSync(join(dir, 'nginx', t), { recursive: true, mode: 0o777 });
  writeFileSync(join(dir, 'nginx.conf'), nginxConf({ dir, port, appPorts }));
  const r = spawnSync(nginxBin, ['-c', join(dir, 'nginx.conf'), '-p', dir], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`nginx: ${r.stderr}`);
}

/** Stops nginx started by startNginx in `dir` (no-op when it is not running). */
export function stopNginx(dir) {
  if (existsSync(join(dir, 'nginx.pid'))) {
    spawnSync(nginxBin, ['-c', join(dir, 'nginx.conf'), '-p', dir, '-s', 'quit']);
    rmSync(join(dir, 'nginx.pid'), { force: true });
  }
}

/** SIGTERMs the apps still alive and waits for them to exit (bounded; then SIGKILL). */
export async function stopApps(apps, ms = 15_000) {
  for (const a of apps) if (alive(a.pid)) process.kill(a.pid, 'SIGTERM');
  const end = Date.now() + ms;
  while (apps.some((a) => alive(a.pid)) && Date.now() < end) await sleep(100);
  for (const a of apps) if (alive(a.pid)) process.kill(a.pid, 'SIGKILL');
}

/**
 * The whole topology: `count` apps on ports port+1… behind nginx on `port`, all ready. Returns
 * { url, apps, stop() }.
 */
export async function startCluster({ dir, port, dbUrl, count = 2, env = {}, readyMs = 120_000 }) {
  mkdirSync(join(dir, 'nginx'), { recursive: true, mode: 0o777 });
  await ensureDatabase(dbUrl);
  const appPorts = Array.from({ length: count }, (_, i) => port + 1 + i);
  const apps = appPorts.map((p, i) => startApp({ dir, index: i, port: p, publicPort: port, dbUrl, env }));
  const stop = async () => {
    stopNginx(dir);
    await stopApps(apps);
  };
  try {
    await Promise.all(apps.map((a) => waitReady(`http://127.0.0.1:${a.port}/api/ready`, readyMs)));
    startNginx({ dir, port, appPorts });
    await waitReady(`http://127.0.0.1:${port}/api/ready`, readyMs);
  } catch (err) {
    await stop();
    throw err;
  }
  return { url: `http://127.0.0.1:${port}`, apps, stop };
}
