import { testConfig } from './config.js';
import { io as ioClient, type Socket } from 'socket.io-client';
import { afterAll, expect } from 'vitest';
import { type Config } from '../src/config.js';
import { openDatabase, type Database } from '../src/db/client.js';
import { scratchDatabase } from '../src/db/scratch.js';
import { seed } from '../src/db/seed.js';
import { buildApp, type App, type AppDeps } from '../src/app.js';
import { eq } from 'drizzle-orm';
import { tickets } from '../src/db/schema/index.js';

export const SUPER = { email: 'super@test.local', password: 'Super@12345' };

/** A fresh database for one test file (PGlite in memory, or its own database on DATABASE_URL's server). */
export const freshDatabase = () => scratchDatabase(process.env.DATABASE_URL);

/**
 * A PostgreSQL server for tests that need one (two pools on one database, LISTEN/NOTIFY): DATABASE_URL, or
 * the local one when it answers; undefined otherwise (those tests are skipped).
 */
export async function reachablePostgres(): Promise<string | undefined> {
  const url = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
  try {
    const { default: pg } = await import('pg');
    const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
    await c.connect();
    await c.end();
    return url;
  } catch {
    return undefined;
  }
}

/**
 * A second "process" on a test app's database: its own app (same configuration) on a real port; with
 * `ownPool` on PostgreSQL, its own pool too (LISTEN/NOTIFY across real connections). Close it before the
 * test app.
 */
export async function secondProcess(
  t: Pick<TestApp, 'config' | 'database'>,
  deps: Partial<Omit<AppDeps, 'config' | 'database'>> = {},
  opts: { ownPool?: boolean } = {},
) {
  const database =
    opts.ownPool && t.database.url ? await openDatabase({ url: t.database.url, poolSize: 4 }) : t.database;
  const app = await buildApp({ config: t.config, database, logger: false, ...deps });
  await app.app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.app.server.address();
  const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  return {
    app,
    url,
    async close() {
      await app.close();
      if (database !== t.database) await database.close();
    },
  };
}

export interface Session {
  token: string;
  cookie: string;
  user: { id: number; companyId: number; email: string; profile: string };
}

export interface TestApp {
  app: App;
  url: string;
  /** The configuration the app runs with (its JWT secret signs hand-made tokens in tests). */
  config: Config;
  /** `url`: on PostgreSQL, the database's own URL (a second "process" opens a pool of its own on it). */
  database: Database & { url?: string };
  dataDir: string;
  request(
    method: string,
    path: string,
    opts?: { token?: string; body?: unknown; cookie?: string; headers?: Record<string, string> },
  ): Promise<Response>;
  login(email: string, password: string): Promise<Session>;
  as(session: Session): {
    get(path: string): Promise<Response>;
    post(path: string, body?: unknown): Promise<Response>;
    put(path: string, body?: unknown): Promise<Response>;
    del(path: string): Promise<Response>;
  };
  superuser(): Promise<Session>;
  /** A new company with an admin (plan 5 by default), through the super user's API. */
  company(
    name: string,
    opts?: { planId?: number },
  ): Promise<{ id: number; admin: Session; adminEmail: string }>;
  /** A user in the company of `admin`, signed in. */
  user(admin: Session, profile?: 'admin' | 'user' | 'supervisor'): Promise<Session>;
  socket(token: string): Promise<Socket>;
  close(): Promise<void>;
}

let counter = 0;
export const unique = (prefix: string) => `${prefix}${Date.now().toString(36)}${(counter++).toString(36)}`;

