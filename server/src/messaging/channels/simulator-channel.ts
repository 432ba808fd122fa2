import { randomUUID } from 'node:crypto';
import { and, asc, eq, gt, inArray, sql } from 'drizzle-orm';
import type { SimulatorMessageView } from '@recado/contracts';
import { normalizeNumber } from '@recado/contracts';
import type { Database, Db } from '../../db/client.js';
import { executeRows, insertRows, rowOf } from '../../db/rows.js';
import { groupCommit } from '../../lib/group-commit.js';
import { simulatorMessages } from '../../db/schema/index.js';
import type { MediaStore } from '../media-store.js';
import {
  ChannelError,
  type Channel,
  type ChannelContext,
  type InboundMessage,
  type MediaPayload,
  type MediaType,
  type SendResult,
} from '../channel.js';

export type SimulatorRow = typeof simulatorMessages.$inferSelect;

const BATCH = 500;
/** Messages on their way at once (queued, in the pipeline or waiting for their mark) before the poll waits. */
const MAX_WAITING = 5000;
/** Customers whose next message goes in one statement of the pipeline. */
const BATCH_MAX = 100;
/** Pipeline statements on their way at once for one connection. */
const IN_FLIGHT = 4;
/** How often the owner looks for customer messages accepted elsewhere. */
const POLL_MS = 2000;

export interface SimulatorDeps {
  db: Db;
  media: MediaStore;
  /** Tells the simulator page that a customer's phone changed. */
  notify(
    companyId: number,
    whatsappId: number,
    payload: { action: 'message' | 'update'; message: SimulatorView },
  ): void;
  /** Delay before the simulated phone confirms delivery (ack 2). */
  deliveryDelayMs?: number;
  /** Marks customer messages delivered (✓✓ on the phone): shared by the connections (deliveredMarker). */
  markDelivered?: (ids: number[]) => Promise<SimulatorRow[]>;
  /** Where a running connection hears that another process stored customer messages for it (wakeUps). */
  wakeUps?: SimulatorWakeUps;
}

/** The NOTIFY channel that tells a connection's owner that another process accepted messages for it. */
export const SIMULATOR_INBOUND_CHANNEL = 'recado_simulator_inbound';

export type SimulatorWakeUps = ReturnType<typeof simulatorWakeUps>;

/**
 * One LISTEN for all the simulator connections running in this process: the process that accepted a
 * customer's message for a connection running elsewhere says so in the insert itself (NOTIFY at commit):
 * the stored row, which the owner takes as it is, or only the connection's id (a row too large for a
 * notification), and the owner reads its table. Either way at once, not at its next poll.
 */
export function simulatorWakeUps(
  listen: Database['listen'] | undefined,
  log?: { warn(o: object, m: string): void },
) {
  const running = new Map<number, (row?: SimulatorRow) => void>();
  const heard = (payload: string) => {
    if (!payload.startsWith('{')) return running.get(Number(payload))?.();
    try {
      const row = rowOf(simulatorMessages, JSON.parse(payload) as Record<string, unknown>);
      running.get(row.whatsappId)?.(row);
    } catch (err) {
      log?.warn({ err }, 'unreadable simulator notification; the poll reads the message');
    }
  };
  let listening: Promise<(() => Promise<void>) | undefined> | undefined;
  return {
    register(whatsappId: number, wake: (row?: SimulatorRow) => void) {
      running.set(whatsappId, wake);
      listening ??= listen
        ? listen(SIMULATOR_INBOUND_CHANNEL, heard).catch((err) => {
            log?.warn({ err }, 'LISTEN unavailable; simulator messages accepted elsewhere wait for the poll');
            return undefined;
          })
        : Promise.resolve(undefined);
      return listening.then(() => undefined);
    },
    /** The last connection stopping here stops listening (a later start listens again). */
    unregister(whatsappId: number) {
      running.delete(whatsappId);
      if (running.size || !listening) return;
      const was = listening;
      listening = undefined;
      void was.then((stop) => stop?.()).catch(() => undefined);
    },
  };
}

