// npm run cluster [-- start|stop|status]: compose.yaml's topology without containers — two compiled app
// processes on the local PostgreSQL behind Debian's nginx, with deploy/nginx.conf (docs/deployment.md).
// Env: CLUSTER_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/recado_cluster, created if missing),
// CLUSTER_PORT (nginx, default 8090; the apps take the next two), REDIS_URL (optional), CLUSTER_DIR.
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { alive, startCluster, stopApps, stopNginx } from './lib/cluster.mjs';

const dir = process.env.CLUSTER_DIR ?? '/tmp/recado-cluster';
const port = Number(process.env.CLUSTER_PORT ?? 8090);
const dbUrl = process.env.CLUSTER_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/recado_cluster';
const state = join(dir, 'state.json');

async function start() {
  if (existsSync(state)) await stop();
  const cluster = await startCluster({ dir, port, dbUrl });
  const apps = cluster.apps.map(({ pid, port }) => ({ pid, port }));
  writeFileSync(state, JSON.stringify({ apps, port }));
  console.log(
    JSON.stringify({
      url: cluster.url,
      apps,
      database: dbUrl,
      redis: Boolean(process.env.REDIS_URL),
      logs: dir,
    }),
  );
}

async function stop() {
  stopNginx(dir);
  if (!existsSync(state)) return;
  const { apps } = JSON.parse(readFileSync(state, 'utf8'));
  await stopApps(apps);
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
