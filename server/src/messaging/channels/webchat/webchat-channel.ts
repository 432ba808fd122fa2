import { randomUUID } from 'node:crypto';
import { and, eq, inArray } from 'drizzle-orm';
import { WIDGET_EVENTS } from '@recado/contracts';
import type { Db } from '../../../db/client.js';
import { widgetMessages, widgetVisitors } from '../../../db/schema/index.js';
import type { Mailer } from '../../../mail/mailer.js';
import type { MediaStore } from '../../media-store.js';
import { mediaTypeOf } from '../simulator-channel.js';
import {
  ChannelError,
  type Channel,
  type ChannelContext,
  type InboundMessage,
  type OutboundOptions,
  type SendResult,
} from '../../channel.js';
import { readWebchatConfig } from './webchat-config.js';
import { widgetRoom, widgetView, type WebchatWebhook, type WidgetRow } from './webchat-service.js';

/** Visitors whose messages go to the sink at once (each visitor's one at a time, in order). */
const PARALLEL = 16;

export interface WebchatDeps {
  db: Db;
  media: MediaStore;
  mailer: Mailer;
  /** Emits to a room of the /widget namespace, through the adapter that spans processes. */
  emit(room: string, event: string, payload: unknown): void;
  /** For the e-mail replies' wording. */
  log?: { warn(o: object, m: string): void };
}

/**
 * #34.1 The website chat widget's channel (docs/channels.md "Website chat"). Visitors' messages are stored
 * by whichever process took them (widget_messages, undelivered) and handed here, to the connection's owner,
 * through `handleWebhook({type:'deliver'})` (channel-commands.ts); `start()` delivers whatever a failure left
 * behind. Replies are stored and pushed to the visitor's socket room; a visitor who came through the offline
 * form gets them by e-mail as well.
 */
