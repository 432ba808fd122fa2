import type { Server as HttpServer } from 'node:http';
import { Server, type Socket } from 'socket.io';
import { CLIENT_EVENTS, FLOW_TRY_CLIENT_EVENTS, isScopeRoom, rooms } from '@recado/contracts';
import type { FastifyBaseLogger } from 'fastify';
import type { Tenant } from '../http/tenant.js';
import { AppError } from '../http/errors.js';
import { coalesceWrites, type EngineConn } from './coalesce-writes.js';
import { initialRooms, resolveJoin, type RoomGuards } from './room-policy.js';

export interface SocketServerDeps {
  httpServer: HttpServer;
  log: FastifyBaseLogger;
  authenticate: (token: string) => Promise<Tenant | 'expired' | null>;
  onPresence?: (t: Tenant, online: boolean) => Promise<void>;
  /**
   * #30.2 Presence (modules/presence): every socket's opening and closing in this process, and the browser's
   * reports of idleness and activity.
   */
  presence?: {
    socketOpened(t: Tenant): Promise<void>;
    socketClosed(t: Tenant): Promise<void>;
    idle(t: Tenant): Promise<void>;
    active(t: Tenant): Promise<void>;
  };
  guards: RoomGuards;
  redisUrl?: string;
  /** Without Redis: PostgreSQL carries browser events between processes (LISTEN/NOTIFY). */
  postgresUrl?: string;
  /** Browser origins allowed to connect (Origin header, Host header); absent: any. */
  allowOrigin?: (origin: string | undefined, host: string | undefined) => boolean;
  /**
   * #34.1 A handshake from another origin that names a website chat widget whose list holds that origin
   * (webchat-socket.ts): let through to the /widget namespace only.
   */
  widgetHandshake?: (url: string | undefined, origin: string | undefined) => Promise<boolean>;
}

const disposers = new WeakMap<Server, () => Promise<void>>();

/** Closes the server (its sockets and adapter), then the adapter's own connections. */
export async function closeSocketServer(io: Server): Promise<void> {
  await io.close();
  await disposers.get(io)?.();
}

