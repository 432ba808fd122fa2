import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { eq, sql } from 'drizzle-orm';
import pino from 'pino';
import { freshDatabase } from '../../test/helpers.js';
import { seed } from '../db/seed.js';
import { companies, whatsapps } from '../db/schema/index.js';
import type { Channel, ChannelSink, StateUpdate } from './channel.js';
import { sessionManager, withoutParams, type ConnectionRef } from './session-manager.js';

/** A scripted channel: records what happened to it, and can push states into its sink. */
function fakeChannel(ref: ConnectionRef, sink: ChannelSink, log: string[]): Channel {
  return {
    kind: 'simulator',
    async start() {
      log.push(`start:${ref.id}`);
      await sink.state({ status: 'CONNECTED' });
    },
    async stop() {
      log.push(`stop:${ref.id}`);
    },
    async logout() {
      log.push(`logout:${ref.id}`);
      await sink.state({ status: 'DISCONNECTED' });
    },
    sendText: async () => ({ providerId: 'x', timestamp: new Date() }),
    sendMedia: async () => ({ providerId: 'x', timestamp: new Date() }),
    markRead: async () => undefined,
    deleteMessage: async () => undefined,
    checkNumber: async () => ({ exists: true }),
    profilePicture: async () => null,
  };
}

let database: Awaited<ReturnType<typeof freshDatabase>>;
let companyId: number;
const log = pino({ level: 'silent' });

beforeAll(async () => {
  database = await freshDatabase();
  await seed(database.db, { demo: false, superuserPassword: 'x12345', print: () => undefined });
  const [c] = await database.db.insert(companies).values({ name: 'Lease Co', planId: 5 }).returning();
  companyId = c!.id;
});
afterAll(() => database.drop());

function manager(name: string, events: string[], leaseMs = 600) {
  const states: StateUpdate[] = [];
  const m = sessionManager({
    db: database.db,
    log,
    processId: name,
    leaseMs,
    tickMs: 100,
    inbound: { message: async () => undefined, ack: async () => undefined },
    onState: async (ref, s) => {
      states.push(s);
      await database.db.update(whatsapps).set({ status: s.status }).where(eq(whatsapps.id, ref.id));
    },
    createChannel: (_kind, ref, sink) => fakeChannel(ref, sink, events),
  });
  return { m, states };
}

const until = async (fn: () => Promise<boolean> | boolean, ms = 5000) => {
  const end = Date.now() + ms;
  while (!(await fn())) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 25));
  }
};

describe('session manager', () => {
  test('each connection runs in exactly one process; a dead owner is replaced after its lease expires', async () => {
    const [w] = await database.db
      .insert(whatsapps)
      .values({ companyId, name: 'lease-1', channel: 'simulator', status: 'OPENING' })
      .returning();
    const eventsA: string[] = [];
    const eventsB: string[] = [];
    const a = manager('proc-A', eventsA);
    await a.m.start();
    const b = manager('proc-B', eventsB);
    await b.m.start();
    await until(() => a.m.isRunningHere(w!.id));
    // B keeps ticking but must not start what A holds.
    await new Promise((r) => setTimeout(r, 400));
    expect(b.m.isRunningHere(w!.id)).toBe(false);
    expect(eventsB).not.toContain(`start:${w!.id}`);

    const killedAt = Date.now();
    await a.m.crash();
    await until(() => b.m.isRunningHere(w!.id));
    const tookOverAfter = Date.now() - killedAt;
    expect(tookOverAfter).toBeLessThan(3000);
    const [row] = await database.db.select().from(whatsapps).where(eq(whatsapps.id, w!.id));
    expect(row!.leaseOwner).toBe('proc-B');
    expect(row!.status).toBe('CONNECTED');
    await b.m.stop();
  });

  test('a clean stop hands the lease over at once; DISCONNECTED connections are not run', async () => {
    const [w] = await database.db
      .insert(whatsapps)
      .values({ companyId, name: 'lease-2', channel: 'simulator', status: 'OPENING' })
      .returning();
    const [off] = await database.db
      .insert(whatsapps)
      .values({ companyId, name: 'lease-off', channel: 'simulator', status: 'DISCONNECTED' })
      .returning();
    const ev: string[] = [];
    const a = manager('proc-C', ev, 60_000);
    await a.m.start();
    await until(() => a.m.isRunningHere(w!.id));
    expect(a.m.isRunningHere(off!.id)).toBe(false);
    await a.m.stop();
    const [row] = await database.db.select().from(whatsapps).where(eq(whatsapps.id, w!.id));
    expect(row!.leaseOwner).toBeNull();
    // With a long lease, a successor still starts at once because the lease was released.
    const b = manager('proc-D', [], 60_000);
    await b.m.start();
    await until(() => b.m.isRunningHere(w!.id), 1500);

    // Logout: DISCONNECTED, stopped, and not claimed again.
    await b.m.logout(w!.id);
    await b.m.tick();
    expect(b.m.isRunningHere(w!.id)).toBe(false);
    const [after] = await database.db.select().from(whatsapps).where(eq(whatsapps.id, w!.id));
    expect(after!.status).toBe('DISCONNECTED');
    // Starting again makes it run.
    await b.m.startSession(w!.id);
    await until(() => b.m.isRunningHere(w!.id));
    await b.m.stop();
  });
});

describe('withoutParams', () => {
  test("a failed query's log entry keeps the statement and the database's error code, never the customer's text", async () => {
    const database = await freshDatabase();
    const err = await database.db.execute(sql`select ${'segredo do cliente'}::int as n`).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(Error);
    expect(String((err as Error).message) + JSON.stringify((err as Error).cause ?? {})).toContain('segredo');
    const logged = JSON.stringify(withoutParams(err));
    expect(logged).not.toContain('segredo');
    expect(logged).toContain('select');
    expect(JSON.stringify(withoutParams('plain\nparams: segredo'))).not.toContain('segredo');
  });
});
