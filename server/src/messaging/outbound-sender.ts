import { createHash } from 'node:crypto';
import { and, eq, sql } from 'drizzle-orm';
import type { Db, Tx } from '../db/client.js';
import { messages, outboundQueue, type OutboundJob } from '../db/schema/index.js';
import { executeRows } from '../db/rows.js';
import { ChannelError, type Channel, type OwnWrite, type TemplateSend } from './channel.js';
import type { MediaStore } from './media-store.js';

/** The NOTIFY channel that wakes the owner of a connection when a message waits for it. */
export const OUTBOUND_CHANNEL = 'recado_outbound';

export type OutboundOutcome = { ok: true; providerId: string } | { ok: false; code: string; reason: string };

/**
 * The provider id an outbox message is sent under on channels that honour chosen ids (`Channel.chosenIds`):
 * the same for every attempt, so a resend after its owner died mid-send is a no-op at the provider. Shaped
 * like WhatsApp's own ids (as campaigns' are).
 */
export function outboxProviderId(whatsappId: number, messageId: number): string {
  const hash = createHash('sha256').update(`recado-outbox:${whatsappId}:${messageId}`).digest('hex');
  return `3EB0${hash.slice(0, 18).toUpperCase()}`;
}

interface ClaimedRow {
  id: number;
  message_id: number;
  whatsapp_id: number;
  job: OutboundJob;
}

export interface OutboundSenderDeps {
  db: Db;
  media: MediaStore;
  log: { warn(o: object, m: string): void; error(o: object, m: string): void };
  /** This process's sessions: which connections run here, their channels and this process's lease id. */
  sessions: () =>
    { processId: string; runningIds(): number[]; get(whatsappId: number): Channel | undefined } | undefined;
  /** LISTEN (PostgreSQL, PGlite): wakes the drain when another process stored a message for us. */
  listen?: (channel: string, onNotify: (payload: string) => void) => Promise<() => Promise<void>>;
  /** After a send's outcome is recorded on the message: tell the browsers. */
  onDone(messageId: number, outcome: OutboundOutcome): Promise<void>;
  /** Safety-net poll; 2 s without LISTEN, 15 s with it. */
  pollMs?: number;
  /** A claim older than this, by a process that no longer owns the connection, is given up as failed. */
  staleMs?: number;
}

/**
 * The durable outbox. An outbound message is stored with a job row in the same transaction; the process
 * that owns the connection's session (its lease in `whatsapps`) sends it. When the session runs in this
 * process the row is born claimed and sent at once (the HTTP answer says how it went); otherwise it waits
 * as pending, a NOTIFY wakes the owner, and the owner's drain claims it with a conditional UPDATE that
 * also requires the live lease — during a takeover only the process the database names as owner can
 * claim, and a row is claimed once, so nothing is sent twice. Rows still pending when an owner dies are
 * sent by the next owner once it is CONNECTED. A row claimed by an owner that died mid-send: on a channel
 * that honours chosen ids (simulator, Baileys; every attempt uses `outboxProviderId`, so a repeat is a
 * no-op) the next owner sends it again at once, before anything newer; elsewhere it is not sent again (the
 * customer might get it twice): after `staleMs` it is marked failed, visible on the screen.
 */
