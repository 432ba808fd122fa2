/**
 * npm run bench:flows — flows under load (docs/flows.md): BENCH_CONVERSATIONS (default 200) customers at once
 * walk a published 10-node flow (greeting → name → CPF → set → hours → HTTP look-up on a local service →
 * branch → message → transfer) through the simulator's HTTP entry, each answering as soon as the flow asked.
 * Prints the latency the flow adds per step — from the customer's message being stored (the pipeline's
 * `message.stored`) to the end of the flow's step that answered it (`flow.steps`, after its sends and its
 * commit) — p50/p99, and on PostgreSQL the statements per step: the same conversations' messages on a
 * connection without a flow are the baseline, and what the flow phase sent beyond it, per step, is the flow's.
 * DATABASE_URL selects PostgreSQL (a scratch database); without it, embedded PGlite.
 */
import { rmSync } from 'node:fs';
import os from 'node:os';
import { sql } from 'drizzle-orm';
import http from 'node:http';
import { benchConfig, statementCounter, listenBench, seedBench } from './lib.js';
import { DEFAULT_POOL_SIZE } from '../server/src/db/client.js';
import { executeRows } from '../server/src/db/rows.js';
import { scratchDatabase } from '../server/src/db/scratch.js';
import { buildApp } from '../server/src/app.js';
import { fakeCustomerApi } from '../server/test/fake-customer-api.js';

const CONVERSATIONS = Number(process.env.BENCH_CONVERSATIONS ?? 200);
/**
 * A customer answers this long (± half) after the flow's step for its last message ended, and the
 * conversations start spread over the same time: 200 conversations in flight, not one synchronized burst.
 * BENCH_THINK_MS=0 sends every answer at once (the burst: the queue behind it dominates the latency).
 */
const THINK_MS = Number(process.env.BENCH_THINK_MS ?? 1000);
/** Conversations that walk the flow before the measured ones (the JIT's warm-up; 0: none). */
const WARMUP = Number(process.env.BENCH_WARMUP ?? 100);
/** Steps (inbound messages) per conversation in this flow. */
const STEPS = 3;

const log = (...a: unknown[]) => console.log('[flows]', ...a);
const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]! : 0;
};
const round = (x: number) => Math.round(x * 10) / 10;

/** Statements sent to PostgreSQL by this process (bench/lib.ts statementCounter). */
let counting = false;
const {
  statements,
  byText,
  install: countStatements,
} = statementCounter({ keyLength: Number(process.env.BENCH_KEY_LENGTH ?? 120), listing: () => counting });

/** A valid CPF for conversation `i` (check digits computed). */
function cpf(i: number): string {
  const base = String(100000000 + i).slice(-9);
  const digit = (s: string) => {
    const sum = [...s].reduce((acc, d, k) => acc + Number(d) * (s.length + 1 - k), 0);
    const r = (sum * 10) % 11;
    return String(r === 10 ? 0 : r);
  };
  const d1 = digit(base);
  return base + d1 + digit(base + d1);
}

