/**
 * npm run bench:widget — website chat visitors on one compiled server process (docs/benchmarks.md "Widget"):
 * BENCH_VISITORS (1,000) visitor sockets connected to the /widget namespace of one webchat connection; they
 * send BENCH_RATE (100) messages a second for BENCH_SECONDS (10) over their sockets (`widget:send`), round
 * robin, after BENCH_WARMUP_SECONDS (VISITORS / RATE: every visitor's first message, which opens its contact and
 * ticket) at the same rate that are not timed, then 5 s for the backlog; an attendant's socket of the
 * company (joinNotification) gets each message's `appMessage` event.
 * Reported: p50/p99 from the visitor's send to the attendant's event, messages answered with an error, memory
 * per idle visitor socket (growth of RSS, heap and external memory from no visitor socket to all of them,
 * each read after a full collection through the process's inspector), and the machine's load average.
 * Needs PostgreSQL (BENCH_DATABASE_URL, default postgres://postgres@127.0.0.1:5432/postgres: a scratch
 * database is made there and dropped). Ports: BENCH_PORT (4640) + 1 for the app, + 2 for its inspector.
 * Last line: JSON.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { io as ioClient, type Socket } from 'socket.io-client';
import { clusterDatabase, jsonClient, memoryAfterGc } from './lib.js';
import { dropDatabase, startApp, stopApps, waitReady, type App } from '../scripts/lib/cluster.mjs';

const VISITORS = Number(process.env.BENCH_VISITORS ?? 1000);
const RATE = Number(process.env.BENCH_RATE ?? 100);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
/** Untimed seconds first; by default long enough for every visitor's first message (its contact and ticket). */
const WARMUP = Number(process.env.BENCH_WARMUP_SECONDS ?? Math.ceil(VISITORS / RATE));
const PORT = Number(process.env.BENCH_PORT ?? 4640);
const BASE_DB = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const SUPER = { email: 'super@bench.local', password: `Bench-${process.pid}-Super!` };
const ORIGIN = 'http://shop.bench.local';

const log = (...a: unknown[]) => console.log('[widget]', ...a);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]! : 0;
};
const round = (x: number) => Math.round(x * 10) / 10;
const { call, close: closeClient } = jsonClient(64);

/** The server process's CPU seconds so far (its /metrics; loopback callers read it without a token). */
async function cpuSeconds(base: string): Promise<number> {
  const text = await (await fetch(`${base}/metrics`)).text();
  const m = /^process_cpu_seconds_total(?:\{[^}]*\})? ([0-9.e+-]+)/m.exec(text);
  return m ? Number(m[1]) : NaN;
}

