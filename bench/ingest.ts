/**
 * npm run bench:ingest — inbound messages through the real pipeline: the simulator's HTTP entry → stored
 * message + contact + ticket → the agent's socket event. Prints sustained messages per second and the
 * p50/p99 time from injection to the agent's event. DATABASE_URL selects PostgreSQL (a scratch database
 * is created and dropped); without it, embedded PGlite in memory.
 *   BENCH_MESSAGES (default 20000), BENCH_CONTACTS (500), BENCH_CONCURRENCY (32), BENCH_RATE (200/s), BENCH_SECONDS (10)
 * BENCH_PROCESSES=2: compiled server processes instead (bench/ingest-cluster.ts): one, then two, side by side.
 *   BENCH_WEBHOOK_DELAY_MS: an outgoing webhook to a local receiver that answers this late
 */
import { rmSync } from 'node:fs';
import http from 'node:http';
import { io as ioClient } from 'socket.io-client';
import { sql } from 'drizzle-orm';
import { benchConfig, statementCounter, listenBench, seedBench } from './lib.js';
import { DEFAULT_POOL_SIZE } from '../server/src/db/client.js';
import { scratchDatabase } from '../server/src/db/scratch.js';
import { buildApp } from '../server/src/app.js';
import { webhookReceiver } from '../server/test/webhook-receiver.js';

const N = Number(process.env.BENCH_MESSAGES ?? 20000);
const CONTACTS = Number(process.env.BENCH_CONTACTS ?? 500);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32);
const RATE = Number(process.env.BENCH_RATE ?? 200);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
/** Set: an outgoing webhook (message.created, ticket.created) to a local receiver this slow (docs/webhooks.md). */
const WEBHOOK_DELAY_MS = process.env.BENCH_WEBHOOK_DELAY_MS;

const log = (...a: unknown[]) => console.log('[ingest]', ...a);
const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]! : 0;
};
const round = (x: number) => Math.round(x * 10) / 10;

/**
 * CPU seconds spent so far by this process and by the PostgreSQL backends serving the bench's database
 * (read from /proc when the server is on this machine; 0 otherwise). On a shared machine, CPU per message
 * says more about the code than wall-clock throughput does.
 */