/** Socket.IO server: the handshake carries the access token; rooms come from the server only. */
export async function createSocketServer(deps: SocketServerDeps): Promise<Server> {
  const io = new Server(deps.httpServer, {
    path: '/socket.io',
    pingTimeout: 18000,
    pingInterval: 18000,
    // CORS only guards polling; allowRequest also refuses a WebSocket opened from a foreign page.
    cors: {
      origin: (origin, cb) => cb(null, deps.allowOrigin ? deps.allowOrigin(origin, undefined) : true),
      credentials: true,
    },
    allowRequest: (req, done) => {
      const ok = deps.allowOrigin ? deps.allowOrigin(req.headers.origin, req.headers.host) : true;
      if (ok || !deps.widgetHandshake) return done(ok ? null : 'ERR_ORIGIN_NOT_ALLOWED', ok);
      void deps.widgetHandshake(req.url, req.headers.origin).then(
        (w) => done(w ? null : 'ERR_ORIGIN_NOT_ALLOWED', w),
        () => done('ERR_ORIGIN_NOT_ALLOWED', false),
      );
    },
    serveClient: false,
  });
  // One system call for all the events a socket gets in one turn of the loop (coalesce-writes.ts).
  io.engine.on('connection', (conn: EngineConn) => coalesceWrites(conn));
  if (deps.redisUrl) {
    const { Redis } = await import('ioredis');
    const { createAdapter } = await import('@socket.io/redis-adapter');
    const pub = new Redis(deps.redisUrl);
    const sub = pub.duplicate();
    io.adapter(createAdapter(pub, sub));
    disposers.set(io, async () => {
      pub.disconnect();
      sub.disconnect();
    });
  } else if (deps.postgresUrl) {
    // A small pool of its own: the adapter keeps one connection for LISTEN and publishes with NOTIFY, batched
    // and after our own sockets are served (postgres-adapter.ts); events over 8,000 bytes go through
    // socket_io_attachments (migration scale_out).
    const { default: pg } = await import('pg');
    const { createPostgresAdapter } = await import('./postgres-adapter.js');
    const pool = new pg.Pool({ connectionString: deps.postgresUrl, max: 3 });
    const onError = (err: Error) => deps.log.warn({ err: err.message }, 'socket adapter database error');
    pool.on('error', onError);
    io.adapter(createPostgresAdapter(pool, { heartbeatInterval: 5000, heartbeatTimeout: 10000, onError }));
    disposers.set(io, () => pool.end().catch(() => undefined));
  }

  io.use(async (socket, next) => {
    // A widget's page (another origin, let in by widgetHandshake) reaches /widget only, never this namespace.
    const { origin, host } = socket.handshake.headers;
    if (deps.allowOrigin && !deps.allowOrigin(origin, host)) {
      const err = new Error('ERR_ORIGIN_NOT_ALLOWED') as Error & { data?: unknown };
      err.data = { code: 'ERR_ORIGIN_NOT_ALLOWED' };
      return next(err);
    }
    const raw = socket.handshake.auth?.token ?? socket.handshake.query?.token;
    const token = typeof raw === 'string' ? raw.replace(/^Bearer\s+/i, '') : '';
    // A session ended by a login elsewhere answers ERR_SESSION_REPLACED: the browser says why it signed out.
    let refused: string | undefined;
    const result = token
      ? await deps.authenticate(token).catch((e: unknown) => {
          if (e instanceof AppError && e.code === 'ERR_SESSION_REPLACED') refused = e.code;
          return null;
        })
      : null;
    if (result && result !== 'expired') {
      socket.data.tenant = result;
      return next();
    }
    const code = refused ?? (result === 'expired' ? 'ERR_SESSION_EXPIRED' : 'ERR_INVALID_TOKEN');
    const err = new Error(code) as Error & { data?: unknown };
    err.data = { code };
    next(err);
  });

  io.on('connection', (socket: Socket) => {
    const tenant = socket.data.tenant as Tenant;
    void socket.join(initialRooms(tenant));
    void deps.onPresence?.(tenant, true).catch((err) => deps.log.warn({ err }, 'presence update failed'));
    const presence = deps.presence;
    const presenceFailed = (err: unknown) => deps.log.warn({ err }, 'presence change failed');
    if (presence) {
      void presence.socketOpened(tenant).catch(presenceFailed);
      socket.on(CLIENT_EVENTS.presenceIdle, () => void presence.idle(tenant).catch(presenceFailed));
      socket.on(CLIENT_EVENTS.presenceActive, () => void presence.active(tenant).catch(presenceFailed));
    }

    const join = async (request: unknown, ack?: unknown) => {
      const room = await resolveJoin(tenant, request, deps.guards).catch(() => null);
      if (room && typeof room === 'object') {
        // Status and notification rooms follow the user's queues as they are now: a new join replaces the
        // scope's old set.
        for (const r of [...socket.rooms])
          if (isScopeRoom(tenant.companyId, room.scope, r)) await socket.leave(r);
        await socket.join(room.rooms);
      } else if (room) await socket.join(room);
      if (typeof ack === 'function') ack({ ok: Boolean(room) });
    };
    const leave = async (request: unknown, ack?: unknown) => {
      const room = await resolveJoin(tenant, request, deps.guards).catch(() => null);
      if (room && typeof room === 'object') {
        for (const r of [...socket.rooms])
          if (isScopeRoom(tenant.companyId, room.scope, r)) await socket.leave(r);
      } else if (room) await socket.leave(room);
      if (typeof ack === 'function') ack({ ok: Boolean(room) });
    };
    socket.on(CLIENT_EVENTS.join, join);
    socket.on(CLIENT_EVENTS.leave, leave);
    socket.on(CLIENT_EVENTS.joinChatBox, (id: unknown, ack?: unknown) => join(`ticket-${String(id)}`, ack));
    socket.on(CLIENT_EVENTS.leaveChatBox, (id: unknown, ack?: unknown) => leave(`ticket-${String(id)}`, ack));
    // Flows' try-it panel (docs/flows.md#try-it): `{ flowId }`, authorised by the flows module's guard.
    const flowTryId = (p: unknown) => String((p as { flowId?: unknown } | null)?.flowId ?? '');
    socket.on(FLOW_TRY_CLIENT_EVENTS.join, (p: unknown, ack?: unknown) =>
      join(`flow-try-${flowTryId(p)}`, ack),
    );
    socket.on(FLOW_TRY_CLIENT_EVENTS.leave, (p: unknown, ack?: unknown) =>
      leave(`flow-try-${flowTryId(p)}`, ack),
    );
    socket.on(CLIENT_EVENTS.joinTickets, join);
    socket.on(CLIENT_EVENTS.leaveTickets, leave);
    socket.on(CLIENT_EVENTS.joinNotification, (ack?: unknown) => join('notification', ack));
    socket.on(CLIENT_EVENTS.leaveNotification, (ack?: unknown) => leave('notification', ack));
    socket.on(CLIENT_EVENTS.ready, (ack?: unknown) => {
      if (typeof ack === 'function')
        ack({ ok: true, rooms: [...socket.rooms].filter((r) => r !== socket.id) });
    });
    socket.on(CLIENT_EVENTS.userStatus, () => {
      void deps.onPresence?.(tenant, true).catch(() => undefined);
    });
    socket.on('disconnect', async () => {
      if (presence) void presence.socketClosed(tenant).catch(presenceFailed);
      const left = await io
        .in(rooms.user(tenant.companyId, tenant.userId))
        .fetchSockets()
        .catch(() => []);
      if (left.length === 0) void deps.onPresence?.(tenant, false).catch(() => undefined);
    });
  });
  return io;
}
