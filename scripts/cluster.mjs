// npm run cluster [-- start|stop|status]: compose.yaml's topology without containers — two compiled app
// processes on the local PostgreSQL behind Debian's nginx, with deploy/nginx.conf (docs/deployment.md).
// Env: CLUSTER_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/recado_cluster, created if missing),
// CLUSTER_PORT (nginx, default 8090; the apps take the next two), REDIS_URL (optional), CLUSTER_DIR.
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

const root = fileURLToPath(new URL('..', import.meta.url));
const dir = process.env.CLUSTER_DIR ?? '/tmp/recado-cluster';
const port = Number(process.env.CLUSTER_PORT ?? 8090);
const appPorts = [port + 1, port + 2];
const dbUrl = process.env.CLUSTER_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/recado_cluster';
const nginxBin = process.env.NGINX ?? '/usr/sbin/nginx';
const state = join(dir, 'state.json');

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const alive = (pid) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

async function ensureDatabase() {
  const u = new URL(dbUrl);
  const name = u.pathname.slice(1);
  const admin = new URL(dbUrl);
  admin.pathname = '/postgres';
  const c = new pg.Client({ connectionString: admin.href });
  await c.connect();
  const { rowCount } = await c.query('select 1 from pg_database where datname = $1', [name]);
  if (!rowCount) await c.query(`create database "${name.replace(/"/g, '""')}"`);
  await c.end();
}

async function waitReady(url, ms = 120_000) {
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

/** deploy/nginx.conf with this machine's upstreams, port and writable paths. */
function nginxConf() {
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

async function start() {
  if (existsSync(state)) await stop();
  if (!existsSync(join(root, 'server', 'dist', 'main.js'))) throw new Error('run `npm run build` first');
  mkdirSync(join(dir, 'nginx'), { recursive: true, mode: 0o777 });
  for (const t of ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'])
    mkdirSync(join(dir, 'nginx', t), { recursive: true, mode: 0o777 });
  await ensureDatabase();
  const secrets = join(dir, 'secrets.json');
  if (!existsSync(secrets))
    writeFileSync(
      secrets,
      JSON.stringify({ app: randomBytes(24).toString('hex'), jwt: randomBytes(24).toString('hex') }),
      { mode: 0o600 },
    );
  const { app, jwt } = JSON.parse(readFileSync(secrets, 'utf8'));
  const apps = appPorts.map((p, i) => {
    const log = openSync(join(dir, `app${i + 1}.log`), 'a');
    const child = spawn(process.execPath, [join(root, 'server', 'dist', 'main.js')], {
      cwd: root,
      detached: true,
      stdio: ['ignore', log, log],
      env: {
        ...process.env,
        NODE_ENV: 'production',
        HOST: '127.0.0.1',
        PORT: String(p),
        DATABASE_URL: dbUrl,
        DATA_DIR: join(dir, 'data'),
        APP_SECRET: app,
        JWT_SECRET: jwt,
        PUBLIC_URL: `http://127.0.0.1:${port}`,
        TRUST_PROXY: '127.0.0.1',
        ALLOW_PRIVATE_URLS: process.env.ALLOW_PRIVATE_URLS ?? 'true',
      },
    });
    child.unref();
    return { pid: child.pid, port: p };
  });
  writeFileSync(join(dir, 'nginx.conf'), nginxConf());
  writeFileSync(state, JSON.stringify({ apps, port }));
  await Promise.all(apps.map((a) => waitReady(`http://127.0.0.1:${a.port}/api/ready`)));
  const r = spawnSync(nginxBin, ['-c', join(dir, 'nginx.conf'), '-p', dir], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`nginx: ${r.stderr}`);
  await waitReady(`http://127.0.0.1:${port}/api/ready`);
  console.log(
    JSON.stringify({
      url: `http://127.0.0.1:${port}`,
      apps,
      database: dbUrl,
      redis: Boolean(process.env.REDIS_URL),
      logs: dir,
    }),
  );
}

async function stop() {
  if (existsSync(join(dir, 'nginx.pid')))
    spawnSync(nginxBin, ['-c', join(dir, 'nginx.conf'), '-p', dir, '-s', 'quit']);
  if (!existsSync(state)) return;
  const { apps } = JSON.parse(readFileSync(state, 'utf8'));
  for (const a of apps) if (alive(a.pid)) process.kill(a.pid, 'SIGTERM');
  const end = Date.now() + 15_000;
  while (apps.some((a) => alive(a.pid)) && Date.now() < end) await sleep(100);
  rmSync(state, { force: true });
  console.log('cluster stopped');
}

async function status() {
  if (!existsSync(state)) return console.log('cluster not running');
  const { apps } = JSON.parse(readFileSync(state, 'utf8'));
  for (const a of apps) {
    const ready = await fetch(`http://127.0.0.1:${a.port}/api/ready`).then(
      (r) => r.json(),
      () => null,
    );
    console.log(JSON.stringify({ ...a, alive: alive(a.pid), ready: ready?.status ?? 'down' }));
  }
}

const cmd = process.argv[2] ?? 'start';
await ({ start, stop, status }[cmd] ?? (() => Promise.reject(new Error(`unknown command ${cmd}`))))();
