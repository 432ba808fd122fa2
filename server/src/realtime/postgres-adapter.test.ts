import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import pg from 'pg';
import { Server } from 'socket.io';
import { io as connect, type Socket as ClientSocket } from 'socket.io-client';
import { scratchDatabase } from '../db/scratch.js';
import { reachablePostgres } from '../../test/helpers.js';
import { createPostgresAdapter } from './postgres-adapter.js';

const pgUrl = await reachablePostgres();

const until = async (fn: () => boolean, ms = 10_000) => {
  const end = Date.now() + ms;
  while (!fn()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 10));
  }
};

/** Two "processes": a Socket.IO server each, with its own pool on one database, and a client on each. */
describe.skipIf(!pgUrl)('PostgreSQL socket adapter (two servers on one database)', () => {
  let database: Awaited<ReturnType<typeof scratchDatabase>>;
  const nodes: { io: Server; http: HttpServer; pool: pg.Pool; statements: string[]; client: ClientSocket }[] =
    [];

  beforeAll(async () => {
    database = await scratchDatabase(pgUrl);
    for (let i = 0; i < 2; i++) {
      const pool = new pg.Pool({ connectionString: database.url!, max: 3 });
      const statements: string[] = [];
      const query = pool.query.bind(pool) as (...a: unknown[]) => unknown;
      // Counts what the adapter sends (the LISTEN connection is taken with connect(), not here).
      (pool as unknown as { query: unknown }).query = (...a: unknown[]) => {
        if (typeof a[0] === 'string') statements.push(a[0]);
        return query(...a);
      };
      const http = createServer();
      const io = new Server(http);
      io.adapter(createPostgresAdapter(pool, { heartbeatInterval: 1000, heartbeatTimeout: 5000 }));
      io.on('connection', (s) => void s.join('room'));
      await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
      const client = connect(`http://127.0.0.1:${(http.address() as AddressInfo).port}`, {
        transports: ['websocket'],
      });
      await new Promise<void>((r) => client.once('connect', () => r()));
      nodes.push({ io, http, pool, statements, client });
    }
    // Each server has heard the other's heartbeat.
    for (const n of nodes) {
      const adapter = n.io.of('/').adapter as unknown as { serverCount(): Promise<number> };
      const end = Date.now() + 10_000;
      while ((await adapter.serverCount()) < 2) {
        if (Date.now() > end) throw new Error('the servers never heard each other');
        await new Promise((r) => setTimeout(r, 50));
      }
    }
  });
  afterAll(async () => {
    for (const n of nodes) {
      n.client.close();
      await new Promise<void>((r) => n.io.close(() => r()));
      await n.pool.end();
    }
    await database?.drop();
  });
  const statements = (n: (typeof nodes)[number]) => n.statements.filter((s) => s.includes('pg_notify'));

  test('a burst reaches the other server in order, in a few statements; repeats and large events are kept', async () => {
    const [a, b] = nodes as [(typeof nodes)[0], (typeof nodes)[0]];
    const heardB: unknown[] = [];
    const heardA: unknown[] = [];
    b.client.on('e', (x: unknown) => heardB.push(x));
    a.client.on('e', (x: unknown) => heardA.push(x));
    const before = statements(a).length;
    const big = 'x'.repeat(9000); // over NOTIFY's 8,000 bytes: through the attachment table
    const sent: unknown[] = [];
    for (let i = 0; i < 200; i++) sent.push(i === 100 ? { i, big } : { i });
    sent.push({ i: 'same' }, { i: 'same' }); // identical payloads: NOTIFY would fold them in one transaction
    for (const x of sent) a.io.to('room').emit('e', x);
    // The local client is served without waiting for the database.
    await until(() => heardA.length === sent.length);
    await until(() => heardB.length === sent.length);
    expect(heardB).toEqual(sent);
    expect(heardA).toEqual(sent);
    // 200 events: one statement before the large one, one after, and the repeat in a statement of its own.
    const used = statements(a).length - before;
    expect(used).toBeGreaterThanOrEqual(3);
    expect(used).toBeLessThanOrEqual(5);
  });

  test('events for rooms with no socket on the other server reach nobody there', async () => {
    const [a, b] = nodes as [(typeof nodes)[0], (typeof nodes)[0]];
    const heard: unknown[] = [];
    b.client.on('other', (x: unknown) => heard.push(x));
    a.io.to('elsewhere').emit('other', 1);
    a.io.to('room').emit('other', 2);
    await until(() => heard.length === 1);
    await new Promise((r) => setTimeout(r, 300));
    expect(heard).toEqual([2]);
  });
});
