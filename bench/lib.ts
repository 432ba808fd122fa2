/**
 * What the benchmarks share: a JSON client of the HTTP API, the configuration of an in-process app, and the
 * database and companies of the compiled-process benches.
 */
import http from 'node:http';
import WebSocket from 'ws';
import { testConfig } from '../server/test/config.js';
import { openDatabase } from '../server/src/db/client.js';
import { seed } from '../server/src/db/seed.js';
import { ensureDatabase } from '../scripts/lib/cluster.mjs';
import { httpJson } from '../scripts/lib/http-json.mjs';

/** Calls `${base}/api${path}` with keep-alive connections (up to `maxSockets`); answers status and JSON. */
export function jsonClient(maxSockets = 64) {
  const agent = new http.Agent({ keepAlive: true, maxSockets });
  const call = async (
    base: string,
    method: string,
    path: string,
    token?: string,
    body?: unknown,
  ): Promise<{ status: number; body: unknown }> => {
    const r = await httpJson(`${base}/api${path}`, {
      method,
      agent,
      body,
      headers: token ? { authorization: `Bearer ${token}` } : {},
    });
    return { status: r.status, body: r.json };
  };
  return { call, close: () => agent.destroy() };
}

/** The benches' super user, and the demo company when `demo` (its admin and connection are what most time). */
export const seedBench = (db: Parameters<typeof seed>[0], demo = true) =>
  seed(db, {
    superuserEmail: 'super@bench.local',
    superuserPassword: 'Bench@12345',
    demo,
    print: () => undefined,
  });

/** Starts an in-process app's HTTP server on a free local port; answers its base URL. */
export async function listenBench(app: {
  app: { listen(o: { port: number; host: string }): Promise<unknown>; server: { address(): unknown } };
}) {
  await app.app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.app.server.address() as { port?: number } | null;
  return `http://127.0.0.1:${address?.port ?? 0}`;
}

/** A silent test configuration on a data folder of its own (server/test/config.ts). */
export const benchConfig = (extra: Record<string, string> = {}) => testConfig(extra, 'recado-bench-');

/**
 * A migrated PostgreSQL database for compiled processes (scripts/lib/cluster.mjs) with only the super user
 * seeded; answers the environment those processes start with.
 */
export async function clusterDatabase(dbUrl: string, superUser: { email: string; password: string }) {
  await ensureDatabase(dbUrl);
  const database = await openDatabase({ url: dbUrl, poolSize: 2 });
  await database.migrate();
  await seed(database.db, {
    superuserEmail: superUser.email,
    superuserPassword: superUser.password,
    demo: false,
    print: () => undefined,
  });
  await database.close();
  return {
    LOG_LEVEL: 'warn',
    LOGIN_RATE_LIMIT: '100000',
    SUPERUSER_EMAIL: superUser.email,
    SUPERUSER_PASSWORD: superUser.password,
  };
}

/** Company number `i` (plan 5, its admin signed in) with a simulator connection, made through `base`. */
export async function simulatorCompany(
  call: ReturnType<typeof jsonClient>['call'],
  base: string,
  superToken: string,
  i: number,
  domain: string,
) {
  const email = `admin${i}@${domain}`;
  const created = await call(base, 'POST', '/companies', superToken, {
    name: `Bench ${i}`,
    email,
    planId: 5,
    dueDate: '2099-01-01',
    adminName: `Admin ${i}`,
    adminPassword: 'Bench@12345',
  });
  if (created.status !== 201) throw new Error(`company: ${created.status} ${JSON.stringify(created.body)}`);
  const login = (await call(base, 'POST', '/auth/login', undefined, { email, password: 'Bench@12345' }))
    .body as { token: string; user: { companyId: number } };
  const w = await call(base, 'POST', '/whatsapp', login.token, { name: 'Sim', channel: 'simulator' });
  return { id: login.user.companyId, token: login.token, whatsappId: (w.body as { id: number }).id };
}

/**
 * A process's memory after a full garbage collection, read through its inspector (started with
 * `--inspect=127.0.0.1:<port>`): heap figures without the garbage of the moment, so a difference between two
 * readings is what stayed alive. The session is closed before answering.
 */
export async function memoryAfterGc(inspectPort: number): Promise<NodeJS.MemoryUsage> {
  const targets = (await (await fetch(`http://127.0.0.1:${inspectPort}/json/list`)).json()) as {
    webSocketDebuggerUrl: string;
  }[];
  const ws = new WebSocket(targets[0]!.webSocketDebuggerUrl);
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  let next = 0;
  type Answer = { id?: number; result?: { result?: { value?: string } } };
  const send = (method: string, params?: object) =>
    new Promise<Answer>((resolve) => {
      const id = ++next;
      const onMessage = (data: WebSocket.RawData) => {
        const answer = JSON.parse(data.toString()) as Answer;
        if (answer.id !== id) return;
        ws.off('message', onMessage);
        resolve(answer);
      };
      ws.on('message', onMessage);
      ws.send(JSON.stringify({ id, method, params }));
    });
  try {
    await send('HeapProfiler.collectGarbage');
    const read = await send('Runtime.evaluate', {
      expression: 'JSON.stringify(process.memoryUsage())',
      returnByValue: true,
    });
    return JSON.parse(read.result?.result?.value ?? '{}') as NodeJS.MemoryUsage;
  } finally {
    ws.close();
  }
}

/**
 * Statements sent to PostgreSQL by this process (server and bench), counted on every pg client once
 * `install()` ran: how many round trips an operation costs, which says more than timings on a shared machine.
 * BEGIN/COMMIT/ROLLBACK are also counted apart. BENCH_STATEMENTS=1 (and `listing()` true): `byText` keeps
 * each statement's first `keyLength` characters with its count.
 */
export function statementCounter(opts: { keyLength: number; listing?: () => boolean }) {
  const statements = { all: 0, txControl: 0 };
  const byText = new Map<string, number>();
  async function install() {
    const { default: pg } = await import('pg');
    const proto = pg.Client.prototype as unknown as { query: (...a: unknown[]) => unknown };
    const original = proto.query;
    proto.query = function (this: unknown, ...args: unknown[]) {
      const q = args[0];
      const text = typeof q === 'string' ? q : ((q as { text?: string })?.text ?? '');
      statements.all++;
      if (process.env.BENCH_STATEMENTS && (opts.listing?.() ?? true)) {
        const key = text.replace(/\s+/g, ' ').trim().slice(0, opts.keyLength);
        byText.set(key, (byText.get(key) ?? 0) + 1);
      }
      if (/^\s*(begin|commit|rollback)\b/i.test(text)) statements.txControl++;
      return original.apply(this, args);
    };
  }
  return { statements, byText, install };
}
