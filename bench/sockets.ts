/**
 * npm run bench:sockets — agent sockets on the compiled server (scripts/lib/cluster.mjs): BENCH_SOCKETS
 * (1,000) agent sockets spread over BENCH_COMPANIES (20) companies, each with a simulator connection, first
 * all on one process, then split over two (the second process joins the same PostgreSQL database; events
 * cross through the Socket.IO adapter: PostgreSQL, or Redis with REDIS_URL). Customers post BENCH_RATE (200)
 * inbound messages a second for BENCH_SECONDS (10) to the simulator's entry, round robin over the companies,
 * after BENCH_WARMUP_SECONDS (3) at the same rate that are not timed; every agent socket of the company
 * receives the message and ticket events.
 * Reported: p50/p99 from the inbound POST to the `appMessage` event at each agent socket (with the p99 of each
 * second of the schedule, and p50/p99 by path: process posted to > process of the socket), memory per idle
 * socket (growth of RSS, heap and external memory from half the sockets to all, each read after a full
 * collection through the process's inspector), event-loop delay p99 of each process during the run (its
 * /metrics), and the events received. Needs PostgreSQL (BENCH_DATABASE_URL,
 * default postgres://postgres@127.0.0.1:5432/postgres: a scratch database is made there and dropped).
 * BENCH_WORKERS (2) worker threads hold the sockets. Last line: JSON.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { clusterDatabase, jsonClient, memoryAfterGc, simulatorCompany } from './lib.js';
import { dropDatabase, startApp, stopApps, waitReady, type App } from '../scripts/lib/cluster.mjs';

const SOCKETS = Number(process.env.BENCH_SOCKETS ?? 1000);
const COMPANIES = Number(process.env.BENCH_COMPANIES ?? 20);
const RATE = Number(process.env.BENCH_RATE ?? 200);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
/** Seconds at the same rate before the timed ones (pool connections, prepared statements, JIT), not timed. */
const WARMUP = Number(process.env.BENCH_WARMUP_SECONDS ?? 3);
const PORT = Number(process.env.BENCH_PORT ?? 18290);
const BASE_DB = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const SUPER = { email: 'super@bench.local', password: `Bench-${process.pid}-Super!` };

const log = (...a: unknown[]) => console.log('[sockets]', ...a);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]! : 0;
};
const round = (x: number) => Math.round(x * 10) / 10;

const { call, close: closeClient } = jsonClient(64);

/** One figure of a process's Prometheus text (loopback callers read /metrics without a token). */
async function metric(port: number, name: string): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  const m = new RegExp(`^${name}(?:\\{[^}]*\\})? ([0-9.e+-]+)`, 'm').exec(text);
  return m ? Number(m[1]) : NaN;
}

type Company = { id: number; token: string; whatsappId: number };
type MemoryKb = { rssKb: number; heapKb: number; externalKb: number };
type LatencyResult = {
  p50Ms: number;
  p99Ms: number;
  deliveries: number;
  expected: number;
  eventLoopP99Ms: number[];
};

/** Each process's inspector port (memory readings after a full collection): its HTTP port + 100. */
const inspectPort = (app: { port: number }) => app.port + 100;

/**
 * The agents' sockets live in worker threads (BENCH_WORKERS, 2), away from the thread that posts: the
 * bench's own client must not be what delays the events it times. A message's body carries its send time
 * (epoch ms, high resolution), so each worker measures POST → event on its own.
 */
