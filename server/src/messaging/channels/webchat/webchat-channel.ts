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
  // One delivery at a time; a request during one runs another right after (it may hold newer rows).
  let delivering: Promise<void> | null = null;
  let again = false;

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

  async function deliverOnce(): Promise<void> {
    for (;;) {
      const rows = await db
        .select()
        .from(widgetMessages)
        .where(
          and(
            eq(widgetMessages.whatsappId, whatsappId),
            eq(widgetMessages.fromVisitor, true),
            eq(widgetMessages.delivered, false),
          ),
        )
        .orderBy(widgetMessages.id)
        .limit(200);
      if (!rows.length) return;
      const visitorIds = [...new Set(rows.map((r) => r.visitorId))];
      const visitors = new Map(
        (await db.select().from(widgetVisitors).where(inArray(widgetVisitors.id, visitorIds))).map((v) => [
          v.id,
          v,
        ]),
      );
      const ms = rows.map((r) => toInbound(r, visitors.get(r.visitorId)!));
      let taken: boolean[];
      if (sink.messages) taken = await sink.messages(ms);
      else {
        taken = [];
        for (const m of ms)
          taken.push(
            await sink.message(m).then(
              () => true,
              () => false,
            ),
          );
      }
      const done = rows.filter((_, i) => taken[i]).map((r) => r.id);
      if (done.length)
        await db.update(widgetMessages).set({ delivered: true }).where(inArray(widgetMessages.id, done));
      // Failures stay undelivered (the next request or start takes them); never loop on them now.
      if (done.length < rows.length || rows.length < 200) return;
    }
  }

  function deliver(): Promise<void> {
    if (delivering) {
      again = true;
      return delivering;
    }
    const run = async () => {
      do {
        again = false;
        await deliverOnce();
      } while (again);
    };
    delivering = run().finally(() => {
      delivering = null;
    });
    return delivering;
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
      void deliver().catch((err: unknown) => deps.log?.warn({ err: String(err) }, 'webchat delivery failed'));
    },
    async stop() {
      running = false;
      await delivering?.catch(() => undefined);
    },
    async logout() {
      running = false;
      await sink.state({ status: 'DISCONNECTED' });
    },
    async handleWebhook(p: unknown) {
      const payload = p as WebchatWebhook;
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
