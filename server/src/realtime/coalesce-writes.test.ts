import { createServer, connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { coalesceWrites, type EngineConn } from './coalesce-writes.js';

let server: ReturnType<typeof createServer>;
let client: Socket;
let received = '';

beforeAll(async () => {
  server = createServer((s) => s.on('data', (d) => (received += d)));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  client = connect(port, '127.0.0.1');
  await new Promise((r) => client.once('connect', r));
});
afterAll(async () => {
  client.destroy();
  await new Promise((r) => server.close(r));
});

describe('coalesceWrites', () => {
  test('flushes asked for in one turn run once, after it, with the WebSocket corked', async () => {
    const calls: { corked: number; at: string }[] = [];
    let phase = 'emitting';
    const conn: EngineConn = {
      flush() {
        calls.push({ corked: client.writableCorked, at: phase });
        client.write('a');
        client.write('b');
      },
      transport: { name: 'websocket', socket: { _socket: client } },
    };
    coalesceWrites(conn);
    conn.flush();
    conn.flush();
    conn.flush();
    expect(calls).toEqual([]);
    phase = 'after';
    await new Promise((r) => process.nextTick(r));
    expect(calls).toEqual([{ corked: 1, at: 'after' }]);
    expect(client.writableCorked).toBe(0);
    // The next turn flushes again, and the bytes arrive in order.
    conn.flush();
    await new Promise((r) => setImmediate(r));
    expect(calls).toHaveLength(2);
    await expect.poll(() => received).toBe('abab');
  });

  test('polling (no TCP socket of its own) flushes without corking', async () => {
    let flushed = 0;
    const conn: EngineConn = { flush: () => void flushed++, transport: { name: 'polling' } };
    coalesceWrites(conn);
    conn.flush();
    conn.flush();
    await new Promise((r) => process.nextTick(r));
    expect(flushed).toBe(1);
  });
});
