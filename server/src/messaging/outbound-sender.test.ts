import { testConfig } from '../../test/config.js';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { eq, inArray, sql } from 'drizzle-orm';
import pino from 'pino';
import { io as ioClient, type Socket } from 'socket.io-client';
import { openDatabase, type Database } from '../db/client.js';
import { seed } from '../db/seed.js';
import {
  companies,
  contacts,
  messages,
  outboundQueue,
  simulatorMessages,
  tickets,
  whatsapps,
  type OutboundJob,
} from '../db/schema/index.js';
import { buildApp, type App } from '../app.js';
import { freshDatabase, SUPER, waitFor } from '../../test/helpers.js';
import { mediaStore } from './media-store.js';
import type { Channel } from './channel.js';
import { outboundSender, outboxProviderId } from './outbound-sender.js';
import { SIMULATOR_INBOUND_CHANNEL, simulatorWakeUps } from './channels/simulator-channel.js';

/**
 * Two "processes" (two apps with their own session managers, and on PostgreSQL their own pools) on one
 * database: a reply stored by the process that does not run the connection is sent by the one that does.
 */

let database: Awaited<ReturnType<typeof freshDatabase>>;
let second: Database;
const pools: Database[] = [];
const apps: App[] = [];
const urls = new Map<App, string>();
const sockets: Socket[] = [];
const { dataDir, config } = testConfig({}, 'recado-outbound-');

async function instance(db: Database, processId: string) {
  const app = await buildApp({
    config,
    database: db,
    logger: false,
    loginLimit: 1000,
    // A poll far beyond the tests' waits: LISTEN/NOTIFY and the CONNECTED wake-up must do the work.
    sessions: { processId, leaseMs: 800, outboundPollMs: 600_000 },
  });
  await app.app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.app.server.address();
  urls.set(app, `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`);
  apps.push(app);
  return app;
}