/** The bench's flow: ten nodes, three customer messages per conversation. */
function benchFlow(serviceUrl: string, queueId: number) {
  const n = (id: string, type: string, data: Record<string, unknown>, y: number) => ({
    id,
    type,
    position: { x: 0, y: y * 120 },
    data,
  });
  const e = (id: string, source: string, sourceHandle: string, target: string) => ({
    id,
    source,
    sourceHandle,
    target,
  });
  return {
    nodes: [
      n('start', 'start', {}, 0),
      n('greet', 'message', { text: 'Olá! 👋' }, 1),
      n('name', 'question', { text: 'Seu nome?', variable: 'customerName' }, 2),
      n('cpf', 'question', { text: 'Seu CPF, {{customerName}}?', variable: 'cpf', validation: 'cpf' }, 3),
      n('mark', 'set', { actions: [{ kind: 'variable', name: 'origin', value: 'bench' }] }, 4),
      n(
        'hours',
        'condition',
        {
          rules: [
            {
              id: 'always',
              kind: 'weekday_time',
              weekdays: ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'],
              from: '00:00',
              to: '00:00',
            },
          ],
        },
        5,
      ),
      n(
        'lookup',
        'http',
        {
          url: `${serviceUrl}/customers/{{cpf}}`,
          responseMap: [{ path: 'customer.plan', variable: 'plan' }],
          timeoutSeconds: 10,
        },
        6,
      ),
      n(
        'plan',
        'condition',
        {
          mode: 'switch',
          rules: [{ id: 'premium', kind: 'variable', name: 'plan', op: 'eq', value: 'premium' }],
        },
        7,
      ),
      n('thanks', 'message', { text: 'Obrigado, {{customerName}} ({{plan}}).' }, 8),
      n('handover', 'transfer', { target: 'queue', queueId, note: 'CPF {{cpf}}, plano {{plan}}' }, 9),
    ],
    edges: [
      e('e1', 'start', 'next', 'greet'),
      e('e2', 'greet', 'next', 'name'),
      e('e3', 'name', 'answered', 'cpf'),
      e('e4', 'cpf', 'answered', 'mark'),
      e('e5', 'mark', 'next', 'hours'),
      e('e6', 'hours', 'true', 'lookup'),
      e('e7', 'lookup', 'success', 'plan'),
      e('e8', 'plan', 'rule:premium', 'thanks'),
      e('e9', 'plan', 'else', 'thanks'),
      e('e10', 'thanks', 'next', 'handover'),
    ],
  };
}