const WORKERS = Number(process.env.BENCH_WORKERS ?? 2);
// Each agent is a plain WebSocket speaking Engine.IO 4 / Socket.IO 5 (what socket.io-client sends): open,
// connect with the token, joinNotification, answer pings; a frame is parsed only when it is an appMessage
// "create", so the client's cost per event is a frame and a substring test.
const workerCode = `
const { parentPort, workerData } = require('node:worker_threads');
const WebSocket = require(workerData.ws);
const now = () => performance.timeOrigin + performance.now();
const sockets = [];
const latencies = [];
const order = []; // each latency's message number (its place in the sending schedule)
const routes = []; // each latency's path: [process the message was posted to, process the socket is on]
let events = 0;
const marker = '"body":"' + workerData.tag + ' ';
function agent({ url, token, app }) {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url.replace('http', 'ws') + '/socket.io/?EIO=4&transport=websocket');
    ws.on('error', reject);
    ws.on('message', (data) => {
      const f = data.toString();
      if (f === '2') return ws.send('3');
      if (f[0] === '0') return ws.send('40' + JSON.stringify({ token }));
      if (f.startsWith('40')) return ws.send('420["joinNotification"]');
      if (f.startsWith('430')) return resolve();
      if (f.startsWith('44')) return reject(new Error(f));
      if (!f.startsWith('42')) return;
      events++;
      const at = f.indexOf(marker);
      if (at < 0 || f.indexOf('"action":"create"') < 0 || f.indexOf('appMessage') < 0) return;
      const body = f.slice(at + 8, f.indexOf('"', at + 8)).split(' ');
      latencies.push(now() - Number(body[2]));
      order.push(Number(body[1]));
      routes.push(body[3] + '>' + app);
    });
    sockets.push(ws);
  });
}
parentPort.on('message', async (m) => {
  if (m.cmd === 'connect') {
    for (let i = 0; i < m.list.length; i += 50) await Promise.all(m.list.slice(i, i + 50).map(agent));
    parentPort.postMessage({ connected: sockets.length });
  } else if (m.cmd === 'reset') {
    latencies.length = 0;
    order.length = 0;
    routes.length = 0;
    events = 0;
    parentPort.postMessage({ reset: true });
  } else if (m.cmd === 'count') {
    parentPort.postMessage({ count: latencies.length });
  } else if (m.cmd === 'close') {
    for (const s of sockets) s.close();
    parentPort.postMessage({ latencies, order, routes, events });
  }
});
`;

function startWorker(tag: string) {
  const w = new Worker(workerCode, {
    eval: true,
    workerData: { tag, ws: createRequire(import.meta.url).resolve('ws') },
  });
  let failed: unknown;
  w.on('error', (err) => (failed = err));
  const ask = <T>(msg: object) =>
    new Promise<T>((resolve, reject) => {
      if (failed) return reject(failed);
      const onError = (err: unknown) => reject(err);
      w.once('error', onError);
      w.once('message', (v: T) => {
        w.off('error', onError);
        resolve(v);
      });
      w.postMessage(msg);
    });
  return { ask, end: () => w.terminate() };
}

