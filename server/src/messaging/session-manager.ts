import { randomUUID } from 'node:crypto';
import { and, eq, inArray, isNull, lt, ne, or, sql } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../db/client.js';
import { channelAuth, whatsapps } from '../db/schema/index.js';
import { openOrphanOutages } from './connection-outages.js';
import type {
  AckUpdate,
  Channel,
  ChannelKind,
  ChannelSink,
  InboundMessage,
  LidPair,
  StateUpdate,
} from './channel.js';

export interface ConnectionRef {
  id: number;
  companyId: number;
  channel: string;
  channelConfig: Record<string, unknown>;
}

export interface SessionManagerDeps {
  db: Db;
  log: FastifyBaseLogger;
  /** Builds the channel of a connection; absent kinds cannot run here. */
  createChannel(kind: ChannelKind, ref: ConnectionRef, sink: ChannelSink): Channel | undefined;
  /** Where inbound messages and acks go (the inbound pipeline). */
  inbound: {
    message(ref: ConnectionRef, m: InboundMessage): Promise<unknown>;
    messages?(ref: ConnectionRef, ms: InboundMessage[]): Promise<PromiseSettledResult<unknown>[]>;
    ack(ref: ConnectionRef, a: AckUpdate): Promise<void>;
    /** #33.6 LID ↔ phone pairs a channel learnt (lid-map.ts). */
    lids?(ref: ConnectionRef, pairs: LidPair[], source: string): Promise<void>;
  };
  /** Persists a state change and tells the browsers. */
  onState(ref: ConnectionRef, s: StateUpdate): Promise<void>;
  /** This process's identity in leases. */
  processId?: string;
  leaseMs?: number;
  tickMs?: number;
}

interface Running {
  ref: ConnectionRef;
  channel: Channel;
}

/**
 * Runs every connection's channel, each owned by exactly one process at a time through a lease row in
 * `whatsapps` that the owner renews. A process that dies stops renewing; another one claims the
 * connection once the lease has expired (leaseMs) and starts its channel there.
 * Connections in DISCONNECTED state are not run until someone starts their session again.
 */