export function outboundSender(deps: OutboundSenderDeps) {
  const { db, log } = deps;
  const staleMs = deps.staleMs ?? 60_000;
  let timer: NodeJS.Timeout | undefined;
  let unlisten: (() => Promise<void>) | undefined;
  let draining: Promise<number> | null = null;
  let again = false;
  let stopped = true;

  const sendTemplate = (channel: Channel, to: string, template: TemplateSend) => {
    if (!channel.sendTemplate)
      throw new ChannelError('ERR_SENDING_WAPP_MSG', 'This connection cannot send message templates');
    return channel.sendTemplate(to, template);
  };

  const me = () => deps.sessions()?.processId ?? '';

  /** Hands a claimed row to the channel and records the outcome; the row is gone afterwards either way. */
  async function sendClaimed(
    row: ClaimedRow,
    channel: Channel | undefined,
    announce = true,
  ): Promise<
    OutboundOutcome & {
      message?: Pick<typeof messages.$inferSelect, 'ack' | 'providerId' | 'updatedAt' | 'data'>;
    }
  > {
    let outcome: OutboundOutcome;
    /** The channel's own record of the send, written by record()'s statement (the simulator's phone row). */
    let own: OwnWrite | undefined;
    try {
      if (!channel) throw new ChannelError('ERR_WAPP_NOT_INITIALIZED', 'The connection is not running');
      const { job } = row;
      const opts = {
        quotedProviderId: job.quotedProviderId,
        ...(job.forwarded ? { forwarded: true } : {}),
        ...(job.messageTag ? { messageTag: job.messageTag } : {}),
        ...(channel.chosenIds ? { providerId: outboxProviderId(row.whatsapp_id, row.message_id) } : {}),
        stageOwn: true,
      };
      if (job.reaction) {
        // #33.7 A reaction: the message reacted to keeps its id; the outcome lands in its data (record()).
        if (!channel.sendReaction)
          throw new ChannelError('ERR_SENDING_WAPP_MSG', 'This connection cannot send reactions');
        await channel.sendReaction(
          job.to,
          { providerId: job.reaction.targetProviderId, fromMe: job.reaction.targetFromMe },
          job.reaction.emoji,
        );
        outcome = { ok: true, providerId: '' };
      } else {
        const sent = job.template
          ? await sendTemplate(channel, job.to, job.template)
          : job.interactive && channel.sendInteractive && !job.file
            ? await channel.sendInteractive(job.to, job.interactive, opts)
            : job.file
              ? await channel.sendMedia(
                  job.to,
                  {
                    data: await deps.media.read(job.file.path),
                    mimetype: job.file.mimetype,
                    filename: job.file.filename,
                    asVoice: job.file.asVoice,
                    caption: job.body || undefined,
                  },
                  opts,
                )
              : await channel.sendText(job.to, job.body, opts);
        outcome = { ok: true, providerId: sent.providerId };
        own = sent.own;
      }
    } catch (err) {
      outcome = {
        ok: false,
        code: err instanceof ChannelError ? err.code : 'ERR_SENDING_WAPP_MSG',
        reason: err instanceof Error ? err.message : String(err),
      };
    }
    const message = await record(row.id, row.message_id, outcome, announce, Boolean(row.job.reaction), own);
    return { ...outcome, message };
  }

  /**
   * Stores the outcome on the message and removes the outbox row, in one statement (atomic without a
   * transaction); answers what changed on the message. `announce`: onDone tells the browsers.
   */
  async function record(
    queueId: number,
    messageId: number,
    outcome: OutboundOutcome,
    announce = true,
    /** #33.7 The row was a reaction: only the message's `data.myReactionError` says how it went. */
    reaction = false,
    /** The channel's own write of a staged send (SendResult.own), in this statement. */
    own?: OwnWrite,
  ) {
    const set = reaction
      ? outcome.ok
        ? sql`data = coalesce(data, '{}'::jsonb) - 'myReactionError', updated_at = ${new Date()}`
        : sql`data = coalesce(data, '{}'::jsonb) || ${JSON.stringify({ myReactionError: outcome.reason })}::jsonb,
          updated_at = ${new Date()}`
      : outcome.ok
        ? sql`provider_id = ${outcome.providerId}, ack = greatest(ack, 1), updated_at = ${new Date()}`
        : sql`data = coalesce(data, '{}'::jsonb) || ${JSON.stringify({ error: outcome.reason })}::jsonb,
          updated_at = ${new Date()}`;
    type Row = {
      ack: number;
      providerId: string;
      updatedAt: Date | string;
      data: Record<string, unknown> | null;
      own?: unknown;
    };
    let [m] = await executeRows<Row>(
      db,
      own
        ? // The channel's row is written whether or not the message is still there (its seen runs either way).
          sql`with gone as (delete from ${outboundQueue} where id = ${queueId}), own as (${own.cte}),
            upd as (update ${messages} set ${set} where id = ${messageId}
              returning ack, provider_id as "providerId", updated_at as "updatedAt", data)
          select upd.*, (select row_to_json(o) from own o limit 1) as own from (select 1) one left join upd on true`
        : sql`with gone as (delete from ${outboundQueue} where id = ${queueId})
        update ${messages} set ${set} where id = ${messageId}
        returning ack, provider_id as "providerId", updated_at as "updatedAt", data`,
    );
    if (own) {
      const raw = m?.own;
      await Promise.resolve(
        own.seen(
          raw === null || raw === undefined
            ? undefined
            : ((typeof raw === 'string' ? JSON.parse(raw) : raw) as Record<string, unknown>),
        ),
      ).catch((err: unknown) =>
        log.warn({ err, messageId }, "the channel's own write failed after the send"),
      );
      if (m && m.ack === null) m = undefined;
    }
    const message = m && {
      ack: Number(m.ack),
      providerId: m.providerId,
      updatedAt: new Date(m.updatedAt),
      data: (typeof m.data === 'string'
        ? JSON.parse(m.data)
        : m.data) as (typeof messages.$inferSelect)['data'],
    };
    if (announce)
      await deps
        .onDone(messageId, outcome)
        .catch((err) => log.warn({ err, messageId }, 'outbound event failed'));
    return message;
  }

  /**
   * Claims what waits for the connections running here — only while this process holds their lease and
   * they are CONNECTED — and sends it, each connection's messages in the order they were stored.
   */
  async function drainOnce(): Promise<number> {
    const s = deps.sessions();
    const ids = s?.runningIds() ?? [];
    if (!s || !ids.length) return 0;
    const owner = s.processId;
    const idList = sql.join(
      ids.map((id) => sql`${id}::int`),
      sql`, `,
    );
    // Claims of a previous owner (it died or lost the lease mid-send) on channels where a repeat under the
    // same id is a no-op: back to pending, so they are sent again, in order, before anything newer.
    const resendable = ids.filter((id) => s.get(id)?.chosenIds);
    if (resendable.length)
      await db.execute(
        sql`update outbound_queue q set status = 'pending', claimed_by = null, claimed_at = null
          from whatsapps w
          where w.id = q.whatsapp_id and q.status = 'sending' and w.lease_owner = ${owner}
            and q.whatsapp_id in (${sql.join(
              resendable.map((id) => sql`${id}::int`),
              sql`, `,
            )})
            and q.claimed_by is distinct from ${owner}`,
      );
    // Elsewhere a claim that never finished (its owner died mid-send) is given up as failed rather than
    // sent twice.
    const stale = await executeRows<{ id: number; message_id: number; reaction: boolean }>(
      db,
      sql`delete from outbound_queue q using whatsapps w
        where w.id = q.whatsapp_id and q.whatsapp_id in (${idList}) and q.status = 'sending'
          and w.lease_owner = ${owner}
          and q.claimed_at < now() - ${`${staleMs} milliseconds`}::interval
          -- This process's own claims only when far older (a send that never recorded its outcome).
          and (q.claimed_by <> ${owner} or q.claimed_at < now() - ${`${staleMs * 10} milliseconds`}::interval)
        returning q.id, q.message_id, (q.job ? 'reaction') as reaction`,
    );
    for (const r of stale) {
      const reason = 'Interrupted while sending (the connection changed process); not sent again';
      // #33.7 A reaction's failure is the reaction's, never the (maybe the customer's) message's.
      if (r.reaction) {
        await db
          .update(messages)
          .set({
            data: sql`coalesce(${messages.data}, '{}'::jsonb) || ${JSON.stringify({ myReactionError: reason })}::jsonb`,
            updatedAt: new Date(),
          })
          .where(eq(messages.id, Number(r.message_id)));
        await deps.onDone(Number(r.message_id), { ok: false, code: 'ERR_SENDING_WAPP_MSG', reason });
        continue;
      }
      await db
        .update(messages)
        .set({
          data: sql`coalesce(${messages.data}, '{}'::jsonb) || ${JSON.stringify({ error: reason })}::jsonb`,
          updatedAt: new Date(),
        })
        .where(and(eq(messages.id, Number(r.message_id)), eq(messages.ack, 0)));
      await deps.onDone(Number(r.message_id), { ok: false, code: 'ERR_SENDING_WAPP_MSG', reason });
    }
    let sent = 0;
    for (;;) {
      const claimed = await executeRows<ClaimedRow>(
        db,
        sql`update outbound_queue q set status = 'sending', claimed_by = ${owner}, claimed_at = now()
          where q.status = 'pending' and q.id in (
            select q2.id from outbound_queue q2 join whatsapps w on w.id = q2.whatsapp_id
            where q2.status = 'pending' and q2.whatsapp_id in (${idList})
              and w.lease_owner = ${owner} and w.lease_expires_at > now() and w.status = 'CONNECTED'
            order by q2.id limit 50
            for update of q2 skip locked)
          returning q.id, q.message_id, q.whatsapp_id, q.job`,
      );
      if (!claimed.length) return sent;
      const byConnection = new Map<number, ClaimedRow[]>();
      for (const r of claimed.sort((a, b) => Number(a.id) - Number(b.id))) {
        const row = { ...r, id: Number(r.id), message_id: Number(r.message_id) };
        byConnection.set(row.whatsapp_id, [...(byConnection.get(row.whatsapp_id) ?? []), row]);
      }
      await Promise.all(
        [...byConnection].map(async ([whatsappId, rows]) => {
          for (const row of rows) {
            const outcome = await sendClaimed(row, s.get(whatsappId));
            if (outcome.ok) sent++;
          }
        }),
      );
    }
  }

  /** One drain at a time; a wake-up during a drain runs another right after it. */
  function drain(): Promise<number> {
    if (draining) {
      again = true;
      return draining;
    }
    draining = drainOnce()
      .catch((err) => {
        log.error({ err }, 'outbound drain failed');
        return 0;
      })
      .finally(() => {
        draining = null;
        if (again && !stopped) {
          again = false;
          void drain();
        }
      });
    return draining;
  }

  /** `enqueue` for several messages of one connection, in order: one INSERT; their ids in the same order. */
  async function enqueueMany(
    tx: Tx,
    rows: { messageId: number; companyId: number; whatsappId: number; job: OutboundJob }[],
    here: boolean,
  ): Promise<number[]> {
    if (!rows.length) return [];
    const claimedAt = here ? new Date() : null;
    const inserted = await tx
      .insert(outboundQueue)
      .values(
        rows.map((row) => ({
          ...row,
          status: here ? ('sending' as const) : ('pending' as const),
          claimedBy: here ? me() : null,
          claimedAt,
        })),
      )
      .returning({ id: outboundQueue.id, messageId: outboundQueue.messageId });
    if (!here)
      for (const whatsappId of new Set(rows.map((r) => r.whatsappId)))
        await tx.execute(sql`select pg_notify(${OUTBOUND_CHANNEL}, ${String(whatsappId)})`);
    const byMessage = new Map(inserted.map((q) => [q.messageId, q.id]));
    return rows.map((r) => byMessage.get(r.messageId)!);
  }

  return {
    /**
     * In the caller's transaction: the job of a stored message. `here` (the session runs in this process)
     * stores it already claimed, for `sendNow` right after the commit; otherwise it is pending and the
     * owner is woken (NOTIFY is delivered at commit).
     */
    async enqueue(
      tx: Tx,
      row: { messageId: number; companyId: number; whatsappId: number; job: OutboundJob },
      here: boolean,
    ): Promise<number> {
      const [id] = await enqueueMany(tx, [row], here);
      return id!;
    },

    enqueueMany,

    /** Who claims the rows this process stores for its own sessions (`enqueue` with `here`). */
    claimant: () => me(),

    /**
     * Sends a row `enqueue` stored claimed by this process. The caller announces the outcome (onDone is not
     * called): the answer carries the message as the outcome left it.
     */
    async sendNow(queueId: number, row: { messageId: number; whatsappId: number; job: OutboundJob }) {
      return sendClaimed(
        { id: queueId, message_id: row.messageId, whatsapp_id: row.whatsappId, job: row.job },
        deps.sessions()?.get(row.whatsappId),
        false,
      );
    },

    drain,

    /** A connection became CONNECTED here (or a NOTIFY named it): send what waits for it. */
    wake(whatsappId?: number) {
      if (stopped) return;
      if (whatsappId !== undefined && !deps.sessions()?.runningIds().includes(whatsappId)) return;
      void drain();
    },

    async start() {
      stopped = false;
      if (deps.listen)
        unlisten = await deps
          .listen(OUTBOUND_CHANNEL, (payload) => this.wake(Number(payload) || undefined))
          .catch((err) => {
            log.warn({ err }, 'LISTEN unavailable; the outbox is polled');
            return undefined;
          });
      timer = setInterval(() => void drain(), deps.pollMs ?? (unlisten ? 15_000 : 2_000));
      timer.unref();
      void drain();
    },

    async stop() {
      stopped = true;
      if (timer) clearInterval(timer);
      await unlisten?.();
      unlisten = undefined;
      await draining;
    },
  };
}
export type OutboundSender = ReturnType<typeof outboundSender>;
