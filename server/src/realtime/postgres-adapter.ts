import type { Pool, PoolClient } from 'pg';
import { encode, decode } from '@msgpack/msgpack';
import { PostgresAdapter } from '@socket.io/postgres-adapter';
import {
  MessageType,
  type BroadcastOptions,
  type ClusterAdapterOptions,
  type ClusterMessage,
  type ClusterResponse,
} from 'socket.io-adapter';

interface Options {
  /** NOTIFY channel prefix (`{prefix}#{namespace}`). */
  channelPrefix: string;
  /** Where a message over `payloadThreshold` bytes (or with binary data) is kept for the others to read. */
  tableName: string;
  payloadThreshold: number;
  /** How long such a message is kept (ms). */
  cleanupInterval: number;
  errorHandler(err: unknown): void;
}

/**
 * Socket.IO's PostgreSQL adapter: `@socket.io/postgres-adapter`'s cluster protocol and wire format (a JSON
 * message per NOTIFY on `socket.io#/`, larger ones msgpack-encoded in `socket_io_attachments`), with three
 * changes that matter under load and for order (docs/benchmarks.md, bench:sockets):
 * - a broadcast reaches this process's own sockets at once; the stock adapter first waits for its NOTIFY
 *   statement, so every event queued behind the adapter's small pool;
 * - the NOTIFYs of one turn of the loop leave in one statement (`pg_notify` over an array), in order, one
 *   statement at a time, instead of one statement an event;
 * - notifications are handled one after another, so one read from the attachment table never lets a later
 *   small event overtake it.
 */
export function createPostgresAdapter(
  pool: Pool,
  opts: Partial<Omit<Options, 'errorHandler'>> &
    ClusterAdapterOptions & { onError?(err: unknown): void } = {},
) {
  const options: Options = {
    channelPrefix: opts.channelPrefix ?? 'socket.io',
    tableName: opts.tableName ?? 'socket_io_attachments',
    payloadThreshold: opts.payloadThreshold ?? 8000,
    cleanupInterval: opts.cleanupInterval ?? 30000,
    errorHandler: (err) => opts.onError?.(err),
  };
  const namespaces = new Map<string, BatchedPostgresAdapter>();
  const bus = pgBus(pool, options, (message) => {
    const adapter = namespaces.get(message.nsp);
    // Our own notifications come back too.
    if (adapter && adapter.id !== message.uid) adapter.receive(message);
  });
  return function (nsp: { name: string }) {
    const adapter = new BatchedPostgresAdapter(nsp, opts, bus);
    namespaces.set(nsp.name, adapter);
    bus.listen(nsp.name);
    const close = adapter.close.bind(adapter);
    adapter.close = () => {
      namespaces.delete(nsp.name);
      // The stock close says goodbye to the other processes (queued on the bus, which still sends it).
      close();
      if (namespaces.size === 0) bus.close();
    };
    return adapter;
  };
}

type Bus = ReturnType<typeof pgBus>;

class BatchedPostgresAdapter extends PostgresAdapter {
  constructor(
    nsp: unknown,
    opts: ClusterAdapterOptions,
    private readonly bus: Bus,
  ) {
    // The stock class's own client is never used: publishing goes through `bus` (doPublish below).
    super(nsp, opts, undefined as never);
  }

  get id(): string {
    return this.uid;
  }

  receive(message: ClusterMessage) {
    this.onMessage(message);
  }

  override async broadcast(packet: unknown, opts: BroadcastOptions): Promise<void> {
    if (opts.flags?.local) return super.broadcast(packet, opts);
    // The other processes hear it through the database (queued, in order); ours now.
    this.publish({
      type: MessageType.BROADCAST,
      data: {
        packet,
        opts: { rooms: [...opts.rooms], except: [...(opts.except ?? [])], flags: opts.flags ?? {} },
      },
    });
    return super.broadcast(packet, { ...opts, flags: { ...opts.flags, local: true } });
  }

  protected override doPublish(message: ClusterMessage): Promise<string> {
    return this.bus.publish(message).then(() => '');
  }

  protected override doPublishResponse(_requester: string, response: ClusterResponse): Promise<void> {
    return this.bus.publish(response);
  }
}

/** Whether a value holds binary data (sent through the attachment table, as msgpack keeps it). */
function hasBinary(value: unknown, depth = 0): boolean {
  if (!value || typeof value !== 'object' || depth > 32) return false;
  if (value instanceof ArrayBuffer || ArrayBuffer.isView(value)) return true;
  if (Array.isArray(value)) return value.some((v) => hasBinary(v, depth + 1));
  return Object.values(value).some((v) => hasBinary(v, depth + 1));
}

/**
 * LISTEN/NOTIFY for the cluster messages: one pooled connection listens (taken again after a loss), what it
 * hears is handled in order; what is published is queued and sent in order, runs of plain messages in one
 * `pg_notify` statement, a binary or oversized one through the attachment table. NOTIFY drops a
 * notification identical to an earlier one of the same transaction, so a repeated payload starts the next
 * statement.
 */