async function main() {
  if (process.env.DATABASE_URL) await countStatements();
  const database = await scratchDatabase(process.env.DATABASE_URL, {
    poolSize: process.env.BENCH_POOL ? Number(process.env.BENCH_POOL) : DEFAULT_POOL_SIZE,
  });
  // The customer service is on 127.0.0.1: the bench's app may reach it (docs/outbound-urls.md).
  const { dataDir, config } = benchConfig({ ALLOW_PRIVATE_URLS: 'true' });
  const customers = Object.fromEntries(
    Array.from({ length: Math.max(CONVERSATIONS, WARMUP) }, (_, i) => [
      cpf(i),
      { name: `Cliente ${i}`, plan: i % 2 ? 'premium' : 'basic', since: '2020' },
    ]),
  );
  const service = await fakeCustomerApi({ customers });
  await seedBench(database.db);
  const app = await buildApp({ config, database, logger: false, loginLimit: 1000 });
  const base = await listenBench(app);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
  const call = async (method: string, path: string, token: string, body?: unknown) => {
    const res = await fetch(`${base}/api${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, json: text ? JSON.parse(text) : null };
  };
  try {
    const login = await (
      await fetch(`${base}/api/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'admin@demo.local', password: 'Demo@1234' }),
      })
    ).json();
    const token = login.token as string;
    const list = (await call('GET', '/whatsapp', token)).json as { id: number; name: string }[];
    const conn = list[0]!;
    const queues = (await call('GET', '/queue', token)).json as { id: number }[];
    const flow = await call('POST', '/flows', token, {
      name: 'Bench',
      graph: benchFlow(service.url, queues[0]!.id),
    });
    if (flow.status !== 201) throw new Error(`flow: ${flow.status} ${JSON.stringify(flow.json)}`);
    const published = await call('POST', `/flows/${flow.json.id}/publish`, token);
    if (published.status !== 200)
      throw new Error(`publish: ${published.status} ${JSON.stringify(published.json)}`);
    // A second connection without anything: the baseline (the same messages, no flow, no menu).
    const plain = await call('POST', '/whatsapp', token, { name: 'Plain', channel: 'simulator' });
    const quiet = await call('PUT', `/whatsapp/${conn.id}`, token, {
      name: conn.name,
      queueIds: [],
      greetingMessage: '',
      flowId: flow.json.id,
    });
    if (quiet.status !== 200) throw new Error(`connection: ${quiet.status} ${JSON.stringify(quiet.json)}`);

    // The app's bus, in this process: when each customer message was stored, and when the flow's step ended.
    const bus = app.services.bus;
    const storedAt = new Map<number, number>();
    const numberOf = new Map<number, string>();
    const waiters = new Map<string, () => void>();
    const stepMs: number[] = [];
    /** The same per step of the conversation (1: greeting and name, 2: CPF, 3: look-up and hand-over). */
    const stepMsByIndex: number[][] = Array.from({ length: STEPS }, () => []);
    const indexOf = new Map<string, number>();
    /** The slowest steps: when (ms into the flow phase), which step, how long. */
    const slowest: { at: number; index: number; ms: number }[] = [];
    /** From the customer's HTTP request leaving the bench to the end of the step that answered it. */
    const sentAt = new Map<string, number>();
    const endToEndMs: number[] = [];
    /** The runtime's own time per inbound message (its message.stored listener, from start to end). */
    const runtimeMs: number[] = [];
    const runtime = app.services.flowsRuntime as { onStored: (...a: never[]) => Promise<unknown> };
    const onStored = runtime.onStored;
    runtime.onStored = async (...a: never[]) => {
      const t = performance.now();
      try {
        return await onStored(...a);
      } finally {
        if (counting) runtimeMs.push(performance.now() - t);
      }
    };
    let steps = 0;
    let phaseStart = 0;
    let storedCount = 0;
    let storedWaiter: (() => void) | null = null;
    let storedTarget = 0;
    /** The bus's events of the flow phase by name (BENCH_EVENTS=1 lists them per step). */
    const eventCounts = new Map<string, number>();
    bus.tap(({ event, payload }) => {
      if (counting) eventCounts.set(event, (eventCounts.get(event) ?? 0) + 1);
      if (event === 'message.stored' && !payload.message.fromMe) {
        storedAt.set(payload.ticket.id, performance.now());
        numberOf.set(payload.ticket.id, payload.ticket.contact.number);
        storedCount++;
        if (storedWaiter && storedCount >= storedTarget) storedWaiter();
      } else if (event === 'flow.steps' && !payload.isTry) {
        const at = storedAt.get(payload.ticketId);
        const index = indexOf.get(numberOf.get(payload.ticketId) ?? '');
        if (at !== undefined) {
          const ms = performance.now() - at;
          stepMs.push(ms);
          if (index !== undefined) stepMsByIndex[index]!.push(ms);
          if (counting)
            slowest.push({ at: Math.round(performance.now() - phaseStart), index: (index ?? -1) + 1, ms });
        }
        steps++;
        if (steps % 100 === 0) log(`${steps} steps`);
        const number = numberOf.get(payload.ticketId);
        const sent = number ? sentAt.get(number) : undefined;
        if (sent !== undefined) {
          endToEndMs.push(performance.now() - sent);
          sentAt.delete(number!);
        }
        const w = number ? waiters.get(number) : undefined;
        if (w) {
          waiters.delete(number!);
          w();
        }
      }
    });

    let seq = 0;
    /** One customer message; a keep-alive socket the server closed meanwhile is retried (same id: a no-op twice). */
    const send = async (whatsappId: number, from: string, body: string) => {
      const id = `bench-${++seq}`;
      for (let attempt = 1; ; attempt++)
        try {
          return await post(whatsappId, id, from, body);
        } catch (err) {
          if (attempt >= 3 || (err as { code?: string }).code !== 'ECONNRESET') throw err;
        }
    };
    const post = (whatsappId: number, id: string, from: string, body: string) =>
      new Promise<void>((resolve, reject) => {
        const data = JSON.stringify({ id, from, name: `Cliente ${from.slice(-4)}`, body });
        const req = http.request(
          `${base}/api/simulator/${whatsappId}/inbound`,
          {
            method: 'POST',
            agent,
            headers: {
              authorization: `Bearer ${token}`,
              'content-type': 'application/json',
              'content-length': Buffer.byteLength(data),
            },
          },
          (res) => {
            res.resume();
            res.on('end', () =>
              res.statusCode === 202 ? resolve() : reject(new Error(`inbound answered ${res.statusCode}`)),
            );
          },
        );
        req.on('error', reject);
        req.end(data);
      });
    const number = (phase: string, i: number) =>
      `55${{ flow: '21', plain: '31', warmup: '41' }[phase] ?? '51'}9${String(10000000 + i).slice(-8)}`;
    const answers = (i: number) => ['Oi', `Cliente ${i}`, cpf(i)];

    // 1. Baseline: the same messages on the plain connection (statements of the pipeline alone).
    const st0 = statements.all;
    const cpuBase0 = process.cpuUsage();
    storedTarget = storedCount + CONVERSATIONS * STEPS;
    const allStored = new Promise<void>((r) => (storedWaiter = r));
    await Promise.all(
      Array.from({ length: CONVERSATIONS }, async (_, i) => {
        for (const body of answers(i)) await send(plain.json.id, number('plain', i), body);
      }),
    );
    await allStored;
    storedWaiter = null;
    await bus.idle();
    const baselinePerMessage = (statements.all - st0) / (CONVERSATIONS * STEPS);
    const cpuBase = process.cpuUsage(cpuBase0);
    /** The pipeline alone (HTTP entry, storing, its listeners; no flow): CPU per customer message. */
    const baselineCpuMs = (cpuBase.user + cpuBase.system) / 1000 / (CONVERSATIONS * STEPS);

    // 2. The flow: every conversation at once, each answering when the flow's step for its last message ended.
    const think = (ms: number) => new Promise((r) => setTimeout(r, ms * (0.5 + Math.random())));
    /** `count` conversations (numbers of `phase`) walk the flow, starting spread over 2 × `thinkMs`. */
    const walk = (phase: string, count: number, thinkMs: number) =>
      Promise.all(
        Array.from({ length: count }, async (_, i) => {
          const from = number(phase, i);
          if (thinkMs) await new Promise((r) => setTimeout(r, (thinkMs * 2 * i) / count));
          for (const [j, body] of answers(i).entries()) {
            if (thinkMs && j > 0) await think(thinkMs);
            const answered = new Promise<void>((r) => waiters.set(from, r));
            indexOf.set(from, j);
            sentAt.set(from, performance.now());
            await send(conn.id, from, body);
            await Promise.race([
              answered,
              new Promise((_, reject) =>
                setTimeout(() => reject(new Error(`no flow step for ${from} after 60 s`)), 60_000),
              ),
            ]);
          }
        }),
      );
    // A server answers customers for days: the measured conversations meet code the JIT has compiled, not a
    // process's first steps. WARMUP conversations walk the flow first (their figures printed apart).
    let warmup: { p50: number; p99: number } | null = null;
    if (WARMUP) {
      log(`warm-up: ${WARMUP} conversations`);
      await walk('warmup', WARMUP, Math.min(THINK_MS, 1000));
      await bus.idle();
      warmup = { p50: round(pct(stepMs, 50)), p99: round(pct(stepMs, 99)) };
      log(`warm-up's added latency per step: p50 ${warmup.p50} ms, p99 ${warmup.p99} ms`);
    }
    stepMs.length = 0;
    runtimeMs.length = 0;
    endToEndMs.length = 0;
    stepMsByIndex.forEach((xs) => (xs.length = 0));
    steps = 0;
    const st1 = statements.all;
    counting = true;
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    phaseStart = t0;
    log(`database: ${database.kind}; ${CONVERSATIONS} conversations × ${STEPS} steps on a 10-node flow`);
    await walk('flow', CONVERSATIONS, THINK_MS);
    await bus.idle();
    const wall = performance.now() - t0;
    counting = false;
    const cpu = process.cpuUsage(cpu0);
    /** This process's CPU per step (server and the bench's clients; the baseline's pipeline included). */
    const cpuMsPerStep = (cpu.user + cpu.system) / 1000 / Math.max(1, steps);
    if (process.env.BENCH_STATEMENTS)
      for (const [text, n] of [...byText].sort((x, y) => y[1] - x[1]).slice(0, 25))
        log(
          `  ${(n / Math.max(1, steps)).toFixed(2)}/step  ${process.env.BENCH_FULL ? text : text.length > 200 ? `${text.slice(0, 100)} … ${text.slice(-100)}` : text}`,
        );
    if (process.env.BENCH_EVENTS)
      for (const [name, n] of [...eventCounts].sort((x, y) => y[1] - x[1]))
        log(`  event ${name}: ${(n / Math.max(1, steps)).toFixed(2)}/step`);
    const flowStatements = statements.all - st1;
    const done = (await call('GET', `/flows/${flow.json.id}/stats`, token)).json as {
      runs: { started: number; completed: number; failed: number };
    };
    const statementsPerStep =
      database.kind === 'postgres' ? flowStatements / steps - baselinePerMessage : null;
    log(
      `${steps} steps in ${round(wall / 1000)} s; runs started ${done.runs.started}, completed ${done.runs.completed}, failed ${done.runs.failed}; look-ups ${service.requests.length}`,
    );
    log(
      `added latency per step (stored -> step ended): p50 ${round(pct(stepMs, 50))} ms, p99 ${round(pct(stepMs, 99))} ms`,
    );
    log(
      `per step of the conversation (p50/p99 ms): ${stepMsByIndex.map((xs, i) => `${i + 1}: ${round(pct(xs, 50))}/${round(pct(xs, 99))}`).join(', ')}`,
    );
    log(
      `slowest steps (ms into the run, step, ms): ${slowest
        .sort((a, b) => b.ms - a.ms)
        .slice(0, 8)
        .map((x) => `${x.at} #${x.index} ${round(x.ms)}`)
        .join('; ')}`,
    );
    log(
      `end to end (the customer's request sent -> step ended): p50 ${round(pct(endToEndMs, 50))} ms, p99 ${round(pct(endToEndMs, 99))} ms`,
    );
    log(
      `CPU per step in this process: ${round(cpuMsPerStep)} ms; the pipeline alone ${round(baselineCpuMs)} ms per message (load ${os.loadavg()[0]!.toFixed(1)})`,
    );
    log(
      `the runtime's own time per message: p50 ${round(pct(runtimeMs, 50))} ms, p99 ${round(pct(runtimeMs, 99))} ms`,
    );
    if (statementsPerStep !== null)
      log(
        `statements per step: ${round(statementsPerStep)} beyond the pipeline's ${round(baselinePerMessage)} per message`,
      );
    if (done.runs.completed !== CONVERSATIONS + WARMUP) {
      const failed = await executeRows(
        database.db,
        sql`select current_node_id, error, count(*)::int as n from flow_runs where status <> 'completed' group by 1, 2`,
      );
      throw new Error(`not every conversation completed the flow: ${JSON.stringify(failed)}`);
    }
    console.log(
      JSON.stringify({
        bench: 'flows',
        db: database.kind === 'pglite' ? 'pglite' : 'postgres',
        conversations: CONVERSATIONS,
        nodes: 10,
        steps,
        thinkMs: THINK_MS,
        warmupConversations: WARMUP,
        ...(warmup ? { warmupP50Ms: warmup.p50, warmupP99Ms: warmup.p99 } : {}),
        p50Ms: round(pct(stepMs, 50)),
        p99Ms: round(pct(stepMs, 99)),
        runtimeP50Ms: round(pct(runtimeMs, 50)),
        runtimeP99Ms: round(pct(runtimeMs, 99)),
        endToEndP50Ms: round(pct(endToEndMs, 50)),
        endToEndP99Ms: round(pct(endToEndMs, 99)),
        cpuMsPerStep: round(cpuMsPerStep),
        baselineCpuMsPerMessage: round(baselineCpuMs),
        load1: Number(os.loadavg()[0]!.toFixed(1)),
        ...(statementsPerStep !== null
          ? {
              statementsPerStep: round(statementsPerStep),
              baselineStatementsPerMessage: round(baselinePerMessage),
            }
          : {}),
        wallSeconds: round(wall / 1000),
      }),
    );
  } finally {
    agent.destroy();
    await app.close();
    await service.close();
    await database.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