async function phase(name: string, apps: App[], companies: Company[], mode: 'memory'): Promise<MemoryKb>;
async function phase(
  name: string,
  apps: App[],
  companies: Company[],
  mode: 'latency',
): Promise<LatencyResult>;
async function phase(
  name: string,
  apps: App[],
  companies: Company[],
  mode: 'memory' | 'latency',
): Promise<MemoryKb | LatencyResult> {
  // Memory after a full collection (the memory phase's process is started with an inspector port), and the
  // process's own count of sockets.
  const memory = () =>
    Promise.all(
      apps.map(async (a) => ({
        ...(await memoryAfterGc(inspectPort(a))),
        sockets: await metric(a.port, 'recado_sockets_connected'),
      })),
    );
  const workers = Array.from({ length: WORKERS }, () => startWorker(name));
  const lists: { url: string; token: string; company: number; app: number }[][] = workers.map(() => []);
  for (let i = 0; i < SOCKETS; i++) {
    const c = companies[i % companies.length]!;
    // Each company's agents on every process.
    const at = (i + Math.floor(i / companies.length)) % apps.length;
    lists[i % WORKERS]!.push({
      url: `http://127.0.0.1:${apps[at]!.port}`,
      token: c.token,
      company: c.id,
      app: at,
    });
  }
  if (mode === 'memory') {
    // Memory per idle socket is the growth from the first half of the sockets to all of them: what one more
    // socket keeps alive, without what the first ones cost once (code compiled, pools, caches).
    const half = (list: unknown[], second: boolean) =>
      second ? list.slice(Math.ceil(list.length / 2)) : list.slice(0, Math.ceil(list.length / 2));
    await Promise.all(workers.map((w, i) => w.ask({ cmd: 'connect', list: half(lists[i]!, false) })));
    const before = await memory();
    await Promise.all(workers.map((w, i) => w.ask({ cmd: 'connect', list: half(lists[i]!, true) })));
    const after = await memory();
    await Promise.all(workers.map((w) => w.ask({ cmd: 'close' })));
    await Promise.all(workers.map((w) => w.end()));
    const added = after[0]!.sockets - before[0]!.sockets;
    const kb = (k: 'rss' | 'heapUsed' | 'external') => round((after[0]![k] - before[0]![k]) / 1024 / added);
    const perSocket = { rssKb: kb('rss'), heapKb: kb('heapUsed'), externalKb: kb('external') };
    log(
      `memory: ${before[0]!.sockets} then ${after[0]!.sockets} sockets; per idle socket ${JSON.stringify(perSocket)}`,
    );
    return perSocket;
  }
  await Promise.all(workers.map((w, i) => w.ask({ cmd: 'connect', list: lists[i] })));
  const connected = await Promise.all(apps.map((a) => metric(a.port, 'recado_sockets_connected')));
  log(`${name}: ${SOCKETS} sockets connected (${connected.join(' + ')})`);

  /** Customers post `count` messages at RATE (round robin over companies and processes); bodies carry `tag`. */
  async function postAtRate(tag: string, count: number) {
    const started = performance.now();
    const posts: Promise<unknown>[] = [];
    let refused = 0;
    for (let i = 0; i < count; i++) {
      const wait = started + (i * 1000) / RATE - performance.now();
      if (wait > 0) await sleep(wait);
      const c = companies[i % companies.length]!;
      const at = (i + Math.floor(i / companies.length)) % apps.length;
      const app = apps[at]!;
      const body = `${tag} ${i} ${performance.timeOrigin + performance.now()} ${at}`;
      posts.push(
        call(`http://127.0.0.1:${app.port}`, 'POST', `/simulator/${c.whatsappId}/inbound`, c.token, {
          id: `${tag}-${i}`,
          from: `55119${String(80000000 + (i % 500))}`,
          name: `Cliente ${i % 500}`,
          body,
        }).then((r) => r.status === 202 || refused++),
      );
    }
    await Promise.all(posts);
    return { refused, seconds: (performance.now() - started) / 1000 };
  }

  // Warm-up at the same rate, not timed (its bodies do not carry the phase's tag), then a pause to drain.
  if (WARMUP > 0) {
    await postAtRate(`warm-${name}`, RATE * WARMUP);
    await sleep(1500);
    await Promise.all(workers.map((w) => w.ask({ cmd: 'reset' })));
  }
  // Reset the event-loop delay windows, then the steady rate.
  await Promise.all(apps.map((a) => metric(a.port, 'recado_event_loop_delay_p99_seconds')));
  const total = RATE * SECONDS;
  const { refused, seconds: sendSeconds } = await postAtRate(name, total);
  const loopP99Ms = await Promise.all(
    apps.map(async (a) => round((await metric(a.port, 'recado_event_loop_delay_p99_seconds')) * 1000)),
  );
  const expected = total * (SOCKETS / companies.length);
  const deadline = performance.now() + 30_000;
  for (;;) {
    const counts = await Promise.all(workers.map((w) => w.ask<{ count: number }>({ cmd: 'count' })));
    if (counts.reduce((a, b) => a + b.count, 0) >= expected || performance.now() > deadline) break;
    await sleep(200);
  }
  const results = await Promise.all(
    workers.map((w) =>
      w.ask<{ latencies: number[]; order: number[]; routes: string[]; events: number }>({ cmd: 'close' }),
    ),
  );
  await Promise.all(workers.map((w) => w.end()));
  const latencies = results.flatMap((r) => r.latencies);
  // p99 of each second of the sending schedule: a tail spread over the run, or one stall.
  const bySecond: number[][] = Array.from({ length: SECONDS }, () => []);
  results.forEach((r) =>
    r.latencies.forEach((l, k) => bySecond[Math.min(SECONDS - 1, Math.floor(r.order[k]! / RATE))]!.push(l)),
  );
  const p99BySecondMs = bySecond.map((xs) => round(pct(xs, 99)));
  // p50/p99 by path, "posted>socket" (process indexes): which hop the tail comes from.
  const byRoute = new Map<string, number[]>();
  results.forEach((r) =>
    r.latencies.forEach((l, k) => {
      const key = r.routes[k]!;
      if (!byRoute.has(key)) byRoute.set(key, []);
      byRoute.get(key)!.push(l);
    }),
  );
  const byRouteMs = Object.fromEntries(
    [...byRoute].sort().map(([k, xs]) => [k, { p50: round(pct(xs, 50)), p99: round(pct(xs, 99)) }]),
  );
  await sleep(500);
  const result = {
    phase: name,
    processes: apps.length,
    sockets: SOCKETS,
    rate: RATE,
    achievedRate: Math.round(total / sendSeconds),
    refused,
    deliveries: latencies.length,
    expected,
    eventsReceived: results.reduce((a, r) => a + r.events, 0),
    p50Ms: round(pct(latencies, 50)),
    p99Ms: round(pct(latencies, 99)),
    p99BySecondMs,
    byRouteMs,
    warmupSeconds: WARMUP,
    eventLoopP99Ms: loopP99Ms,
  };
  log(JSON.stringify(result));
  return result;
}