export function pgBus(
  pool: Pick<Pool, 'query' | 'connect'>,
  options: Options,
  onMessage: (message: ClusterMessage) => void,
  maxRun = 500,
) {
  const channels = new Set<string>();
  const channelOf = (nsp: string) => `${options.channelPrefix}#${nsp}`;
  let listener: PoolClient | undefined;
  let closed = false;
  let reconnect: NodeJS.Timeout | undefined;

  // Received: one at a time, in the order heard.
  let received = Promise.resolve();
  async function receive(payload: string) {
    const message = JSON.parse(payload) as ClusterMessage & { attachmentId?: string };
    if (message.attachmentId) {
      const { rows } = await pool.query<{ payload: Uint8Array }>(
        `select payload from ${options.tableName} where id = $1`,
        [message.attachmentId],
      );
      if (rows[0]) onMessage(decode(rows[0].payload) as ClusterMessage);
    } else onMessage(message);
  }

  async function connect() {
    reconnect = undefined;
    if (closed) return;
    try {
      const client = await pool.connect();
      client.on('notification', (n) => {
        if (!n.payload) return;
        const payload = n.payload;
        received = received.then(() => receive(payload)).catch(options.errorHandler);
      });
      client.on('error', options.errorHandler);
      client.on('end', () => {
        listener = undefined;
        if (!closed) reconnect = setTimeout(() => void connect(), 1000 + Math.random() * 1000);
      });
      for (const channel of channels) await client.query(`listen "${channel}"`);
      if (closed) client.release();
      else listener = client;
    } catch (err) {
      options.errorHandler(err);
      if (!closed) reconnect = setTimeout(() => void connect(), 1000 + Math.random() * 1000);
    }
  }
  void connect();

  const cleanup = setInterval(() => {
    pool
      .query(
        `delete from ${options.tableName} where created_at < now() - $1::int * interval '1 millisecond'`,
        [options.cleanupInterval],
      )
      .catch(options.errorHandler);
  }, options.cleanupInterval);
  cleanup.unref();

  // Published: queued, sent in order.
  type Entry = { message: ClusterMessage | ClusterResponse; payload?: string; done(): void };
  let queue: Entry[] = [];
  let flushing = false;
  const binaryTypes = new Set<number>([
    MessageType.BROADCAST,
    MessageType.BROADCAST_ACK,
    MessageType.SERVER_SIDE_EMIT,
    MessageType.SERVER_SIDE_EMIT_RESPONSE,
  ]);

  async function viaAttachment(message: ClusterMessage | ClusterResponse) {
    const { rows } = await pool.query<{ id: string }>(
      `insert into ${options.tableName} (payload) values ($1) returning id`,
      [encode(message)],
    );
    const header = JSON.stringify({ uid: message.uid, type: message.type, attachmentId: rows[0]!.id });
    await pool.query('select pg_notify($1, $2)', [channelOf(message.nsp), header]);
  }

  async function flush() {
    try {
      while (queue.length) {
        const head = queue[0]!;
        if (head.payload === undefined) {
          queue.shift();
          await viaAttachment(head.message).catch(options.errorHandler);
          head.done();
          continue;
        }
        // One channel, no payload twice: one statement.
        const channel = channelOf(head.message.nsp);
        const seen = new Set<string>();
        let n = 0;
        while (n < queue.length && n < maxRun) {
          const e = queue[n]!;
          if (e.payload === undefined || channelOf(e.message.nsp) !== channel || seen.has(e.payload)) break;
          seen.add(e.payload);
          n++;
        }
        const run = queue.slice(0, n);
        queue = queue.slice(n);
        await pool
          .query('select pg_notify($1, p) from unnest($2::text[]) with ordinality as u(p, i) order by i', [
            channel,
            run.map((e) => e.payload!),
          ])
          .catch(options.errorHandler);
        run.forEach((e) => e.done());
      }
    } finally {
      flushing = false;
    }
  }

  return {
    listen(nsp: string) {
      const channel = channelOf(nsp);
      if (channels.has(channel)) return;
      channels.add(channel);
      listener?.query(`listen "${channel}"`).catch(options.errorHandler);
    },
    publish(message: ClusterMessage | ClusterResponse): Promise<void> {
      return new Promise<void>((done) => {
        const payload = JSON.stringify(message);
        const plain =
          !(binaryTypes.has(message.type) && hasBinary(message)) &&
          Buffer.byteLength(payload) <= options.payloadThreshold;
        queue.push({ message, payload: plain ? payload : undefined, done });
        if (!flushing) {
          flushing = true;
          // After what the loop already has in hand, so a burst of events leaves together.
          setImmediate(() => void flush());
        }
      });
    },
    close() {
      closed = true;
      clearInterval(cleanup);
      clearTimeout(reconnect);
      if (listener) {
        listener.removeAllListeners('end');
        listener.release();
        listener = undefined;
      }
    },
  };
}
