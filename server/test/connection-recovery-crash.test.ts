import { expect, test } from 'vitest';
import { and, asc, eq, like } from 'drizzle-orm';
import { contacts, messages, tickets } from '../src/db/schema/index.js';
import { baileysInbox } from '../src/db/schema/connection-recovery.js';
import { waitFor } from './helpers.js';
import { call, login, restartHarness, SUPER } from './restart.js';

// #33.3 "Kill -9 during a recovery and restart: nothing lost or doubled." The real server (its start-up path,
// Baileys sockets scripted: baileys-recovery-child.ts) in child processes on one database. The connection is
// CONNECTED when its process dies (kill -9: the outage); the next process takes the connection over once the
// dead one's lease (20 s) runs out, reconnects, and WhatsApp delivers what arrived meanwhile — BURST offline
// messages, which Baileys has already acknowledged, so WhatsApp will never send them again. That process is
// killed in the middle of storing them; a third one takes over and stores the rest. Every message is stored
// once, each customer's in order, with its own time and its recovered mark; nothing is left in the inbox.
// PGlite stores more slowly than PostgreSQL: a smaller gap still leaves most of it for after the kill.
const BURST = process.env.DATABASE_URL ? 2000 : 600;
const CUSTOMERS = 25;
const BURST_TS = Math.floor(Date.now() / 1000) - 2 * 3600;

const { startServer, withDatabase } = await restartHarness('gap-crash', {
  entry: 'server/test/baileys-recovery-child.ts',
  env: { LOG_LEVEL: process.env.GAP_LOG ?? 'warn' },
});

test('kill -9 while storing what WhatsApp delivered on reconnect, then restart: every message once, in order, recovered', async () => {
  // 1. A company with a Baileys connection, CONNECTED; its process dies.
  const first = await startServer();
  const created = await call(first.base, 'POST', '/companies', await login(first.base, SUPER), {
    name: 'Gap Crash',
    email: 'admin@gap-crash.test',
    planId: 5,
    dueDate: '2099-01-01',
    adminName: 'Admin',
    adminPassword: 'Admin@123',
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const admin = { email: 'admin@gap-crash.test', password: 'Admin@123' };
  let token = await login(first.base, admin);
  const w = await call(first.base, 'POST', '/whatsapp', token, {
    name: 'WA',
    channel: 'baileys',
    greetingMessage: 'Olá! Bem-vindo.',
  });
  expect(w.status, JSON.stringify(w.body)).toBe(201);
  const whatsappId = w.body.id as number;
  await waitFor(
    async () => (await call(first.base, 'GET', `/whatsapp/${whatsappId}`, token)).body.status === 'CONNECTED',
  );
  first.kill();
  await first.exited;

  // 2. The next process takes the connection over and receives the gap; killed in the middle of it.
  const second = await startServer({
    BURST: String(BURST),
    BURST_CUSTOMERS: String(CUSTOMERS),
    BURST_TS: String(BURST_TS),
    BURST_DELAY_MS: '3000',
  });
  token = await login(second.base, admin);
  const recovered = async (base: string, server: { output(): string; alive(): boolean }) => {
    // A busy server may drop a kept-alive connection: asked again, unless it died.
    const r = await call(base, 'GET', `/whatsapp/${whatsappId}`, token).catch((err: unknown) => {
      if (!server.alive()) throw new Error(`${String(err)}\n${server.output().slice(-3000)}`);
      return null;
    });
    return (r?.body.recovery as { count: number } | null)?.count ?? 0;
  };
  // Killed once it has stored some of the gap (its own count, printed as it goes).
  const storedBy = (server: { output(): string }) =>
    Math.max(0, ...[...server.output().matchAll(/GAP-STORED (\d+)/g)].map((m) => Number(m[1])));
  const atKill = await waitFor(() => storedBy(second) >= 50 && storedBy(second), 90_000);
  second.kill();
  await second.exited;
  expect(atKill).toBeLessThan(BURST);

  // 3. A third process takes over: what the second left is stored first.
  const third = await startServer();
  token = await login(third.base, admin);
  const total = (server: { output(): string }) =>
    Math.max(0, ...[...server.output().matchAll(/GAP-TOTAL (\d+)/g)].map((m) => Number(m[1])));
  await waitFor(() => total(third) >= BURST, 120_000);
  // What the connections page shows: the gap split over the two outages (the reconnect, then the kill).
  expect(await recovered(third.base, third)).toBeGreaterThan(0);
  await third.stop();

  await withDatabase(async ({ db }) => {
    const rows = await db
      .select({ m: messages, number: contacts.number })
      .from(messages)
      .innerJoin(contacts, eq(contacts.id, messages.contactId))
      .where(and(eq(messages.whatsappId, whatsappId), like(messages.providerId, 'KILL-%')))
      .orderBy(asc(messages.id));
    // Once each.
    expect(rows).toHaveLength(BURST);
    expect(new Set(rows.map((r) => r.m.providerId)).size).toBe(BURST);
    // Each customer's in the order sent, with its own time and its mark, in one ticket.
    const byCustomer = new Map<string, typeof rows>();
    for (const r of rows) byCustomer.set(r.number, [...(byCustomer.get(r.number) ?? []), r]);
    expect(byCustomer.size).toBe(CUSTOMERS);
    for (const list of byCustomer.values()) {
      const ks = list.map((r) => Number(r.m.providerId.slice(5)));
      expect(ks).toEqual([...ks].sort((x, y) => x - y));
      expect(new Set(list.map((r) => r.m.ticketId)).size).toBe(1);
      for (const r of list) {
        expect(r.m.createdAt.getTime() / 1000).toBe(BURST_TS + Number(r.m.providerId.slice(5)));
        expect(r.m.data).toMatchObject({ recovered: true });
      }
    }
    // Nothing left behind, nothing said to anyone (no greeting on recovered conversations).
    expect(await db.select().from(baileysInbox)).toEqual([]);
    const said = await db
      .select()
      .from(messages)
      .where(and(eq(messages.whatsappId, whatsappId), eq(messages.fromMe, true)));
    expect(said).toEqual([]);
    const open = await db.select().from(tickets).where(eq(tickets.whatsappId, whatsappId));
    expect(open).toHaveLength(CUSTOMERS);
    for (const x of open) expect(x.status).toBe('pending');
  });
}, 400_000);