async function main() {
  const dbUrl = (() => {
    const u = new URL(BASE_DB);
    u.pathname = `/recado_bench_widget_${process.pid}`;
    return u.toString();
  })();
  const dir = mkdtempSync(join(tmpdir(), 'recado-bench-widget-'));
  const apps: App[] = [];
  const sockets: Socket[] = [];
  const loadBefore = loadavg();
  try {
    const env = await clusterDatabase(dbUrl, SUPER);
    const inspect = PORT + 2;
    const app = startApp({
      dir,
      index: 0,
      port: PORT + 1,
      publicPort: PORT + 1,
      dbUrl,
      env: { ...env, LOG_LEVEL: 'warn' },
      nodeArgs: [`--inspect=127.0.0.1:${inspect}`],
    });
    apps.push(app);
    const base = `http://127.0.0.1:${app.port}`;
    await waitReady(`${base}/api/ready`);

    // A company, its admin, and a webchat connection allowing the bench's origin.
    const superToken = ((await call(base, 'POST', '/auth/login', undefined, SUPER)).body as { token: string })
      .token;
    const email = 'admin@bench-widget.local';
    const created = await call(base, 'POST', '/companies', superToken, {
      name: 'Bench widget',
      email,
      planId: 5,
      dueDate: '2099-01-01',
      adminName: 'Admin',
      adminPassword: 'Bench@12345',
    });
    if (created.status !== 201) throw new Error(`company: ${created.status} ${JSON.stringify(created.body)}`);
    const login = (await call(base, 'POST', '/auth/login', undefined, { email, password: 'Bench@12345' }))
      .body as {
      token: string;
      user: { companyId: number };
    };
    const conn = (
      await call(base, 'POST', '/whatsapp', login.token, {
        name: 'Site',
        channel: 'webchat',
        channelConfig: { allowedOrigins: [ORIGIN] },
      })
    ).body as { id: number; channelConfig: { publicId: string } };
    const publicId = conn.channelConfig.publicId;

    // The visitors (each from an address of its own: the creation is limited per address).
    const visitors: { visitorToken: string }[] = [];
    for (let i = 0; i < VISITORS; i += 50) {
      const batch = await Promise.all(
        Array.from({ length: Math.min(50, VISITORS - i) }, async (_v, k) => {
          const n = i + k;
          const res = await fetch(`${base}/api/widget/${publicId}/visitors`, {
            method: 'POST',
            headers: {
              'content-type': 'application/json',
              origin: ORIGIN,
              'x-forwarded-for': `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`,
            },
            body: JSON.stringify({ name: `Visitante ${n}` }),
          });
          if (res.status !== 201) throw new Error(`visitor: ${res.status} ${await res.text()}`);
          return (await res.json()) as { visitorToken: string };
        }),
      );
      visitors.push(...batch);
    }
    log(`${VISITORS} visitors made`);

    // The attendant's socket: every new message of the company (notification room).
    const received = new Map<string, number>();
    const agent = ioClient(base, {
      path: '/socket.io',
      transports: ['websocket'],
      auth: { token: login.token },
      reconnection: false,
      forceNew: true,
    });
    sockets.push(agent);
    await new Promise<void>((resolve, reject) => {
      agent.once('connect', () => resolve());
      agent.once('connect_error', reject);
    });
    await agent.emitWithAck('joinNotification');
    agent.on(
      `company-${login.user.companyId}-appMessage`,
      (p: { action?: string; message?: { body?: string } }) => {
        const body = p.message?.body;
        if (p.action === 'create' && body?.startsWith('bench ') && !received.has(body))
          received.set(body, performance.now());
      },
    );

    // Memory: no visitor socket, then all of them idle (each after a full collection).
    await sleep(1000);
    const before = await memoryAfterGc(inspect);
    for (let i = 0; i < VISITORS; i += 100) {
      const batch = visitors.slice(i, i + 100).map(
        (v) =>
          new Promise<Socket>((resolve, reject) => {
            const s = ioClient(`${base}/widget`, {
              path: '/socket.io',
              transports: ['websocket'],
              query: { widget: publicId },
              auth: { publicId, visitorToken: v.visitorToken },
              extraHeaders: { origin: ORIGIN },
              reconnection: false,
              forceNew: true,
            });
            s.once('connect', () => resolve(s));
            s.once('connect_error', reject);
          }),
      );
      sockets.push(...(await Promise.all(batch)));
    }
    const visitorSockets = sockets.slice(1);
    log(`${visitorSockets.length} visitor sockets connected`);
    await sleep(2000);
    const after = await memoryAfterGc(inspect);
    const perSocketKb = (k: 'rss' | 'heapUsed' | 'external') =>
      round((after[k] - before[k]) / 1024 / VISITORS);
    const memory = {
      rssKb: perSocketKb('rss'),
      heapKb: perSocketKb('heapUsed'),
      externalKb: perSocketKb('external'),
    };
    log('memory per idle visitor socket', memory);

    // Messages: RATE a second, round robin over the visitors; warm-up first (not timed).
    const sentAt = new Map<string, number>();
    const acked: number[] = [];
    let seq = 0;
    let errors = 0;
    const run = async (seconds: number, timed: boolean) => {
      const total = Math.round(seconds * RATE);
      const start = performance.now();
      const pending: Promise<unknown>[] = [];
      for (let i = 0; i < total; i++) {
        const due = start + (i * 1000) / RATE;
        const wait = due - performance.now();
        if (wait > 1) await sleep(wait);
        const s = visitorSockets[seq % visitorSockets.length]!;
        const body = `bench ${timed ? 't' : 'w'} ${seq++}`;
        if (timed) sentAt.set(body, performance.now());
        pending.push(
          s
            .timeout(30_000)
            .emitWithAck('widget:send', { body })
            .then(
              (a: { ok: boolean }) => {
                if (!a.ok) errors++;
                else if (timed) acked.push(performance.now() - sentAt.get(body)!);
              },
              () => errors++,
            ),
        );
      }
      await Promise.all(pending);
    };
    await run(WARMUP, false);
    // The warm-up's backlog drained: every warm-up message reached the attendant (or 60 s passed).
    const warmEnd = Date.now() + 60_000;
    while (Date.now() < warmEnd && [...received.keys()].filter((b) => b.startsWith('bench w')).length < seq)
      await sleep(100);
    const cpuBefore = await cpuSeconds(base);
    await run(SECONDS, true);
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline && [...sentAt.keys()].some((b) => !received.has(b))) await sleep(100);
    // Server CPU per timed message: what a message costs whatever the machine's load.
    const cpuMsPerMessage = round((((await cpuSeconds(base)) - cpuBefore) * 1000) / Math.max(1, sentAt.size));
    const latencies = [...sentAt].flatMap(([b, t]) => (received.has(b) ? [received.get(b)! - t] : []));
    const result = {
      bench: 'widget',
      visitors: VISITORS,
      rate: RATE,
      seconds: SECONDS,
      p50Ms: round(pct(latencies, 50)),
      p99Ms: round(pct(latencies, 99)),
      maxMs: round(pct(latencies, 100)),
      /** From the send to the server's answer (stored, the owner told): what the visitor waits for. */
      ackP50Ms: round(pct(acked, 50)),
      ackP99Ms: round(pct(acked, 99)),
      serverCpuMsPerMessage: cpuMsPerMessage,
      delivered: latencies.length,
      expected: sentAt.size,
      errors,
      memoryPerIdleVisitorSocketKb: memory,
      machine: { cpus: cpus().length, loadBefore: loadBefore.map(round), loadAfter: loadavg().map(round) },
    };
    log(
      `visitor → attendant p50 ${result.p50Ms} ms, p99 ${result.p99Ms} ms (${result.delivered}/${result.expected})`,
    );
    console.log(JSON.stringify(result));
  } finally {
    for (const s of sockets) s.disconnect();
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