export function sessionManager(deps: SessionManagerDeps) {
  const { db, log } = deps;
  const me = deps.processId ?? `proc-${randomUUID()}`;
  const leaseMs = deps.leaseMs ?? 20_000;
  const tickMs = deps.tickMs ?? Math.max(250, Math.floor(leaseMs / 4));
  const running = new Map<number, Running>();
  let timer: NodeJS.Timeout | undefined;
  let ticking: Promise<void> | null = null;
  let stopped = false;

  const leaseUntil = () => sql`now() + ${`${leaseMs} milliseconds`}::interval`;

  function sinkFor(ref: ConnectionRef): ChannelSink {
    return {
      message: async (m) => {
        await deps.inbound.message(ref, m);
      },
      messages: async (ms) => {
        const settled = deps.inbound.messages
          ? await deps.inbound.messages(ref, ms)
          : await Promise.allSettled(ms.map((m) => deps.inbound.message(ref, m)));
        return settled.map((r) => {
          if (r.status === 'fulfilled') return true;
          log.warn(
            { err: withoutParams(r.reason), whatsappId: ref.id },
            'inbound message failed; the channel will retry',
          );
          return false;
        });
      },
      ack: (a) => deps.inbound.ack(ref, a),
      lids: async (pairs, source) => {
        await deps.inbound.lids?.(ref, pairs, source);
      },
      state: async (s) => {
        await deps.onState(ref, s);
        if (s.status === 'DISCONNECTED') {
          // A logged-out session stops running here and frees its lease.
          const r = running.get(ref.id);
          running.delete(ref.id);
          if (r) await release([ref.id]);
        }
      },
    };
  }

  async function launch(ref: ConnectionRef) {
    if (running.has(ref.id) || stopped) return;
    const channel = deps.createChannel(ref.channel as ChannelKind, ref, sinkFor(ref));
    if (!channel) {
      log.warn({ whatsappId: ref.id, channel: ref.channel }, 'no channel implementation');
      await release([ref.id]);
      return;
    }
    running.set(ref.id, { ref, channel });
    try {
      await channel.start();
    } catch (err) {
      log.error({ err, whatsappId: ref.id }, 'channel failed to start');
      running.delete(ref.id);
      await deps.onState(ref, { status: 'DISCONNECTED', qrcode: '' }).catch(() => undefined);
      await release([ref.id]);
    }
  }

  async function release(ids: number[]) {
    if (!ids.length) return;
    await db
      .update(whatsapps)
      // #33.3 The expiry becomes the release's time: when a connection left CONNECTED stopped being run.
      .set({ leaseOwner: null, leaseExpiresAt: sql`now()` })
      .where(and(inArray(whatsapps.id, ids), eq(whatsapps.leaseOwner, me)));
  }

  async function tickOnce() {
    // Renew what runs here; anything whose lease was lost is stopped (another process owns it now).
    const mine = [...running.keys()];
    if (mine.length) {
      const renewed = await db
        .update(whatsapps)
        .set({ leaseExpiresAt: leaseUntil() })
        .where(and(inArray(whatsapps.id, mine), eq(whatsapps.leaseOwner, me)))
        .returning({ id: whatsapps.id });
      const kept = new Set(renewed.map((r) => r.id));
      for (const id of mine)
        if (!kept.has(id)) {
          const r = running.get(id);
          running.delete(id);
          await r?.channel.stop().catch(() => undefined);
          log.warn({ whatsappId: id }, 'lease lost; session stopped here');
        }
    }
    // #33.3 Connections left CONNECTED by a process gone: their outage began when it was last heard.
    await openOrphanOutages(db, leaseMs);
    // Claim connections that should run and that nobody holds.
    const claimed = await db
      .update(whatsapps)
      .set({ leaseOwner: me, leaseExpiresAt: leaseUntil() })
      .where(
        and(
          ne(whatsapps.status, 'DISCONNECTED'),
          or(
            isNull(whatsapps.leaseOwner),
            lt(whatsapps.leaseExpiresAt, sql`now()`),
            eq(whatsapps.leaseOwner, me),
          ),
        ),
      )
      .returning({
        id: whatsapps.id,
        companyId: whatsapps.companyId,
        channel: whatsapps.channel,
        channelConfig: whatsapps.channelConfig,
      });
    for (const ref of claimed) if (!running.has(ref.id)) await launch(ref);
  }

  const tick = () => {
    if (ticking || stopped) return ticking ?? Promise.resolve();
    ticking = tickOnce()
      .catch((err) => log.error({ err }, 'session manager tick failed'))
      .finally(() => {
        ticking = null;
      });
    return ticking;
  };

  return {
    processId: me,
    async start() {
      stopped = false;
      await tick();
      timer = setInterval(() => void tick(), tickMs);
      timer.unref();
    },
    /** Runs one renew-and-claim pass now (tests, and after a connection is created). */
    tick,
    get: (whatsappId: number): Channel | undefined => running.get(whatsappId)?.channel,
    isRunningHere: (whatsappId: number) => running.has(whatsappId),
    /** The connections whose channel runs in this process. */
    runningIds: (): number[] => [...running.keys()],

    /** Starts (or resumes) a connection's session: it becomes claimable and, if free, runs here. */
    async startSession(whatsappId: number) {
      await db
        .update(whatsapps)
        .set({ status: 'OPENING', qrcode: '', updatedAt: new Date() })
        .where(and(eq(whatsapps.id, whatsappId), eq(whatsapps.status, 'DISCONNECTED')));
      await tick();
    },

    /** Restarts the session here; with clearAuth the credentials are forgotten (a new QR code). */
    async restart(whatsappId: number, opts: { clearAuth?: boolean } = {}) {
      const r = running.get(whatsappId);
      running.delete(whatsappId);
      await r?.channel.stop().catch(() => undefined);
      if (opts.clearAuth) await db.delete(channelAuth).where(eq(channelAuth.whatsappId, whatsappId));
      await db
        .update(whatsapps)
        .set({ status: 'OPENING', qrcode: '', leaseOwner: null, leaseExpiresAt: null, updatedAt: new Date() })
        .where(eq(whatsapps.id, whatsappId));
      await tick();
    },

    /** Logs the session out: DISCONNECTED, credentials cleared, not run again until started. */
    async logout(whatsappId: number) {
      const r = running.get(whatsappId);
      running.delete(whatsappId);
      if (r) await r.channel.logout().catch((err) => log.warn({ err, whatsappId }, 'logout failed'));
      await db.delete(channelAuth).where(eq(channelAuth.whatsappId, whatsappId));
      await db
        .update(whatsapps)
        .set({
          status: 'DISCONNECTED',
          qrcode: '',
          leaseOwner: null,
          leaseExpiresAt: null,
          updatedAt: new Date(),
        })
        .where(eq(whatsapps.id, whatsappId));
    },

    /** Stops a connection here before it is deleted. */
    async remove(whatsappId: number) {
      const r = running.get(whatsappId);
      running.delete(whatsappId);
      await r?.channel.stop().catch(() => undefined);
    },

    /** Process shutdown: stop every channel without logging out and free the leases for the others. */
    async stop() {
      stopped = true;
      if (timer) clearInterval(timer);
      await ticking;
      const ids = [...running.keys()];
      await Promise.all([...running.values()].map((r) => r.channel.stop().catch(() => undefined)));
      running.clear();
      await release(ids).catch(() => undefined);
    },

    /** Test helper: behave like a killed process (stop renewing, keep the lease rows as they are). */
    async crash() {
      stopped = true;
      if (timer) clearInterval(timer);
      await ticking;
      await Promise.all([...running.values()].map((r) => r.channel.stop().catch(() => undefined)));
      running.clear();
    },
  };
}
export type SessionManager = ReturnType<typeof sessionManager>;

/**
 * A failed query's error names its parameters (drizzle: "Failed query: …\nparams: …"), which hold the
 * customer's text, and so can the database's reason (`invalid input syntax …: "…"`): the log keeps the
 * statement and the database's error code, never the values.
 */
export function withoutParams(err: unknown): Record<string, unknown> {
  if (!(err instanceof Error)) return { message: String(err).split('\nparams:')[0] };
  const cause = err.cause as { code?: string } | undefined;
  return {
    name: err.name,
    message: err.message.split('\nparams:')[0],
    ...(cause?.code ? { code: cause.code } : {}),
  };
}