/**
 * Marks customer messages delivered for all the simulator connections of a process together: the ids
 * handed in during one turn of the loop (and while the previous statement runs) go in one statement, a
 * prepared one; each caller gets its own rows back.
 */
export function deliveredMarker(db: Db) {
  return groupCommit<number[], SimulatorRow[]>(
    async (lists) => {
      const rows = await executeRows(
        db,
        sql`update simulator_messages set delivered = true, ack = greatest(ack, 2)
          where id = any(string_to_array(${lists.flat().join(',')}, ',')::bigint[])
          returning *`,
        'recado_simulator_delivered_v1',
      );
      const byId = new Map(rows.map((r) => [Number(r.id), rowOf(simulatorMessages, r)]));
      return lists.map((ids) => ids.flatMap((id) => byId.get(id) ?? []));
    },
    { maxWeight: 5000, weight: (ids) => ids.length },
  );
}

/** One message as the simulated phone sees it: one definition in contracts (answers and events). */
export type SimulatorView = SimulatorMessageView;

export const toSimulatorView = (
  r: SimulatorRow,
  whatsappId: number,
  quoted?: SimulatorRow | null,
): SimulatorView => ({
  id: r.providerId,
  number: r.number,
  fromMe: r.fromMe,
  body: r.body,
  mediaType: r.mediaType,
  mediaUrl: r.media ? `/api/simulator/${whatsappId}/media/${encodeURIComponent(r.providerId)}` : null,
  mediaName: r.media?.filename ?? null,
  ack: r.ack,
  isDeleted: r.isDeleted,
  isEdited: r.isEdited,
  quoted: quoted
    ? {
        id: quoted.providerId,
        fromMe: quoted.fromMe,
        body: quoted.isDeleted ? '' : quoted.body,
        mediaType: quoted.mediaType,
      }
    : null,
  createdAt: r.createdAt.toISOString(),
});

/** The rows a page of rows quotes, by provider id (one query; a quote outside the page is read too). */
export async function quotedRows(db: Db, whatsappId: number, rows: SimulatorRow[]) {
  const ids = [...new Set(rows.map((r) => r.quotedProviderId).filter((id): id is string => Boolean(id)))];
  const byId = new Map(rows.map((r) => [r.providerId, r]));
  const missing = ids.filter((id) => !byId.has(id));
  if (missing.length)
    for (const r of await db
      .select()
      .from(simulatorMessages)
      .where(
        and(eq(simulatorMessages.whatsappId, whatsappId), inArray(simulatorMessages.providerId, missing)),
      ))
      byId.set(r.providerId, r);
  return (r: SimulatorRow) => (r.quotedProviderId ? (byId.get(r.quotedProviderId) ?? null) : null);
}

/** A row's view with its quoted message read from the table. */
export async function viewWithQuote(db: Db, whatsappId: number, r: SimulatorRow) {
  return toSimulatorView(r, whatsappId, (await quotedRows(db, whatsappId, [r]))(r));
}

export const mediaTypeOf = (mimetype: string): MediaType => {
  const top = mimetype.split('/')[0];
  return top === 'image' || top === 'audio' || top === 'video' ? top : 'application';
};

/**
 * A channel that lives inside Recado: the "phone" of each simulated customer is a table. Messages the
 * customer sends are stored first (undelivered) and then handed to the pipeline, so a crash in between
 * only delays them: start() hands over whatever is still undelivered, like WhatsApp's offline delivery.
 */
export interface SimulatorChannelApi {
  deliverPending(): Promise<number>;
  accept(rows: SimulatorRow[]): void;
  customerRead(number: string): Promise<number>;
}