async function cpuNow(database: {
  kind: string;
  raw(q: string): Promise<{ rows: Record<string, unknown>[] }>;
}) {
  const u = process.cpuUsage();
  let pg = 0;
  if (database.kind === 'postgres') {
    const { readFileSync } = await import('node:fs');
    const { rows } = await database.raw(
      'select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()',
    );
    for (const r of rows)
      try {
        const f = readFileSync(`/proc/${r.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
        pg += (Number(f[11]) + Number(f[12])) / 100;
      } catch {
        // not on this machine
      }
  }
  return { node: (u.user + u.system) / 1e6, pg };
}

/** Statements sent to PostgreSQL by this process (bench/lib.ts statementCounter). */
const { statements, byText, install: countStatements } = statementCounter({ keyLength: 110 });

async function main() {
  if (process.env.DATABASE_URL) await countStatements();
  const database = await scratchDatabase(process.env.DATABASE_URL, {
    poolSize: process.env.BENCH_POOL ? Number(process.env.BENCH_POOL) : DEFAULT_POOL_SIZE,
  });
  const { dataDir, config } = benchConfig(
    WEBHOOK_DELAY_MS !== undefined ? { ALLOW_PRIVATE_URLS: 'true' } : {},
  );
  const receiver =
    WEBHOOK_DELAY_MS !== undefined ? await webhookReceiver({ delayMs: Number(WEBHOOK_DELAY_MS) }) : undefined;
  await seedBench(database.db);
  const app = await buildApp({ config, database, logger: false, loginLimit: 1000 });
  const base = await listenBench(app);
  try {
    const login = await (
      await fetch(`${base}/api/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'admin@demo.local', password: 'Demo@1234' }),
      })
    ).json();
    const token = login.token as string;
    const companyId = login.user.companyId as number;
    const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const list = await (
      await fetch(`${base}/api/whatsapp`, { headers: { authorization: auth.authorization } })
    ).json();
    if (!Array.isArray(list) || !list[0]) throw new Error(`no connection: ${JSON.stringify(list)}`);
    const conn = list[0] as { id: number; name: string };
    // The demo's simulator greets and offers its menu of departments (docs/bot.md): this bench measures the
    // ingest path alone, as before, so its connection offers neither.
    const quiet = await fetch(`${base}/api/whatsapp/${conn.id}`, {
      method: 'PUT',
      headers: auth,
      body: JSON.stringify({ name: conn.name, queueIds: [], greetingMessage: '' }),
    });
    if (quiet.status !== 200) throw new Error(`connection: ${quiet.status} ${await quiet.text()}`);
    const entry = `${base}/api/simulator/${conn.id}/inbound`;
    if (receiver) {
      const hook = await fetch(`${base}/api/webhooks`, {
        method: 'POST',
        headers: auth,
        body: JSON.stringify({ url: receiver.url, events: ['message.created', 'ticket.created'] }),
      });
      if (hook.status !== 201) throw new Error(`webhook: ${hook.status} ${await hook.text()}`);
      log(`webhook to a receiver answering after ${WEBHOOK_DELAY_MS} ms`);
    }
    log(
      `database: ${database.kind}; ${N} messages from ${CONTACTS} contacts, ${CONCURRENCY} concurrent senders`,
    );

    const socket = ioClient(base, { auth: { token }, transports: ['websocket'] });
    await new Promise<void>((r) => socket.once('connect', () => r()));
    await new Promise((r) => socket.emit('joinNotification', r));
    const seenAt = new Map<string, number>();
    socket.on(`company-${companyId}-appMessage`, (p: { action: string; message: { body: string } }) => {
      if (p.action === 'create') seenAt.set(p.message.body, performance.now());
    });

    // node:http with keep-alive: the client's own cost (this process runs the server too) stays small.
    const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
    const target = new URL(entry);
    const send = (i: number, tag: string) =>
      new Promise<void>((resolve, reject) => {
        const body = JSON.stringify({
          id: `${tag}-${i}`,
          from: `55119${String(10000000 + (i % CONTACTS)).slice(-8)}`,
          name: `Cliente ${i % CONTACTS}`,
          body: `${tag} ${i}`,
        });
        const req = http.request(
          {
            agent,
            host: target.hostname,
            port: target.port,
            path: target.pathname,
            method: 'POST',
            headers: { ...auth, 'content-length': Buffer.byteLength(body) },
          },
          (res) => {
            res.resume();
            res.on('end', () =>
              res.statusCode === 202 ? resolve() : reject(new Error(`inbound answered ${res.statusCode}`)),
            );
          },
        );
        req.on('error', reject);
        req.end(body);
      });

    // 1. Sustained throughput: inject everything, wait until every message is stored.
    const cpu0 = await cpuNow(database);
    const st0 = { ...statements };
    const t0 = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < N) await send(next++, 'tp');
      }),
    );
    const accepted = performance.now();
    const count = async () =>
      Number(
        (
          (await database.db.execute(sql`select count(*)::int as n from messages`)) as unknown as {
            rows: { n: number }[];
          }
        ).rows[0]!.n,
      );
    let last = -1;
    for (;;) {
      const n = await count();
      if (n >= N) break;
      if (n !== last) log(`stored ${n}/${N}`);
      last = n;
      await new Promise((r) => setTimeout(r, 500));
    }
    const done = performance.now();
    const cpu1 = await cpuNow(database);
    const statementsPerMsg = (statements.all - st0.all) / N;
    const txControlPerMsg = (statements.txControl - st0.txControl) / N;
    const msgsPerSec = N / ((done - t0) / 1000);
    const nodeCpuMs = ((cpu1.node - cpu0.node) * 1000) / N;
    const pgCpuMs = ((cpu1.pg - cpu0.pg) * 1000) / N;
    log(
      `accepted in ${round((accepted - t0) / 1000)} s, stored in ${round((done - t0) / 1000)} s: ${Math.round(msgsPerSec)} msg/s`,
    );
    log(
      `CPU per message: ${nodeCpuMs.toFixed(3)} ms in this process (server + bench client)` +
        (database.kind === 'postgres' ? `, ${pgCpuMs.toFixed(3)} ms in PostgreSQL backends` : ''),
    );
    if (process.env.BENCH_STATEMENTS)
      for (const [text, n] of [...byText].sort((a, b) => b[1] - a[1]).slice(0, 12))
        log(`  ${(n / N).toFixed(3)}/msg  ${text}`);
    if (database.kind === 'postgres')
      log(
        `statements per message: ${statementsPerMsg.toFixed(2)} (of which BEGIN/COMMIT/ROLLBACK ${txControlPerMsg.toFixed(2)})`,
      );

    // 2. Latency at a steady rate: injection → the agent's socket event.
    const sentAt = new Map<string, number>();
    const total = RATE * SECONDS;
    const started = performance.now();
    const pending: Promise<void>[] = [];
    for (let i = 0; i < total; i++) {
      const due = started + (i * 1000) / RATE;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      sentAt.set(`lat ${i}`, performance.now());
      pending.push(send(i, 'lat'));
    }
    await Promise.all(pending);
    const deadline = performance.now() + 30000;
    while ([...sentAt.keys()].some((k) => !seenAt.has(k)) && performance.now() < deadline)
      await new Promise((r) => setTimeout(r, 100));
    const lat = [...sentAt.entries()].filter(([k]) => seenAt.has(k)).map(([k, v]) => seenAt.get(k)! - v);
    log(
      `latency at ${RATE} msg/s: ${lat.length}/${total} events, p50 ${round(pct(lat, 50))} ms, p99 ${round(pct(lat, 99))} ms`,
    );
    socket.disconnect();
    agent.destroy();
    console.log(
      JSON.stringify({
        bench: 'ingest',
        db: database.kind === 'pglite' ? 'pglite' : 'postgres',
        messages: N,
        contacts: CONTACTS,
        msgsPerSec: Math.round(msgsPerSec),
        nodeCpuMsPerMsg: Math.round(nodeCpuMs * 100) / 100,
        pgCpuMsPerMsg: Math.round(pgCpuMs * 100) / 100,
        ...(database.kind === 'postgres'
          ? { statementsPerMsg: Math.round(statementsPerMsg * 100) / 100 }
          : {}),
        rate: RATE,
        events: lat.length,
        p50Ms: round(pct(lat, 50)),
        p99Ms: round(pct(lat, 99)),
        ...(receiver
          ? { webhookDelayMs: Number(WEBHOOK_DELAY_MS), webhookReceived: receiver.received.length }
          : {}),
      }),
    );
  } finally {
    await app.close();
    await receiver?.close();
    await database.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

(process.env.BENCH_PROCESSES ? import('./ingest-cluster.js').then((m) => m.ingestCluster()) : main()).catch(
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