export function webchatChannel(
  ctx: ChannelContext,
  deps: WebchatDeps,
): Channel & {
  handleWebhook(p: unknown): Promise<void>;
} {
  const { whatsappId, companyId, sink } = ctx;
  const { db } = deps;
  const publicId = () => readWebchatConfig(ctx.config).publicId;
  let running = false;
  // Visitor messages on their way to the sink, each visitor's chain, and the sink calls running at once.
  const inFlight = new Set<number>();
  const chains = new Map<string, Promise<void>>();
  let running_ = 0;
  const queue: (() => void)[] = [];
  const slot = async <T>(fn: () => Promise<T>): Promise<T> => {
    if (running_ >= PARALLEL) await new Promise<void>((r) => queue.push(r));
    running_++;
    try {
      return await fn();
    } finally {
      running_--;
      queue.shift()?.();
    }
  };

  const toInbound = (
    r: WidgetRow,
    v: { name: string; email: string; phone: string; pageUrl: string },
  ): InboundMessage => ({
    providerId: r.providerId,
    kind: 'message',
    from: '',
    replyTo: r.visitorId,
    identity: { kind: 'webchat', value: r.visitorId },
    name: v.name || undefined,
    fromMe: false,
    isGroup: false,
    body: r.body,
    mediaType: r.media ? mediaTypeOf(r.media.mimetype) : undefined,
    media: r.media
      ? async () => ({
          mimetype: r.media!.mimetype,
          filename: r.media!.filename,
          data: await deps.media.read(r.media!.path),
        })
      : undefined,
    timestamp: r.createdAt,
    data: { webchat: { email: v.email, phone: v.phone, pageUrl: v.pageUrl } },
  });

  /**
   * Hands every undelivered visitor message of the connection to the sink: each visitor's in order (one chain
   * per visitor), up to PARALLEL sink calls at once. Requests coalesce: one read of the table at a time, and
   * one more after it when requests came meanwhile; rows already on their way are skipped. A row is marked
   * delivered (in batches) once the sink took it; a failure leaves it, and the visitor's later ones, for the
   * next request or start.
   */
  let reading = false;
  let again = false;
  function deliver(): void {
    if (reading) {
      again = true;
      return;
    }
    reading = true;
    void (async () => {
      try {
        do {
          again = false;
          await dispatch();
        } while (again && running);
      } catch (err) {
        deps.log?.warn(
          { err: String(err), whatsappId },
          'webchat delivery failed; retried at the next message',
        );
      } finally {
        reading = false;
      }
    })();
  }

  async function dispatch() {
    const rows = await db
      .select({ m: widgetMessages, v: widgetVisitors })
      .from(widgetMessages)
      .innerJoin(widgetVisitors, eq(widgetVisitors.id, widgetMessages.visitorId))
      .where(
        and(
          eq(widgetMessages.whatsappId, whatsappId),
          eq(widgetMessages.fromVisitor, true),
          eq(widgetMessages.delivered, false),
        ),
      )
      .orderBy(widgetMessages.id)
      .limit(2000);
    const fresh = rows.filter((r) => !inFlight.has(r.m.id));
    for (const r of fresh) inFlight.add(r.m.id);
    const byVisitor = new Map<string, typeof fresh>();
    for (const r of fresh) byVisitor.set(r.m.visitorId, [...(byVisitor.get(r.m.visitorId) ?? []), r]);
    for (const [visitorId, list] of byVisitor) {
      const next = (chains.get(visitorId) ?? Promise.resolve()).then(async () => {
        for (let i = 0; i < list.length; i++) {
          const r = list[i]!;
          const ok = await slot(() => sink.message(toInbound(r.m, r.v))).then(
            () => true,
            (err: unknown) => {
              deps.log?.warn({ err: String(err), whatsappId }, 'webchat message not taken; retried later');
              return false;
            },
          );
          if (!ok) {
            for (const rest of list.slice(i)) inFlight.delete(rest.m.id);
            return;
          }
          mark(r.m.id);
        }
      });
      const settled = next.catch(() => undefined);
      chains.set(visitorId, settled);
      void settled.then(() => {
        if (chains.get(visitorId) === settled) chains.delete(visitorId);
      });
    }
  }

  // Delivered marks, one UPDATE for the rows taken meanwhile (ids leave inFlight once marked).
  let toMark: number[] = [];
  let marking: Promise<void> | null = null;
  function mark(id: number) {
    toMark.push(id);
    if (marking) return;
    marking = (async () => {
      while (toMark.length) {
        const ids = toMark;
        toMark = [];
        await db
          .update(widgetMessages)
          .set({ delivered: true })
          .where(inArray(widgetMessages.id, ids))
          .catch((err: unknown) => deps.log?.warn({ err: String(err) }, 'webchat delivered marks failed'));
        for (const i of ids) inFlight.delete(i);
      }
    })().finally(() => {
      marking = null;
    });
  }

  async function visitor(to: string) {
    const [v] = await db
      .select()
      .from(widgetVisitors)
      .where(and(eq(widgetVisitors.id, to), eq(widgetVisitors.whatsappId, whatsappId)));
    if (!v) throw new ChannelError('ERR_WAPP_INVALID_CONTACT', 'Unknown visitor');
    return v;
  }

  async function reply(
    to: string,
    body: string,
    media: WidgetRow['media'],
    opts?: OutboundOptions,
  ): Promise<SendResult> {
    if (!running) throw new ChannelError('ERR_WAPP_NOT_INITIALIZED');
    const v = await visitor(to);
    const providerId = opts?.providerId ?? `wc-${randomUUID()}`;
    const [row] = await db
      .insert(widgetMessages)
      .values({
        visitorId: v.id,
        companyId,
        whatsappId,
        providerId,
        fromVisitor: false,
        body,
        media,
        delivered: true,
      })
      .onConflictDoNothing()
      .returning();
    if (!row) {
      // Sent before under this id (a resend after a crash): nothing new.
      const [was] = await db
        .select()
        .from(widgetMessages)
        .where(and(eq(widgetMessages.visitorId, v.id), eq(widgetMessages.providerId, providerId)));
      return { providerId, timestamp: was?.createdAt ?? new Date() };
    }
    deps.emit(widgetRoom(whatsappId, v.id), WIDGET_EVENTS.message, widgetView(publicId(), row));
    if (v.offline && v.email) {
      const text = [
        body || (media ? `[${media.filename}]` : ''),
        '',
        v.pageUrl ? `${replyLink(v.language)}: ${v.pageUrl}` : '',
      ]
        .join('\n')
        .trim();
      await deps.mailer.send({ to: v.email, subject: replySubject(v.language), text });
    }
    return { providerId, timestamp: row.createdAt };
  }

  return {
    kind: 'webchat',
    chosenIds: true,
    async start() {
      running = true;
      await sink.state({ status: 'CONNECTED' });
      deliver();
    },
    async stop() {
      running = false;
      await Promise.all(chains.values());
      await marking;
    },
    async logout() {
      running = false;
      await sink.state({ status: 'DISCONNECTED' });
    },
    async handleWebhook(p: unknown) {
      const payload = p as WebchatWebhook;
      // The rows are durable already: the delivery runs on, the caller need not wait for the pipeline.
      if (payload?.type === 'deliver') return deliver();
      if (payload?.type === 'read' && Array.isArray(payload.providerIds))
        for (const providerId of payload.providerIds.slice(0, 50))
          if (typeof providerId === 'string') await sink.ack({ providerId, ack: 3 });
    },
    sendText: (to, body, opts) => reply(to, body, null, opts),
    async sendMedia(to, media, opts) {
      const path = await deps.media.save(companyId, media.data, media.filename, 'widget');
      return reply(
        to,
        media.caption ?? '',
        { path, mimetype: media.mimetype, filename: media.filename, size: media.data.length },
        opts,
      );
    },
    /** The agent read the visitor's messages: the widget shows them read. */
    async markRead(to, providerIds) {
      if (!providerIds.length) return;
      const rows = await db
        .update(widgetMessages)
        .set({ readAt: new Date() })
        .where(
          and(
            eq(widgetMessages.visitorId, to),
            eq(widgetMessages.whatsappId, whatsappId),
            inArray(widgetMessages.providerId, providerIds),
          ),
        )
        .returning({ providerId: widgetMessages.providerId });
      if (rows.length)
        deps.emit(widgetRoom(whatsappId, to), WIDGET_EVENTS.read, {
          ids: rows.map((r) => r.providerId),
          fromVisitor: true,
        });
    },
    async deleteMessage() {
      throw new ChannelError('ERR_DELETE_WAPP_MSG', 'The website chat cannot delete messages');
    },
    async checkNumber() {
      return { exists: false };
    },
    async profilePicture() {
      return null;
    },
  };
}

const lang = (l: string) => (l.startsWith('en') ? 'en' : l.startsWith('es') ? 'es' : 'pt');
const replySubject = (l: string) =>
  ({ pt: 'Resposta à sua mensagem', en: 'Reply to your message', es: 'Respuesta a su mensaje' })[lang(l)];
const replyLink = (l: string) =>
  ({ pt: 'Continue a conversa em', en: 'Continue the conversation at', es: 'Continúe la conversación en' })[
    lang(l)
  ];
