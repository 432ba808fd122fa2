/**
 * npm run test:scale — issue #16's takeover test on the real topology (scripts/lib/cluster.mjs): two compiled
 * app processes on one PostgreSQL database behind Debian's nginx with deploy/nginx.conf.
 *
 * Agents' sockets are spread over both processes (nginx is sticky by client address, so each client binds a
 * different 127.0.0.x address), customers post to the simulator's entry through both, an agent on the
 * process that does not run the connection replies, then the owner is killed with SIGKILL in the middle of
 * the burst. Checked: every accepted inbound message stored once, every reply sent once and in order, the
 * connection CONNECTED on the survivor within 30 s, every agent socket reconnected and receiving events.
 * Runs without Redis (PostgreSQL adapter) and with REDIS_URL (default redis://127.0.0.1:6379, skipped when it
 * does not answer). Skips (exit 0) without nginx or PostgreSQL. Last line: JSON with the figures.
 *   SCALE_DATABASE_URL (postgres://postgres@127.0.0.1:5432/postgres: a scratch database per run is made there
 *   and dropped), SCALE_PORT (18190), SCALE_MESSAGES (300), SCALE_REPLIES (30), SCALE_RATE (60/s)
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { io as ioClient, type Socket } from 'socket.io-client';
import { eq } from 'drizzle-orm';
import { openDatabase } from '../server/src/db/client.js';
import { seed } from '../server/src/db/seed.js';
import { users } from '../server/src/db/schema/index.js';
import { hashPassword } from '../server/src/lib/passwords.js';
import { alive, dropDatabase, ensureDatabase, mainJs, nginxBin, startCluster } from './lib/cluster.mjs';
import { httpJson } from './lib/http-json.mjs';

const BASE_DB = process.env.SCALE_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const PORT = Number(process.env.SCALE_PORT ?? 18190);
const MESSAGES = Number(process.env.SCALE_MESSAGES ?? 300);
const REPLIES = Number(process.env.SCALE_REPLIES ?? 30);
const RATE = Number(process.env.SCALE_RATE ?? 60);
const CUSTOMERS = 20;
const AGENTS_PER_PROCESS = 4;
const TAKEOVER_LIMIT_MS = 30_000;
const PASSWORD = `Scale-${process.pid}-Test!`;

const log = (...a: unknown[]) => console.log('[scale]', ...a);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Polls `check` every `every` ms until it returns a truthy value or `ms` pass (then throws `what`). */
async function until<T>(
  what: string,
  ms: number,
  check: () => Promise<T> | T,
  every = 100,
): Promise<NonNullable<T>> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await check();
    if (v) return v as NonNullable<T>;
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms: ${what}`);
    await sleep(every);
  }
}

const answers = (host: string, port: number) =>
  new Promise<boolean>((resolve) => {
    const s = net.connect({ host, port });
    s.setTimeout(2000);
    s.once('connect', () => (s.destroy(), resolve(true)));
    s.once('error', () => resolve(false));
    s.once('timeout', () => (s.destroy(), resolve(false)));
  });

/** The processes' METRICS_TOKEN: /metrics and the details of /api/ready (pid, sessions) want it. */
const METRICS_TOKEN = `scale-${randomBytes(12).toString('hex')}`;
const readyAuth = { authorization: `Bearer ${METRICS_TOKEN}` };

/** One HTTP request from a given local address (nginx hashes the client address to pick the process). */
const request = (
  url: string,
  opts: { method?: string; localAddress: string; headers?: Record<string, string>; body?: unknown },
) => httpJson(url, { ...opts, timeoutMs: 15_000 });

type Agent = {
  name: string;
  address: string;
  pid: number;
  socket: Socket;
  seen: Set<string>;
  connects: number;
};

async function run(label: string, redisUrl: string | undefined, index: number) {
  const dbUrl = (() => {
    const u = new URL(BASE_DB);
    u.pathname = `/recado_scale_${process.pid}_${index}`;
    return u.toString();
  })();
  const dir = mkdtempSync(join(tmpdir(), 'recado-scale-'));
  const port = PORT + index * 10;
  const url = `http://127.0.0.1:${port}`;
  const checks: Record<string, boolean> = {};
  const agents: Agent[] = [];
  let cluster: Awaited<ReturnType<typeof startCluster>> | undefined;
  const client = new pg.Client({ connectionString: dbUrl });
  try {
    // A migrated database with the demo company, its admin's password replaced (production refuses the
    // published one), before the compiled processes start on it.
    await dropDatabase(dbUrl);
    await ensureDatabase(dbUrl);
    const database = await openDatabase({ url: dbUrl, poolSize: 2 });
    await database.migrate();
    await seed(database.db, { superuserPassword: PASSWORD, demo: true, print: () => undefined });
    await database.db
      .update(users)
      .set({ passwordHash: await hashPassword(PASSWORD) })
      .where(eq(users.email, 'admin@demo.local'));
    await database.close();
    await client.connect();

    const t0 = Date.now();
    cluster = await startCluster({
      dir,
      port,
      dbUrl,
      // /api/ready names its process and sessions only to a METRICS_TOKEN holder once nginx is in between.
      env: { REDIS_URL: redisUrl, LOG_LEVEL: 'warn', METRICS_TOKEN },
    });
    const startMs = Date.now() - t0;
    const apps = cluster.apps;
    log(`${label}: two processes (${apps.map((a) => a.pid).join(', ')}) behind nginx in ${startMs} ms`);

    const {
      rows: [conn],
    } = await client.query<{ id: number; company_id: number }>(
      `select id, company_id from whatsapps where channel = 'simulator' order by id limit 1`,
    );
    if (!conn) throw new Error('no simulator connection seeded');
    const sessionsOf = async (port: number) => {
      const r = await fetch(`http://127.0.0.1:${port}/api/ready`, { headers: readyAuth }).catch(() => null);
      if (!r?.ok) return [] as number[];
      const j = (await r.json()) as { process: { role: { sessions: number[] } } };
      return j.process.role.sessions;
    };
    const owner = await until('a process runs the connection', 60_000, async () => {
      for (const a of apps) if ((await sessionsOf(a.port)).includes(conn.id)) return a;
      return undefined;
    });
    const survivor = apps.find((a) => a !== owner)!;
    log(`connection ${conn.id} runs on pid ${owner.pid}; the other is ${survivor.pid}`);

    // Which local addresses nginx sends to which process.
    const byPid = new Map<number, string[]>();
    for (let i = 2; i < 60 && [...byPid.values()].filter((v) => v.length >= 6).length < 2; i++) {
      const address = `127.0.0.${i}`;
      const r = await request(`${url}/api/ready`, { localAddress: address, headers: readyAuth });
      const pid = (r.json as { process?: { pid?: number } }).process?.pid;
      if (pid) byPid.set(pid, [...(byPid.get(pid) ?? []), address]);
    }
    const ownerAddrs = byPid.get(owner.pid) ?? [];
    const survivorAddrs = byPid.get(survivor.pid) ?? [];
    if (ownerAddrs.length < 2 || survivorAddrs.length < 2)
      throw new Error(`nginx did not spread client addresses: ${JSON.stringify([...byPid])}`);

    const login = await request(`${url}/api/auth/login`, {
      method: 'POST',
      localAddress: survivorAddrs[0]!,
      body: { email: 'admin@demo.local', password: PASSWORD },
    });
    const token = (login.json as { token?: string }).token;
    if (!token) throw new Error(`login failed: ${login.status} ${JSON.stringify(login.json)}`);
    const auth = { authorization: `Bearer ${token}` };
    const event = `company-${conn.company_id}-appMessage`;

    // Agents: half their sockets on each process, each joins its notification room at every (re)connect.
    for (const [pid, addrs] of [
      [owner.pid, ownerAddrs],
      [survivor.pid, survivorAddrs],
    ] as const)
      for (let i = 0; i < AGENTS_PER_PROCESS; i++) {
        const address = addrs[i % addrs.length]!;
        const socket = ioClient(url, {
          auth: { token },
          transports: ['websocket'],
          localAddress: address,
          reconnectionDelay: 200,
          reconnectionDelayMax: 1000,
        } as Parameters<typeof ioClient>[1]);
        const agent: Agent = {
          name: `agent-${pid}-${i}`,
          address,
          pid,
          socket,
          seen: new Set(),
          connects: 0,
        };
        socket.on('connect', () => {
          agent.connects++;
          socket.emit('joinNotification', () => undefined);
        });
        socket.on(event, (p: { action: string; message: { body: string } }) => {
          if (p.action === 'create') agent.seen.add(p.message.body);
        });
        agents.push(agent);
      }
    await until('every agent socket connected', 30_000, () => agents.every((a) => a.socket.connected));
    const socketsOn = async (port: number) => {
      const r = await fetch(`http://127.0.0.1:${port}/metrics`, { headers: readyAuth }).catch(() => null);
      const m = r?.ok ? /^recado_sockets_connected\{[^}]*\} (\d+)/m.exec(await r.text()) : null;
      return m ? Number(m[1]) : -1;
    };
    const spread = {
      [owner.pid]: await socketsOn(owner.port),
      [survivor.pid]: await socketsOn(survivor.port),
    };
    checks.socketsSpread = Object.values(spread).every((n) => n >= AGENTS_PER_PROCESS);
    log(`agent sockets per process: ${JSON.stringify(spread)}`);

    // Customers post through both processes; a failed or refused post is retried with the same id.
    const accepted = new Set<string>();
    const numberOf = (c: number) => `55119${String(70000000 + c)}`;
    const post = async (id: string, c: number, body: string, address: string) => {
      for (let attempt = 0; attempt < 40; attempt++) {
        const r = await request(`${url}/api/simulator/${conn.id}/inbound`, {
          method: 'POST',
          localAddress: address,
          headers: auth,
          body: { id, from: numberOf(c), name: `Cliente ${c}`, body },
        }).catch(() => ({ status: 0, json: null }));
        if (r.status === 202) {
          accepted.add(id);
          return true;
        }
        await sleep(250);
      }
      return false;
    };
    const customerAddr = (c: number) =>
      (c % 2 ? ownerAddrs : survivorAddrs)[c % 2 ? c % ownerAddrs.length : c % survivorAddrs.length]!;

    // Before the burst: a conversation whose ticket an agent on the other process answers.
    const first = `first ${label}`;
    await post(`first-${index}`, 0, first, ownerAddrs[0]!);
    const ticketId = await until('the first message made a ticket', 30_000, async () => {
      const { rows } = await client.query<{ ticket_id: number }>(
        `select ticket_id from messages where provider_id = $1`,
        [`first-${index}`],
      );
      return rows[0]?.ticket_id;
    });
    await until('every agent (both processes) saw the first message', 30_000, () =>
      agents.every((a) => a.seen.has(first)),
    );
    const replyAgent = agents.find((a) => a.pid === survivor.pid)!;
    const reply = (body: string) =>
      request(`${url}/api/messages/${ticketId}`, {
        method: 'POST',
        localAddress: replyAgent.address,
        headers: auth,
        body: { body },
      });
    const userId = (login.json as { user: { id: number } }).user.id;
    const accept = await request(`${url}/api/tickets/${ticketId}`, {
      method: 'PUT',
      localAddress: replyAgent.address,
      headers: auth,
      body: { status: 'open', userId },
    });
    if (accept.status !== 200)
      throw new Error(`accept answered ${accept.status}: ${JSON.stringify(accept.json)}`);
    const warm = await reply(`warm-up ${label}`);
    if (warm.status !== 200) throw new Error(`reply answered ${warm.status}: ${JSON.stringify(warm.json)}`);
    const customerRows = async (prefix: string) =>
      (
        await client.query<{ body: string }>(
          `select body from simulator_messages where whatsapp_id = $1 and number = $2 and from_me and body like $3 order by id`,
          [conn.id, numberOf(0), `${prefix}%`],
        )
      ).rows.map((r) => r.body);
    await until(
      'the reply from the other process reached the customer',
      30_000,
      async () => (await customerRows('warm-up')).length === 1,
    );
    checks.crossProcessReply = true;

    // The burst: customers on both processes, replies from the survivor's agent; SIGKILL of the owner midway.
    const sentReplies: string[] = [];
    let killedAt = 0;
    const burst = (async () => {
      const started = Date.now();
      const posts: Promise<boolean>[] = [];
      for (let i = 0; i < MESSAGES; i++) {
        const wait = started + (i * 1000) / RATE - Date.now();
        if (wait > 0) await sleep(wait);
        if (i === Math.floor(MESSAGES / 3)) {
          process.kill(owner.pid, 'SIGKILL');
          killedAt = Date.now();
          log(`killed the owner (pid ${owner.pid}) after ${i} messages`);
        }
        const c = 1 + (i % CUSTOMERS);
        posts.push(post(`burst-${index}-${i}`, c, `burst ${label} ${i}`, customerAddr(c)));
      }
      return Promise.all(posts);
    })();
    const replies = (async () => {
      for (let i = 0; i < REPLIES; i++) {
        const body = `reply ${label} ${String(i).padStart(3, '0')}`;
        for (let attempt = 0; attempt < 20; attempt++) {
          const r = await reply(body).catch(() => ({ status: 0, json: null }));
          if (r.status === 200) {
            sentReplies.push(body);
            break;
          }
          await sleep(250);
        }
        await sleep(1000 / 8);
      }
    })();
    const [posted] = await Promise.all([burst, replies]);
    const refused = posted.filter((ok) => !ok).length;
    log(
      `burst done: ${accepted.size} inbound accepted (${refused} given up), ${sentReplies.length} replies accepted`,
    );

    // Takeover: the survivor runs the connection and it is CONNECTED, within 30 s of the kill.
    await until('the survivor took the connection', 45_000, async () => {
      if (!(await sessionsOf(survivor.port)).includes(conn.id)) return false;
      const { rows } = await client.query(`select status from whatsapps where id = $1`, [conn.id]);
      return rows[0]?.status === 'CONNECTED';
    });
    const takeoverMs = Date.now() - killedAt;
    checks.takeoverWithin30s = takeoverMs <= TAKEOVER_LIMIT_MS && !alive(owner.pid);
    log(`connection CONNECTED on the survivor ${takeoverMs} ms after the kill`);

    // Every accepted inbound message stored exactly once.
    const ids = [...accepted].filter((id) => id.startsWith(`burst-${index}-`));
    const storedOnce = await until(
      'every accepted inbound message stored',
      60_000,
      async () => {
        const { rows } = await client.query<{ provider_id: string; n: number }>(
          `select provider_id, count(*)::int as n from messages where whatsapp_id = $1 and provider_id = any($2) and not from_me group by provider_id`,
          [conn.id, ids],
        );
        return rows.length === ids.length ? rows : undefined;
      },
      250,
    ).catch(() => undefined);
    checks.inboundStoredOnce = Boolean(storedOnce && storedOnce.every((r) => r.n === 1));
    checks.inboundAllAccepted = refused === 0 && ids.length === MESSAGES;

    // Every accepted reply reached the customer once, in the order it was sent.
    const delivered = await until(
      'every reply reached the customer',
      60_000,
      async () => {
        const rows = await customerRows(`reply ${label}`);
        return sentReplies.every((b) => rows.includes(b)) ? rows : undefined;
      },
      250,
    ).catch(() => customerRows(`reply ${label}`));
    checks.repliesOnceInOrder =
      sentReplies.length === REPLIES && JSON.stringify(delivered) === JSON.stringify(sentReplies);

    // Agents: every socket connected again (those on the dead process through nginx to the survivor) and
    // receiving events of messages posted after the takeover.
    const reconnectStart = Date.now();
    await until('every agent socket reconnected', 30_000, () =>
      agents.every((a) => a.socket.connected),
    ).catch(() => undefined);
    const probe = `after takeover ${label}`;
    await post(`probe-${index}`, 0, probe, ownerAddrs[0]!);
    const allSaw = await until('every agent saw the message after the takeover', 30_000, () =>
      agents.every((a) => a.seen.has(probe)),
    ).catch(() => false);
    const reconnectMs = Date.now() - reconnectStart;
    checks.socketsReconnectedAndReceiving = Boolean(allSaw);
    checks.movedSocketsReconnected = agents.filter((a) => a.pid === owner.pid).every((a) => a.connects >= 2);

    const missedBurst = agents.map(
      (a) => ids.filter((id) => !a.seen.has(`burst ${label} ${id.split('-')[2]}`)).length,
    );
    const result = {
      run: label,
      redis: Boolean(redisUrl),
      ok: Object.values(checks).every(Boolean),
      checks,
      startMs,
      inboundAccepted: ids.length,
      inboundStored: storedOnce?.length ?? 0,
      repliesAccepted: sentReplies.length,
      repliesDelivered: delivered.length,
      takeoverMs,
      reconnectAndEventMs: reconnectMs,
      agents: agents.length,
      burstEventsMissedByAgentMax: Math.max(...missedBurst),
    };
    log(JSON.stringify(result));
    return result;
  } finally {
    for (const a of agents) a.socket.close();
    await client.end().catch(() => undefined);
    await cluster?.stop();
    await dropDatabase(dbUrl).catch((err) => log(`could not drop ${dbUrl}: ${err}`));
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main() {
  if (!existsSync(nginxBin)) {
    console.log(`[scale] skipped: no nginx at ${nginxBin} (apt-get install -y nginx)`);
    return;
  }
  const pgUrl = new URL(BASE_DB);
  if (!(await answers(pgUrl.hostname, Number(pgUrl.port || 5432)))) {
    console.log(`[scale] skipped: PostgreSQL does not answer on ${pgUrl.host}`);
    return;
  }
  if (!existsSync(mainJs)) throw new Error('server/dist/main.js is missing: run `npm run build -w server`');
  const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  const r = new URL(redisUrl);
  const withRedis = await answers(r.hostname, Number(r.port || 6379));
  const t0 = Date.now();
  const runs = [await run('no-redis', undefined, 0)];
  if (withRedis) runs.push(await run('redis', redisUrl, 1));
  else log(`the Redis run is skipped: nothing answers on ${r.host}`);
  const ok = runs.every((x) => x.ok);
  console.log(
    JSON.stringify({
      test: 'scale',
      ok,
      seconds: Math.round((Date.now() - t0) / 100) / 10,
      redisRun: withRedis,
      runs,
    }),
  );
  process.exit(ok ? 0 : 1);
}

main().catch((err) => {
  console.error('[scale] failed:', err);
  process.exit(1);
});