const call = async (app: App, method: string, path: string, token?: string, body?: unknown) => {
  const res = await fetch(`${urls.get(app)}/api${path}`, {
    method,
    headers: {
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: await res.json().catch(() => null) };
};

async function socketOn(app: App, token: string) {
  const s = ioClient(urls.get(app)!, {
    path: '/socket.io',
    auth: { token },
    transports: ['websocket'],
    reconnection: false,
    forceNew: true,
  });
  sockets.push(s);
  await new Promise<void>((resolve, reject) => {
    s.once('connect', () => resolve());
    s.once('connect_error', reject);
  });
  return s;
}

let A: App;
let B: App;

beforeAll(async () => {
  database = await freshDatabase();
  await seed(database.db, {
    superuserEmail: SUPER.email,
    superuserPassword: SUPER.password,
    demo: false,
    print: () => undefined,
  });
  // On PostgreSQL the second process has a pool of its own (LISTEN/NOTIFY crosses real connections).
  second = database.url ? await openDatabase({ url: database.url, poolSize: 4 }) : database;
  A = await instance(database, 'proc-A');
  B = await instance(second, 'proc-B');
}, 240_000);

afterAll(async () => {
  for (const s of sockets) s.disconnect();
  for (const app of apps) await app.close().catch(() => undefined);
  if (second && second !== database) await second.close();
  for (const p of pools) await p.close();
  await database?.drop();
});

async function login(app: App, email: string, password: string) {
  const r = await call(app, 'POST', '/auth/login', undefined, { email, password });
  expect(r.status).toBe(200);
  return r.body as { token: string; user: { id: number; companyId: number } };
}

/** A company with a simulator connection, a customer's ticket accepted by the admin. */
async function scenario(name: string, number: string) {
  const sup = await login(A, SUPER.email, SUPER.password);
  const email = `admin-${name.toLowerCase()}-${Date.now()}@outbound.test`;
  const created = await call(A, 'POST', '/companies', sup.token, {
    name: `${name} ${Date.now()}`,
    email,
    planId: 5,
    dueDate: '2099-01-01',
    adminName: `${name} Admin`,
    adminPassword: 'Admin@123',
  });
  expect(created.status).toBe(201);
  const admin = await login(A, email, 'Admin@123');
  const w = await call(A, 'POST', '/whatsapp', admin.token, { name: 'Sim', channel: 'simulator' });
  const whatsappId = w.body.id as number;
  const owner = await waitFor(async () =>
    A.sessions.isRunningHere(whatsappId) ? A : B.sessions.isRunningHere(whatsappId) ? B : null,
  );
  const inbound = await call(owner, 'POST', `/simulator/${whatsappId}/inbound`, admin.token, {
    from: number,
    name: 'Cliente',
    body: 'Oi',
  });
  expect(inbound.status).toBe(202);
  const ticket = await waitFor(
    async () => (await database.db.select().from(tickets).where(eq(tickets.whatsappId, whatsappId)))[0],
  );
  expect((await call(A, 'PUT', `/tickets/${ticket.id}`, admin.token, { status: 'open' })).status).toBe(200);
  return { admin, whatsappId, ticketId: ticket.id, owner, other: owner === A ? B : A, number };
}

const phone = async (app: App, token: string, whatsappId: number, number: string) =>
  (await call(app, 'GET', `/simulator/${whatsappId}/conversations/${number}`, token)).body as {
    fromMe: boolean;
    body: string;
  }[];

describe('outbound messages across processes', () => {
  test('a reply stored by a process without the session is sent by the owner, and announced', async () => {
    const s = await scenario('Outbox', '5511966660001');
    const watcher = await socketOn(s.owner, s.admin.token);
    await new Promise<void>((resolve) => watcher.emit('joinChatBox', s.ticketId, () => resolve()));
    const updates: { message: { body: string; ack: number } }[] = [];
    watcher.on(`company-${s.admin.user.companyId}-appMessage`, (p) => {
      if (p.action === 'update') updates.push(p);
    });

    const res = await call(s.other, 'POST', `/messages/${s.ticketId}`, s.admin.token, {
      body: 'Via outro processo',
    });
    expect(res.status).toBe(200);
    // Accepted as stored, not yet sent: this process does not run the connection.
    expect(res.body).toMatchObject({ body: 'Via outro processo', fromMe: true, ack: 0 });

    const sent = await waitFor(async () => {
      const [m] = await database.db.select().from(messages).where(eq(messages.id, res.body.id));
      return m && m.ack >= 1 ? m : null;
    });
    expect(sent.providerId.startsWith('local-')).toBe(false);
    const conv = await phone(s.owner, s.admin.token, s.whatsappId, s.number);
    expect(conv.filter((m) => m.fromMe && m.body === 'Via outro processo')).toHaveLength(1);
    expect(await database.db.select().from(outboundQueue)).toHaveLength(0);
    // The browsers of the owner's process hear that it went out.
    await waitFor(async () =>
      updates.find((u) => u.message.body === 'Via outro processo' && u.message.ack >= 1),
    );

    // On the owner itself the answer is the sent message, as before.
    const direct = await call(s.owner, 'POST', `/messages/${s.ticketId}`, s.admin.token, { body: 'Direto' });
    expect(direct.status).toBe(200);
    expect(direct.body.ack).toBeGreaterThanOrEqual(1);
  });

  test('a customer message accepted by a process without the session wakes the owner through the database', async () => {
    const s = await scenario('Wake', '5511966660077');
    const heard: string[] = [];
    const stop = await (s.owner === A ? database : second).listen(SIMULATOR_INBOUND_CHANNEL, (p) =>
      heard.push(p),
    );
    try {
      const r = await call(s.other, 'POST', `/simulator/${s.whatsappId}/inbound`, s.admin.token, {
        from: s.number,
        body: 'Acordou?',
      });
      expect(r.status).toBe(202);
      // The insert itself tells the owner, with the stored row.
      await waitFor(
        async () =>
          heard
            .filter((p) => p.startsWith('{'))
            .map((p) => JSON.parse(p) as { whatsapp_id: number; body: string })
            .find((r) => r.whatsapp_id === s.whatsappId && r.body === 'Acordou?') ?? null,
      );
      await waitFor(async () => {
        const rows = await database.db.select().from(messages).where(eq(messages.ticketId, s.ticketId));
        return rows.find((m) => m.body === 'Acordou?') ?? null;
      });
      // A row too large for a notification: only the connection's id, and the owner reads its table.
      const long = `Longa ${'x'.repeat(9000)}`;
      const big = await call(s.other, 'POST', `/simulator/${s.whatsappId}/inbound`, s.admin.token, {
        from: s.number,
        body: long,
      });
      expect(big.status).toBe(202);
      await waitFor(async () => heard.includes(String(s.whatsappId)) || null);
      await waitFor(async () => {
        const rows = await database.db.select().from(messages).where(eq(messages.ticketId, s.ticketId));
        return rows.find((m) => m.body === long) ?? null;
      });
    } finally {
      await stop();
    }
    // The owner's side: a running connection is woken by its id (a row too large to be sent), and no longer
    // once it stopped here.
    const wakeUps = simulatorWakeUps(database.listen);
    const woken: number[] = [];
    await wakeUps.register(990001, () => woken.push(990001));
    await wakeUps.register(990002, () => woken.push(990002));
    await database.db.execute(sql`select pg_notify(${SIMULATOR_INBOUND_CHANNEL}, '990001')`);
    await waitFor(async () => woken.length === 1 || null);
    wakeUps.unregister(990001);
    await database.db.execute(sql`select pg_notify(${SIMULATOR_INBOUND_CHANNEL}, '990001')`);
    await database.db.execute(sql`select pg_notify(${SIMULATOR_INBOUND_CHANNEL}, '990002')`);
    await waitFor(async () => woken.length === 2 || null);
    expect(woken).toEqual([990001, 990002]);
    wakeUps.unregister(990002);
  });

  test('edits, deletes and read marks asked of a process without the session are done by the owner', async () => {
    const s = await scenario('Commands', '5511966660009');
    const sent = await call(s.owner, 'POST', `/messages/${s.ticketId}`, s.admin.token, { body: 'Original' });
    expect(sent.body.ack).toBeGreaterThanOrEqual(1);
    const conv = () =>
      phone(s.owner, s.admin.token, s.whatsappId, s.number) as Promise<
        { fromMe: boolean; body: string; ack: number }[]
      >;

    const edited = await call(s.other, 'PUT', `/messages/${sent.body.id}`, s.admin.token, {
      body: 'Editada',
    });
    expect(edited.status).toBe(200);
    expect(edited.body).toMatchObject({ body: 'Editada', isEdited: true });
    expect((await conv()).filter((m) => m.fromMe).map((m) => m.body)).toEqual(['Editada']);

    const read = await call(s.other, 'POST', `/messages/${s.ticketId}/read`, s.admin.token);
    expect(read.status).toBe(200);
    expect((await conv()).filter((m) => !m.fromMe).every((m) => m.ack === 3)).toBe(true);

    const deleted = await call(s.other, 'DELETE', `/messages/${sent.body.id}`, s.admin.token);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toMatchObject({ isDeleted: true });
    expect((await conv()).filter((m) => m.fromMe && m.body === 'Editada')).toHaveLength(0);
  });

  test('look-ups asked of a process without the session (the address book) are answered by the owner', async () => {
    const s = await scenario('Lookups', '5511966660010');
    const imported = await call(s.other, 'POST', '/contacts/import', s.admin.token);
    expect(imported.status, JSON.stringify(imported.body)).toBe(200);
    // The customer who wrote is in the simulated phone's address book, and already a contact.
    expect(imported.body).toMatchObject({ imported: 0, skipped: 1 });
    expect(imported.body.unsupported).toBeFalsy();
  });

  test('messages pending when the owner dies are sent once by the next owner', async () => {
    const s = await scenario('Takeover', '5511966660002');
    // The owner dies: its session stops and nobody renews its lease; its outbox worker is gone too.
    await s.owner.services.messages.outbound.stop();
    await s.owner.sessions.crash();
    const bodies = ['Primeira', 'Segunda', 'Terceira'];
    for (const body of bodies) {
      const r = await call(s.other, 'POST', `/messages/${s.ticketId}`, s.admin.token, { body });
      expect(r.status).toBe(200);
      expect(r.body.ack).toBe(0);
    }
    await waitFor(async () => s.other.sessions.isRunningHere(s.whatsappId));
    const conv = await waitFor(async () => {
      const c = await phone(s.other, s.admin.token, s.whatsappId, s.number);
      return bodies.every((b) => c.some((m) => m.fromMe && m.body === b)) ? c : null;
    });
    // Each once, in the order they were written.
    expect(conv.filter((m) => m.fromMe).map((m) => m.body)).toEqual(bodies);
    // The phone can show the last one before the sender's own commit clears its row: wait for the outbox to empty.
    await waitFor(async () => (await database.db.select().from(outboundQueue)).length === 0);
  });

  test('a logged-out connection refuses the reply instead of storing it forever', async () => {
    const s = await scenario('Off', '5511966660003');
    await database.db.update(whatsapps).set({ status: 'DISCONNECTED' }).where(eq(whatsapps.id, s.whatsappId));
    await s.owner.sessions.logout(s.whatsappId);
    const r = await call(s.other, 'POST', `/messages/${s.ticketId}`, s.admin.token, {
      body: 'Ninguém envia',
    });
    expect(r.status).toBe(400);
    expect(r.body.error).toBe('ERR_WAPP_NOT_INITIALIZED');
  });

  test('another company can neither send on the ticket nor hear about it', async () => {
    const s = await scenario('Owner', '5511966660004');
    const sup = await login(A, SUPER.email, SUPER.password);
    const email = `admin-intruder-${Date.now()}@outbound.test`;
    await call(A, 'POST', '/companies', sup.token, {
      name: `Intruder ${Date.now()}`,
      email,
      planId: 5,
      dueDate: '2099-01-01',
      adminName: 'Intruder',
      adminPassword: 'Admin@123',
    });
    const intruder = await login(s.other, email, 'Admin@123');
    const spy = await socketOn(s.owner, intruder.token);
    const heard: unknown[] = [];
    spy.onAny((event, payload) => heard.push({ event, payload }));
    const ok = await new Promise<{ ok: boolean }>((resolve) => spy.emit('joinChatBox', s.ticketId, resolve));
    expect(ok.ok).toBe(false);
    const r = await call(s.other, 'POST', `/messages/${s.ticketId}`, intruder.token, { body: 'intrusão' });
    expect(r.status).toBe(404);
    const sent = await call(s.other, 'POST', `/messages/${s.ticketId}`, s.admin.token, { body: 'Legítima' });
    expect(sent.status).toBe(200);
    await waitFor(async () => {
      const [m] = await database.db.select().from(messages).where(eq(messages.id, sent.body.id));
      return m && m.ack >= 1;
    });
    const all = await database.db.select().from(messages).where(eq(messages.ticketId, s.ticketId));
    expect(all.some((m) => m.body === 'intrusão')).toBe(false);
    expect(JSON.stringify(heard)).not.toContain('Legítima');
  });
});

describe('claiming during a lease takeover', () => {
  test('two processes that both still run the channel send each pending message once, from the lease owner', async () => {
    const db = database.db;
    const [c] = await db.insert(companies).values({ name: 'Claim Co', planId: 5 }).returning();
    const [w] = await db
      .insert(whatsapps)
      .values({ companyId: c!.id, name: 'claim', channel: 'simulator', status: 'DISCONNECTED' })
      .returning();
    const [contact] = await db
      .insert(contacts)
      .values({ companyId: c!.id, name: 'X', number: '5511955550000' })
      .returning();
    const [ticket] = await db
      .insert(tickets)
      .values({ companyId: c!.id, contactId: contact!.id, whatsappId: w!.id, status: 'open' })
      .returning();
    // The database names proc-new as the owner; proc-old has not noticed yet and still runs the channel.
    await db
      .update(whatsapps)
      .set({ status: 'CONNECTED', leaseOwner: 'proc-new', leaseExpiresAt: sql`now() + interval '1 minute'` })
      .where(eq(whatsapps.id, w!.id));
    const sentBy: string[] = [];
    const channel = (who: string): Channel => ({
      kind: 'simulator',
      start: async () => undefined,
      stop: async () => undefined,
      logout: async () => undefined,
      sendText: async (_to, body) => {
        sentBy.push(`${who}:${body}`);
        await new Promise((r) => setTimeout(r, 5));
        return { providerId: `${who}-${body}`, timestamp: new Date() };
      },
      sendMedia: async () => ({ providerId: 'm', timestamp: new Date() }),
      markRead: async () => undefined,
      deleteMessage: async () => undefined,
      checkNumber: async () => ({ exists: true }),
      profilePicture: async () => null,
    });
    const sender = (who: string, processId = who) =>
      outboundSender({
        db,
        media: mediaStore(dataDir),
        log: pino({ level: 'silent' }),
        sessions: () => ({ processId, runningIds: () => [w!.id], get: () => channel(who) }),
        onDone: async () => undefined,
      });
    const old = sender('proc-old');
    const now = sender('proc-new');
    // Two drains of the owner itself (say, a wake-up racing the poll in another worker) claim apart too.
    const twin = sender('proc-new-twin', 'proc-new');
    const jobs: OutboundJob[] = Array.from({ length: 20 }, (_, i) => ({
      to: '5511955550000',
      body: `m${i}`,
    }));
    for (const job of jobs) {
      await db.transaction(async (tx) => {
        const [m] = await tx
          .insert(messages)
          .values({
            companyId: c!.id,
            ticketId: ticket!.id,
            whatsappId: w!.id,
            providerId: `local-${job.body}`,
            body: job.body,
            fromMe: true,
          })
          .returning();
        await now.enqueue(tx, { messageId: m!.id, companyId: c!.id, whatsappId: w!.id, job }, false);
      });
    }
    await Promise.all([old.drain(), now.drain(), twin.drain()]);
    await Promise.all([old.drain(), now.drain(), twin.drain()]);
    expect(sentBy.filter((x) => x.startsWith('proc-old'))).toEqual([]);
    const bodies = sentBy.map((x) => x.split(':')[1]);
    expect(bodies.sort()).toEqual(jobs.map((j) => j.body).sort());
    const rows = await db.select().from(messages).where(eq(messages.ticketId, ticket!.id));
    expect(rows.every((m) => m.ack === 1 && m.providerId.startsWith('proc-new'))).toBe(true);
    expect(await db.select().from(outboundQueue).where(eq(outboundQueue.whatsappId, w!.id))).toHaveLength(0);

    // A message a dead owner was sending when it died: marked failed for everyone to see, never sent twice.
    const [m] = await db
      .insert(messages)
      .values({
        companyId: c!.id,
        ticketId: ticket!.id,
        whatsappId: w!.id,
        providerId: 'local-interrupted',
        body: 'interrompida',
        fromMe: true,
      })
      .returning();
    await db.insert(outboundQueue).values({
      messageId: m!.id,
      companyId: c!.id,
      whatsappId: w!.id,
      status: 'sending',
      claimedBy: 'proc-dead',
      claimedAt: new Date(Date.now() - 2 * 60_000),
      job: { to: '5511955550000', body: 'interrompida' },
    });
    const told: { id: number; ok: boolean }[] = [];
    const heir = outboundSender({
      db,
      media: mediaStore(dataDir),
      log: pino({ level: 'silent' }),
      sessions: () => ({ processId: 'proc-new', runningIds: () => [w!.id], get: () => channel('heir') }),
      onDone: async (id, outcome) => {
        told.push({ id, ok: outcome.ok });
      },
    });
    await heir.drain();
    expect(sentBy.some((x) => x.endsWith(':interrompida'))).toBe(false);
    expect(told).toEqual([{ id: m!.id, ok: false }]);
    const [after] = await db.select().from(messages).where(eq(messages.id, m!.id));
    expect(after!.ack).toBe(0);
    expect(String(after!.data?.error)).toMatch(/not sent again/);
    expect(await db.select().from(outboundQueue).where(eq(outboundQueue.messageId, m!.id))).toHaveLength(0);
  });
});

// Last in the file: it crashes the sessions of the process that runs the connection for good.
describe('a reply claimed by an owner killed mid-send', () => {
  test('replies the dying owner had claimed are sent again by the next owner, once each and in order', async () => {
    const s = await scenario('Midsend', '5511966660005');
    // The owner's outbox worker is stopped so that the rows can be put in the state a kill -9 leaves.
    await s.owner.services.messages.outbound.stop();
    const bodies = ['Um', 'Dois', 'Três'];
    const ids: number[] = [];
    for (const body of bodies) {
      const r = await call(s.other, 'POST', `/messages/${s.ticketId}`, s.admin.token, { body });
      expect(r.status).toBe(200);
      ids.push(r.body.id);
    }
    const [w] = await database.db.select().from(whatsapps).where(eq(whatsapps.id, s.whatsappId));
    // The owner had claimed the first two when it died; the first one had even reached the phone.
    await database.db
      .update(outboundQueue)
      .set({ status: 'sending', claimedBy: w!.leaseOwner, claimedAt: new Date() })
      .where(inArray(outboundQueue.messageId, ids.slice(0, 2)));
    await database.db.insert(simulatorMessages).values({
      whatsappId: s.whatsappId,
      number: s.number,
      providerId: outboxProviderId(s.whatsappId, ids[0]!),
      fromMe: true,
      body: 'Um',
      ack: 1,
      delivered: true,
    });
    // A process of its own takes over (earlier tests may have crashed the other one's sessions for good).
    const third = database.url ? await openDatabase({ url: database.url, poolSize: 4 }) : database;
    if (third !== database) pools.push(third);
    const C = await instance(third, 'proc-C');
    await s.owner.sessions.crash();
    await waitFor(async () => [s.other, C].some((app) => app.sessions.isRunningHere(s.whatsappId)));
    const conv = await waitFor(async () => {
      const c = await phone(C, s.admin.token, s.whatsappId, s.number);
      return bodies.every((b) => c.some((m) => m.fromMe && m.body === b)) ? c : null;
    });
    expect(conv.filter((m) => m.fromMe).map((m) => m.body)).toEqual(bodies);
    await waitFor(async () => (await database.db.select().from(outboundQueue)).length === 0);
    const sent = await database.db.select().from(messages).where(inArray(messages.id, ids));
    for (const m of sent) {
      expect(m.providerId).toBe(outboxProviderId(s.whatsappId, m.id));
      expect(m.data?.error).toBeUndefined();
    }
  });
});
