import type { Socket as NetSocket } from 'node:net';

/** The parts of an Engine.IO socket this touches (engine.io's `Socket`, not typed for these members). */
export interface EngineConn {
  flush(): void;
  transport?: { name?: string; socket?: { _socket?: NetSocket } };
}

/**
 * Every event a socket is sent in one synchronous run leaves in one system call. Engine.IO writes each
 * packet as it comes: the first goes to the WebSocket at once and the rest wait for that write to finish,
 * then go one frame, one `writev`, each. A message the pipeline stores is two events (the message and the
 * ticket) to every agent socket following it, so each socket cost two or more system calls a message, which
 * was a third of the server's time in `bench:sockets` (docs/benchmarks.md). Here the flush waits for the end
 * of the synchronous run that emitted (`queueMicrotask`: still before the HTTP answer of the request that
 * caused the event, as it was), and the frames then
 * written to a WebSocket's TCP socket are corked together. Order and back-pressure are Engine.IO's, unchanged.
 */
export function coalesceWrites(conn: EngineConn): void {
  const flush = conn.flush.bind(conn);
  let queued = false;
  const run = () => {
    queued = false;
    const transport = conn.transport;
    const raw = transport?.name === 'websocket' ? transport.socket?._socket : undefined;
    if (!raw || typeof raw.cork !== 'function' || raw.destroyed) return flush();
    raw.cork();
    try {
      flush();
    } finally {
      raw.uncork();
    }
  };
  conn.flush = () => {
    if (queued) return;
    queued = true;
    queueMicrotask(run);
  };
}
