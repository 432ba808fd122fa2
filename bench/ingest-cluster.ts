/**
 * BENCH_PROCESSES=2 npm run bench:ingest — inbound throughput of compiled server processes
 * (scripts/lib/cluster.mjs) on PostgreSQL: first one process, then BENCH_PROCESSES, each on a fresh scratch
 * database with BENCH_CONNECTIONS (4) companies and simulator connections. Each connection is created
 * through process (i mod N), which starts its session there, so the connections' pipelines are spread over
 * the processes. BENCH_CONCURRENCY (32) senders post BENCH_MESSAGES (20000) customer messages, round robin
 * over connections and processes; throughput is until the last one is stored. Also the CPU each process used
 * per message (from /proc). Needs PostgreSQL: BENCH_DATABASE_URL, else DATABASE_URL, else
 * postgres://postgres@127.0.0.1:5432/postgres (databases are made there and dropped). Last line: JSON.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { clusterDatabase, jsonClient, simulatorCompany } from './lib.js';
import { dropDatabase, startApp, stopApps, waitReady, type App } from '../scripts/lib/cluster.mjs';

const N = Number(process.env.BENCH_MESSAGES ?? 20000);
const CONTACTS = Number(process.env.BENCH_CONTACTS ?? 500);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 4);
const PROCESSES = Number(process.env.BENCH_PROCESSES ?? 2);
const PORT = Number(process.env.BENCH_PORT ?? 18390);
const BASE_DB =
  process.env.BENCH_DATABASE_URL ?? process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const SUPER = { email: 'super@bench.local', password: `Bench-${process.pid}-Super!` };

const log = (...a: unknown[]) => console.log('[ingest-cluster]', ...a);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const { call, close: closeClient } = jsonClient(256);

/** CPU seconds (user + system) of a process on this machine. */
const cpuOf = (pid: number) => {
  try {
    const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(f[11]) + Number(f[12])) / 100;
  } catch {
    return 0;
  }
};

async function run(processes: number, index: number) {
  const u = new URL(BASE_DB);
  u.pathname = `/recado_bench_ingest_${process.pid}_${index}`;
  const dbUrl = u.toString();
  const dir = mkdtempSync(join(tmpdir(), 'recado-bench-ingest-'));
  const apps: App[] = [];
  const client = new pg.Client({ connectionString: dbUrl });
  try {
    await dropDatabase(dbUrl);
    const env = await clusterDatabase(dbUrl, SUPER);
    for (let i = 0; i < processes; i++)
      apps.push(startApp({ dir, index: i, port: PORT + 1 + i, publicPort: PORT, dbUrl, env }));
    await Promise.all(apps.map((a) => waitReady(`http://127.0.0.1:${a.port}/api/ready`)));
    const bases = apps.map((a) => `http://127.0.0.1:${a.port}`);
    const sup = (await call(bases[0]!, 'POST', '/auth/login', undefined, SUPER)).body as { token: string };
    const conns: { token: string; whatsappId: number }[] = [];
    for (let i = 0; i < CONNECTIONS; i++)
      conns.push(await simulatorCompany(call, bases[i % processes]!, sup.token, i, 'bench-ingest.local'));
    await client.connect();
    // Where each connection's session runs.
    const owners = await (async () => {
      const end = Date.now() + 30_000;
      for (;;) {
        const sessions = await Promise.all(
          apps.map(async (a) => {
            // The details of /api/ready: loopback, or the METRICS_TOKEN the processes inherited.
            const auth: Record<string, string> = process.env.METRICS_TOKEN
              ? { authorization: `Bearer ${process.env.METRICS_TOKEN}` }
              : {};
            const r = (await (
              await fetch(`http://127.0.0.1:${a.port}/api/ready`, { headers: auth })
            ).json()) as {
              process: { role: { sessions: number[] } };
            };
            return r.process.role.sessions.length;
          }),
        );
        if (sessions.reduce((x, y) => x + y, 0) >= CONNECTIONS || Date.now() > end) return sessions;
        await sleep(200);
      }
    })();
    log(`${processes} process(es); sessions per process: ${owners.join(' + ')}`);

    const cpu0 = apps.map((a) => cpuOf(a.pid));
    const t0 = performance.now();
    let next = 0;
    let refused = 0;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < N) {
          const i = next++;
          const c = conns[i % CONNECTIONS]!;
          const r = await call(bases[i % processes]!, 'POST', `/simulator/${c.whatsappId}/inbound`, c.token, {
            id: `tp-${i}`,
            from: `55119${String(10000000 + (i % CONTACTS)).slice(-8)}`,
            name: `Cliente ${i % CONTACTS}`,
            body: `tp ${i}`,
          });
          if (r.status !== 202) refused++;
        }
      }),
    );
    const accepted = performance.now();
    const deadline = Date.now() + 180_000;
    for (;;) {
      const { rows } = await client.query<{ n: number }>(
        `select count(*)::int as n from messages where not from_me and provider_id like 'tp-%'`,
      );
      if (rows[0]!.n >= N - refused || Date.now() > deadline) break;
      await sleep(250);
    }
    const done = performance.now();
    const cpuMsPerMsg = apps.map((a, i) => Math.round(((cpuOf(a.pid) - cpu0[i]!) * 1000 * 100) / N) / 100);
    const result = {
      processes,
      connections: CONNECTIONS,
      sessions: owners,
      messages: N,
      refused,
      acceptedPerSec: Math.round(N / ((accepted - t0) / 1000)),
      msgsPerSec: Math.round(N / ((done - t0) / 1000)),
      cpuMsPerMsg,
    };
    log(JSON.stringify(result));
    return result;
  } finally {
    await client.end().catch(() => undefined);
    await stopApps(apps);
    await dropDatabase(dbUrl).catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function ingestCluster() {
  // The compiled server is what runs in production: built first (esbuild, about a second).
  const built = spawnSync('npm', ['run', 'build', '-w', 'server'], { stdio: 'ignore' });
  if (built.status !== 0) throw new Error('npm run build -w server failed');
  log(`${N} messages, ${CONCURRENCY} senders, ${CONNECTIONS} connections, 1 then ${PROCESSES} processes`);
  const one = await run(1, 0);
  const many = await run(PROCESSES, 1);
  closeClient();
  console.log(
    JSON.stringify({
      bench: 'ingest',
      db: 'postgres',
      compiled: true,
      messages: N,
      senders: CONCURRENCY,
      connections: CONNECTIONS,
      oneProcess: { msgsPerSec: one.msgsPerSec, cpuMsPerMsg: one.cpuMsPerMsg },
      [`processes${PROCESSES}`]: {
        msgsPerSec: many.msgsPerSec,
        cpuMsPerMsg: many.cpuMsPerMsg,
        sessions: many.sessions,
      },
    }),
  );
}