/** A real server on a real port and a fresh database; closed after the file's tests. */
export async function testApp(
  opts: {
    loginLimit?: number;
    env?: Record<string, string>;
    /** Extra buildApp options (a manual clock, the job poller off, session leases, a log stream, a web folder). */
    deps?: Partial<Pick<AppDeps, 'clock' | 'jobs' | 'sessions' | 'logger' | 'webDist' | 'baileysSocket'>>;
    /** Another database than DATABASE_URL's: a PostgreSQL URL, or null for PGlite (two installs in one test). */
    databaseUrl?: string | null;
  } = {},
): Promise<TestApp> {
  const database =
    opts.databaseUrl !== undefined
      ? await scratchDatabase(opts.databaseUrl ?? undefined)
      : await freshDatabase();
  const { dataDir, config } = testConfig(opts.env);
  await seed(database.db, {
    superuserEmail: SUPER.email,
    superuserPassword: SUPER.password,
    demo: false,
    print: () => undefined,
  });
  const app = await buildApp({
    config,
    database,
    logger: false,
    loginLimit: opts.loginLimit ?? 1000,
    ...opts.deps,
  });
  await app.app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.app.server.address();
  const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  const sockets: Socket[] = [];

  const request: TestApp['request'] = (method, path, o = {}) =>
    fetch(`${url}/api${path}`, {
      method,
      headers: {
        ...(o.body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...(o.token ? { authorization: `Bearer ${o.token}` } : {}),
        ...(o.cookie ? { cookie: o.cookie } : {}),
        ...o.headers,
      },
      body: o.body === undefined ? undefined : typeof o.body === 'string' ? o.body : JSON.stringify(o.body),
    });

  const login = async (email: string, password: string): Promise<Session> => {
    const res = await request('POST', '/auth/login', { body: { email, password } });
    if (res.status !== 200) throw new Error(`login ${email} failed: ${res.status} ${await res.text()}`);
    const body = (await res.json()) as { token: string; user: Session['user'] };
    const cookie = (res.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    return { token: body.token, cookie, user: body.user };
  };
  const as = (s: Session) => ({
    get: (p: string) => request('GET', p, { token: s.token }),
    post: (p: string, body?: unknown) => request('POST', p, { token: s.token, body: body ?? {} }),
    put: (p: string, body?: unknown) => request('PUT', p, { token: s.token, body: body ?? {} }),
    del: (p: string) => request('DELETE', p, { token: s.token }),
  });
  let superSession: Session | undefined;
  const superuser = async () => (superSession ??= await login(SUPER.email, SUPER.password));

  const t: TestApp = {
    app,
    url,
    config,
    database,
    dataDir,
    request,
    login,
    as,
    superuser,
    async company(name, o = {}) {
      const s = await superuser();
      const adminEmail = `${unique('admin')}@${name.toLowerCase().replace(/\W/g, '')}.test`;
      const res = await as(s).post('/companies', {
        name: unique(name),
        email: adminEmail,
        planId: o.planId ?? 5,
        dueDate: '2099-01-01',
        adminName: `${name} Admin`,
        adminPassword: 'Admin@123',
      });
      if (res.status !== 201) throw new Error(`company ${name}: ${res.status} ${await res.text()}`);
      const company = (await res.json()) as { id: number };
      return { id: company.id, admin: await login(adminEmail, 'Admin@123'), adminEmail };
    },
    async user(admin, profile = 'user') {
      const email = `${unique(profile)}@users.test`;
      const res = await as(admin).post('/users', {
        name: `A ${profile}`,
        email,
        password: 'User@123',
        profile,
      });
      if (res.status !== 201) throw new Error(`user: ${res.status} ${await res.text()}`);
      return login(email, 'User@123');
    },
    async socket(token) {
      const s = ioClient(url, {
        path: '/socket.io',
        auth: { token },
        transports: ['websocket'],
        reconnection: false,
        forceNew: true,
      });
      sockets.push(s);
      await new Promise<void>((resolve, reject) => {
        s.once('connect', () => resolve());
        s.once('connect_error', (err) => reject(err));
      });
      return s;
    },
    async close() {
      for (const s of sockets) s.disconnect();
      await app.close();
      await database.drop();
    },
  };
  afterAll(() => t.close());
  return t;
}

/** Resolves with the first payload of `event`, or rejects after `ms`. */
export const nextEvent = <T = unknown>(socket: Socket, event: string, ms = 2000): Promise<T> =>
  new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ${event} within ${ms} ms`)), ms);
    socket.once(event, (payload: T) => {
      clearTimeout(timer);
      resolve(payload);
    });
  });

/** Collects every payload of `event` for `ms`, to prove that nothing arrived. */
export const collectEvents = async (socket: Socket, event: string, ms = 400): Promise<unknown[]> => {
  const seen: unknown[] = [];
  const handler = (p: unknown) => seen.push(p);
  socket.on(event, handler);
  await new Promise((r) => setTimeout(r, ms));
  socket.off(event, handler);
  return seen;
};

declare global {
  // Tests read JSON bodies loosely; the assertions check their shape.
  interface Body {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    json(): Promise<any>;
  }
  interface Response {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    json(): Promise<any>;
  }
}

/** Polls `fn` until it gives a truthy value (returned), or fails after `ms`. For waits, never for timings. */
export async function waitFor<T>(
  fn: () => Promise<T | undefined | null | false> | T | undefined | null | false,
  ms = 15_000,
): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`condition not met within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** The answer is this status with this ERR_* code (the body is shown when it is not); returns the body. */
export async function expectError(res: Response, status: number, code: string) {
  const body = await res.json();
  expect({ status: res.status, error: body.error }, JSON.stringify(body)).toEqual({ status, error: code });
  return body;
}

/**
 * A company (`name`) with a running simulator connection, and the ticket one customer message (from `from`)
 * opened on it, read from the database.
 */
export async function simulatorConversation(t: TestApp, name: string, from: string, customer = 'Ana') {
  const c = await t.company(name);
  const w = await (await t.as(c.admin).post('/whatsapp', { name: 'Sim', channel: 'simulator' })).json();
  await waitFor(async () => t.app.sessions.get(w.id));
  await t.as(c.admin).post(`/simulator/${w.id}/inbound`, { from, name: customer, body: 'oi' });
  const ticket = await waitFor(async () => {
    const [row] = await t.database.db.select().from(tickets).where(eq(tickets.companyId, c.id));
    return row;
  });
  return { c, w, ticket };
}