export function simulatorChannel(ctx: ChannelContext, deps: SimulatorDeps): Channel & SimulatorChannelApi {
  const { db } = deps;
  const { whatsappId, companyId, sink } = ctx;
  const markRows = deps.markDelivered ?? deliveredMarker(db);
  let running = false;
  const timers = new Set<NodeJS.Timeout>();
  const later = (ms: number, fn: () => Promise<void>) => {
    const t = setTimeout(() => {
      timers.delete(t);
      void fn().catch(() => undefined);
    }, ms);
    timers.add(t);
  };

  const toInbound = (r: SimulatorRow): InboundMessage => ({
    providerId: r.providerId,
    kind: 'message',
    from: r.number,
    replyTo: r.number,
    name: r.name || undefined,
    fromMe: false,
    isGroup: false,
    body: r.body,
    mediaType: (r.mediaType as MediaType | null) ?? undefined,
    media: r.media
      ? async () => ({
          mimetype: r.media!.mimetype,
          filename: r.media!.filename,
          data: await deps.media.read(r.media!.path),
        })
      : undefined,
    timestamp: r.createdAt,
  });

  /*
   * Delivery. Customer messages reach the dispatcher two ways: handed over in-process by the HTTP entry
   * right after their row is durable (accept), or read back from the table (deliverPending: at start, and
   * every POLL_MS for rows accepted by another process or left behind by a failure). Each customer's
   * messages go one at a time, oldest first: the next one of every ready customer goes in one batch to the
   * pipeline (one statement for all of them), up to IN_FLIGHT batches at once, and a customer is ready
   * again as soon as its batch returns. A message is marked delivered only after the pipeline took it —
   * in batches, while delivery goes on; a crash in between only means a redelivery, which the pipeline
   * ignores.
   */
  const waiting = new Map<string, SimulatorRow[]>(); // per customer, ascending id
  const ready: string[] = []; // customers with waiting messages and none on its way
  const busy = new Set<string>(); // customers with a message on its way to the pipeline
  const known = new Set<number>(); // ids waiting, in the pipeline, or waiting for their mark
  const failed = new Set<string>(); // customers whose delivery failed: the poll takes them over, in order
  const settled = new Set<(id: number) => void>();
  // Marked while a poll reads: its snapshot may still show them undelivered.
  const markedDuringPoll = new Set<number>();
  let flights = 0;
  let toMark: number[] = [];
  let marking: Promise<void> | null = null;
  let polling: Promise<number> | null = null;

  const settle = (id: number) => {
    known.delete(id);
    settled.forEach((fn) => fn(id));
  };

  /** Queues rows for delivery; returns how many were new here. */
  function enqueue(rows: SimulatorRow[], fromPoll: boolean): number {
    let added = 0;
    for (const row of rows) {
      if (row.fromMe || row.delivered || known.has(row.id)) continue;
      // After a failure a customer's messages come only from the table, so their order is kept.
      if (failed.has(row.number) && !fromPoll) continue;
      known.add(row.id);
      added++;
      const list = waiting.get(row.number);
      if (!list) {
        waiting.set(row.number, [row]);
        if (!busy.has(row.number)) ready.push(row.number);
      } else {
        let i = list.length;
        while (i > 0 && list[i - 1]!.id > row.id) i--;
        list.splice(i, 0, row);
      }
    }
    schedulePump();
    return added;
  }

  /** Pumps once the loop has taken in what already arrived, so that a burst leaves as one batch. */
  let pumpSoon = false;
  function schedulePump() {
    if (pumpSoon) return;
    pumpSoon = true;
    setImmediate(() => {
      pumpSoon = false;
      pump();
    });
  }

  /** Sends the next message of every ready customer (up to BATCH_MAX) as one batch, while slots are free. */
  function pump() {
    while (running && flights < IN_FLIGHT && ready.length) {
      const numbers = ready.splice(0, BATCH_MAX);
      const rows = numbers.map((number) => {
        busy.add(number);
        const list = waiting.get(number)!;
        const row = list.shift()!;
        if (!list.length) waiting.delete(number);
        return row;
      });
      flights++;
      void deliver(rows).finally(() => {
        flights--;
        for (const number of numbers) {
          busy.delete(number);
          if (waiting.has(number)) ready.push(number);
        }
        schedulePump();
      });
    }
  }

  async function deliver(rows: SimulatorRow[]) {
    const taken = sink.messages
      ? await sink.messages(rows.map(toInbound)).catch(() => rows.map(() => false))
      : await Promise.all(
          rows.map((r) =>
            sink.message(toInbound(r)).then(
              () => true,
              () => false,
            ),
          ),
        );
    rows.forEach((row, i) => {
      if (taken[i]) {
        toMark.push(row.id);
        return;
      }
      // Left undelivered: this customer's waiting messages go back to the table, and the poll retries.
      failed.add(row.number);
      settle(row.id);
      for (const r of waiting.get(row.number) ?? []) settle(r.id);
      waiting.delete(row.number);
    });
    if (toMark.length && !marking) marking = new Promise<void>((r) => setImmediate(r)).then(markDelivered);
  }

  async function markDelivered() {
    try {
      while (toMark.length) {
        const ids = toMark;
        toMark = [];
        try {
          // Delivered to the company: the customer's phone shows ✓✓.
          const rows = await markRows(ids);
          rows.forEach((r) =>
            deps.notify(companyId, whatsappId, { action: 'update', message: toSimulatorView(r, whatsappId) }),
          );
          if (polling) ids.forEach((id) => markedDuringPoll.add(id));
          ids.forEach(settle);
        } catch {
          // Still undelivered in the table: they stay known (not redelivered) and are marked later.
          toMark.push(...ids);
          if (!running) return;
          await new Promise((r) => setTimeout(r, 1000).unref());
        }
      }
    } finally {
      marking = null;
    }
  }

  /** Reads undelivered rows from the table, oldest first, and waits until those it queued are settled. */
  async function deliverPendingOnce(): Promise<number> {
    let count = 0;
    const mine = new Set<number>();
    let resolveDone: () => void = () => undefined;
    const done = new Promise<void>((r) => (resolveDone = r));
    const onSettled = (id: number) => {
      if (mine.delete(id) && !mine.size) resolveDone();
    };
    settled.add(onSettled);
    try {
      const retrying = new Set(failed);
      let after = 0;
      for (;;) {
        // Bounded memory: wait while many messages are already on their way.
        while (running && known.size >= MAX_WAITING) await new Promise((r) => setTimeout(r, 20));
        const batch = await db
          .select()
          .from(simulatorMessages)
          .where(
            and(
              eq(simulatorMessages.whatsappId, whatsappId),
              eq(simulatorMessages.delivered, false),
              eq(simulatorMessages.fromMe, false),
              gt(simulatorMessages.id, after),
            ),
          )
          .orderBy(asc(simulatorMessages.id))
          .limit(BATCH);
        if (!running) break;
        // This pass has read everything these customers had: the in-process hand-over may resume.
        if (batch.length < BATCH) retrying.forEach((n) => failed.delete(n));
        const fresh = batch.filter((row) => !markedDuringPoll.has(row.id));
        for (const row of fresh) if (!known.has(row.id)) mine.add(row.id);
        count += enqueue(fresh, true);
        if (batch.length < BATCH) break;
        after = batch[batch.length - 1]!.id;
      }
      if (mine.size) await done;
      return count;
    } finally {
      settled.delete(onSettled);
    }
  }

  /** Reads what is still undelivered in the table (one pass at a time; a call during a pass joins it). */
  function deliverPending(): Promise<number> {
    if (!polling)
      polling = deliverPendingOnce().finally(() => {
        polling = null;
        markedDuringPoll.clear();
        if (wokenDuringPoll && running) {
          wokenDuringPoll = false;
          void deliverPending().catch(() => undefined);
        }
      });
    return polling;
  }
  /**
   * Another process accepted a message for this connection: the row itself is taken like the HTTP entry's
   * hand-over; without it, the table is read now (after a pass under way).
   */
  let wokenDuringPoll = false;
  function wake(row?: SimulatorRow) {
    if (!running) return;
    if (row) enqueue([row], false);
    else if (polling) wokenDuringPoll = true;
    else void deliverPending().catch(() => undefined);
  }

  async function outbound(
    to: string,
    fields: { body: string; mediaType?: string; media?: SimulatorRow['media']; quoted?: string },
    chosenId?: string,
    stage = false,
  ): Promise<SendResult> {
    if (!running) throw new ChannelError('ERR_WAPP_NOT_INITIALIZED');
    const number = normalizeNumber(to);
    const providerId = chosenId ?? `SIM${randomUUID().replace(/-/g, '').slice(0, 20).toUpperCase()}`;
    const values = {
      whatsappId,
      number,
      providerId,
      fromMe: true,
      body: fields.body,
      mediaType: fields.mediaType ?? null,
      media: fields.media ?? null,
      quotedProviderId: fields.quoted ?? null,
      ack: 1,
      delivered: true,
    };
    /** The phone shows it; its delivery confirmation follows, as a real phone's would. */
    const arrived = async (row: SimulatorRow) => {
      deps.notify(companyId, whatsappId, {
        action: 'message',
        message: await viewWithQuote(db, whatsappId, row),
      });
      // #31 Its row and the message's ack in one statement (the pipeline's, with this row as a CTE). Read
      // already (ack 3): the read acked the message then, and "delivered" changes nothing there.
      later(deps.deliveryDelayMs ?? 300, async () => {
        await sink.ack({
          providerId,
          ack: 2,
          own: {
            cte: sql`update simulator_messages set ack = greatest(ack, 2) where id = ${row.id} returning *`,
            seen: async (raw) => {
              if (!raw) return;
              const updated = rowOf(simulatorMessages, raw);
              deps.notify(companyId, whatsappId, {
                action: 'update',
                message: await viewWithQuote(db, whatsappId, updated),
              });
            },
          },
        });
      });
    };
    if (stage)
      // #31 The sender writes the phone's row in the statement that records the send (OutboundOptions.stageOwn).
      return {
        providerId,
        timestamp: new Date(),
        own: {
          cte: sql`insert into simulator_messages (whatsapp_id, number, provider_id, from_me, body, media_type,
              media, quoted_provider_id, ack, delivered)
            values (${whatsappId}, ${number}, ${providerId}, true, ${values.body}, ${values.mediaType},
              ${values.media === null ? null : JSON.stringify(values.media)}::jsonb, ${values.quotedProviderId},
              1, true)
            on conflict do nothing returning *`,
          seen: async (raw) => {
            if (raw) await arrived(rowOf(simulatorMessages, raw));
          },
        },
      };
    // One prepared statement (db/rows.ts insertRows). The same id again (a resend after a crash): the phone
    // already has it, like WhatsApp drops a repeat.
    const [raw] = await insertRows(db, simulatorMessages, [values], {
      onConflictDoNothing: true,
      returning: true,
    });
    if (!raw) return { providerId, timestamp: new Date() };
    const row = rowOf(simulatorMessages, raw);
    await arrived(row);
    return { providerId, timestamp: row.createdAt };
  }

  return {
    kind: 'simulator',
    chosenIds: true,
    async start() {
      running = true;
      // Messages accepted by another process (the HTTP entry may run anywhere) are picked up here.
      const poll = setInterval(() => void deliverPending().catch(() => undefined), POLL_MS);
      poll.unref();
      timers.add(poll);
      // Not awaited: until LISTEN is in place (or if it cannot be), the poll reads what others accepted.
      void deps.wakeUps?.register(whatsappId, wake);
      await sink.state({
        status: 'CONNECTED',
        number: `5500000${String(whatsappId).padStart(6, '0')}`,
        retries: 0,
        qrcode: '',
      });
      await deliverPending();
    },
    async stop() {
      running = false;
      deps.wakeUps?.unregister(whatsappId);
      // Whatever still waits stays undelivered in the table for the next start.
      waiting.clear();
      ready.length = 0;
      failed.clear();
      [...known].forEach(settle);
      timers.forEach((t) => {
        clearTimeout(t);
        clearInterval(t);
      });
      timers.clear();
    },
    async logout() {
      await this.stop();
      await sink.state({ status: 'DISCONNECTED', qrcode: '' });
    },
    /** Reads what is still undelivered in the table (one pass at a time; a call during a pass joins it). */
    deliverPending,
    /** The HTTP entry hands over rows it just stored durably (no need to read them back). */
    accept(rows: SimulatorRow[]) {
      if (running) enqueue(rows, false);
    },
    /** The customer opens the chat: the company's messages to them become read (ack 3). */
    async customerRead(number: string) {
      const rows = await markCustomerRead(db, whatsappId, number);
      for (const r of rows) {
        await sink.ack({ providerId: r.providerId, ack: 3 });
        deps.notify(companyId, whatsappId, { action: 'update', message: toSimulatorView(r, whatsappId) });
      }
      return rows.length;
    },
    sendText: (to, body, opts) =>
      outbound(to, { body, quoted: opts?.quotedProviderId }, opts?.providerId, opts?.stageOwn),
    async sendMedia(to, media: MediaPayload & { caption?: string; asVoice?: boolean }, opts) {
      const path = await deps.media.save(companyId, media.data, media.filename, 'simulator');
      return outbound(
        to,
        {
          body: media.caption ?? '',
          mediaType: mediaTypeOf(media.mimetype),
          media: { mimetype: media.mimetype, filename: media.filename, path },
          quoted: opts?.quotedProviderId,
        },
        opts?.providerId,
        opts?.stageOwn,
      );
    },
    async markRead(_to, providerIds) {
      if (!providerIds.length) return;
      // The company read the customer's messages: the customer's phone shows blue ticks.
      const rows = await db
        .update(simulatorMessages)
        .set({ ack: 3 })
        .where(
          and(
            eq(simulatorMessages.whatsappId, whatsappId),
            inArray(simulatorMessages.providerId, providerIds),
          ),
        )
        .returning();
      rows.forEach((r) =>
        deps.notify(companyId, whatsappId, { action: 'update', message: toSimulatorView(r, whatsappId) }),
      );
    },
    async deleteMessage(_to, providerId) {
      const rows = await db
        .update(simulatorMessages)
        .set({ isDeleted: true, body: '' })
        .where(
          and(eq(simulatorMessages.whatsappId, whatsappId), eq(simulatorMessages.providerId, providerId)),
        )
        .returning();
      if (!rows.length) throw new ChannelError('ERR_DELETE_WAPP_MSG');
      deps.notify(companyId, whatsappId, {
        action: 'update',
        message: toSimulatorView(rows[0]!, whatsappId),
      });
    },
    async editMessage(_to, providerId, body) {
      const rows = await db
        .update(simulatorMessages)
        .set({ body, isEdited: true })
        .where(
          and(eq(simulatorMessages.whatsappId, whatsappId), eq(simulatorMessages.providerId, providerId)),
        )
        .returning();
      if (!rows.length) throw new ChannelError('ERR_SENDING_WAPP_MSG');
      deps.notify(companyId, whatsappId, {
        action: 'update',
        message: await viewWithQuote(db, whatsappId, rows[0]!),
      });
    },
    async checkNumber(number) {
      // Every plausible phone number "has WhatsApp" in the simulator.
      const n = normalizeNumber(number);
      return n.length >= 10 && n.length <= 15 ? { exists: true, replyTo: n, number: n } : { exists: false };
    },
    profilePicture: async () => null,
    async addressBook() {
      const rows = await db
        .selectDistinctOn([simulatorMessages.number], {
          number: simulatorMessages.number,
          name: simulatorMessages.name,
        })
        .from(simulatorMessages)
        .where(and(eq(simulatorMessages.whatsappId, whatsappId), eq(simulatorMessages.fromMe, false)))
        .orderBy(asc(simulatorMessages.number), sql`${simulatorMessages.id} desc`);
      return rows.map((r) => ({ number: r.number, name: r.name || r.number }));
    },
  };
}

/** Marks every company message to `number` as read on the customer's phone; returns the changed rows. */
export function markCustomerRead(db: Db, whatsappId: number, number: string): Promise<SimulatorRow[]> {
  return db
    .update(simulatorMessages)
    .set({ ack: 3 })
    .where(
      and(
        eq(simulatorMessages.whatsappId, whatsappId),
        eq(simulatorMessages.number, normalizeNumber(number)),
        eq(simulatorMessages.fromMe, true),
        sql`${simulatorMessages.ack} < 3`,
      ),
    )
    .returning();
}