async function main() {
  const dbUrl = (() => {
    const u = new URL(BASE_DB);
    u.pathname = `/recado_bench_sockets_${process.pid}`;
    return u.toString();
  })();
  const dir = mkdtempSync(join(tmpdir(), 'recado-bench-sockets-'));
  const apps: App[] = [];
  try {
    const env = await clusterDatabase(dbUrl, SUPER);
    const start = (i: number, inspect = false) => {
      const port = PORT + 1 + i;
      const nodeArgs = inspect ? [`--inspect=127.0.0.1:${inspectPort({ port })}`] : [];
      const a = startApp({ dir, index: i, port, publicPort: PORT, dbUrl, env, nodeArgs });
      apps[i] = a;
      return waitReady(`http://127.0.0.1:${a.port}/api/ready`);
    };
    // The first process starts with an inspector for the memory phase, then again without one for the timed
    // phases (nothing attached to the processes that are timed).
    await start(0, true);
    const base = `http://127.0.0.1:${apps[0]!.port}`;
    const sup = await call(base, 'POST', '/auth/login', undefined, SUPER);
    const superToken = (sup.body as { token: string }).token;
    if (!superToken) throw new Error(`super login: ${sup.status} ${JSON.stringify(sup.body)}`);
    const companies: Company[] = [];
    for (let i = 0; i < COMPANIES; i++)
      companies.push(await simulatorCompany(call, base, superToken, i, 'bench-sockets.local'));
    log(`${COMPANIES} companies, ${SOCKETS} agent sockets, ${RATE} msg/s for ${SECONDS} s`);
    // Warm-up: every company's first conversation (contacts, tickets, prepared statements).
    for (const c of companies)
      await call(base, 'POST', `/simulator/${c.whatsappId}/inbound`, c.token, {
        from: '5511980000000',
        name: 'Warm',
        body: 'warm',
      });
    await sleep(2000);
    const memory = await phase('memory', [apps[0]!], companies, 'memory');
    await stopApps([apps[0]!]);
    await start(0);
    const one = await phase('one', [apps[0]!], companies, 'latency');
    // BENCH_PROCESSES=1 stops after the one-process phase (profiling, rate sweeps).
    if (process.env.BENCH_PROCESSES === '1') return;
    await start(1);
    const two = await phase('two', apps, companies, 'latency');
    console.log(
      JSON.stringify({
        bench: 'sockets',
        redis: Boolean(process.env.REDIS_URL),
        sockets: SOCKETS,
        companies: COMPANIES,
        rate: RATE,
        seconds: SECONDS,
        memoryPerIdleSocketKb: memory,
        one: {
          p50Ms: one.p50Ms,
          p99Ms: one.p99Ms,
          deliveries: one.deliveries,
          expected: one.expected,
          eventLoopP99Ms: one.eventLoopP99Ms,
        },
        two: {
          p50Ms: two.p50Ms,
          p99Ms: two.p99Ms,
          deliveries: two.deliveries,
          expected: two.expected,
          eventLoopP99Ms: two.eventLoopP99Ms,
        },
      }),
    );
  } finally {
    closeClient();
    await stopApps(apps);
    await dropDatabase(dbUrl).catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
