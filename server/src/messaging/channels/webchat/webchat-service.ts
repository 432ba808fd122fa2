import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { and, asc, eq, gt, inArray, isNull, sql } from 'drizzle-orm';
import type { WidgetConfigView, WidgetMessageView, WidgetVisitorInput } from '@recado/contracts';
import { WIDGET_EVENTS } from '@recado/contracts';
import type { Db } from '../../../db/client.js';
import {
  users,
  whatsapps,
  widgetMessages,
  widgetVisitors,
  type WidgetMedia,
} from '../../../db/schema/index.js';
import { AppError } from '../../../http/errors.js';
import type { MediaStore } from '../../media-store.js';
import { originAllowed, readWebchatConfig } from './webchat-config.js';

/** Limits of the widget (docs/channels.md "Website chat"). */
export const WIDGET_LIMITS = {
  /** Characters of one message. */
  messageChars: 2000,
  /** Bytes of one file. */
  fileBytes: 10 * 1024 * 1024,
  /** Messages (texts and files) one visitor may send in a minute. */
  perMinute: 20,
};

/** Files a visitor may send: pictures, PDFs, plain text, office documents, audio and video. */
export const WIDGET_FILE_TYPES =
  /^(image\/(png|jpeg|gif|webp)|application\/pdf|text\/plain|audio\/[\w.+-]+|video\/(mp4|webm)|application\/(msword|vnd\.openxmlformats-officedocument\.[\w.+-]+|vnd\.ms-excel|zip))$/;

export type WidgetRow = typeof widgetMessages.$inferSelect;
export type VisitorRow = typeof widgetVisitors.$inferSelect;

export interface Widget {
  whatsappId: number;
  companyId: number;
  config: ReturnType<typeof readWebchatConfig>;
}

/** The socket room of one visitor's conversation (namespace /widget). */
export const widgetRoom = (whatsappId: number, visitorId: string) => `widget-${whatsappId}-${visitorId}`;

export const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');

/** A message as the widget shows it; files are fetched with the visitor's token. */
export const widgetView = (publicId: string, r: WidgetRow): WidgetMessageView => ({
  id: r.providerId,
  fromVisitor: r.fromVisitor,
  body: r.body,
  media: r.media
    ? {
        url: `/api/widget/${publicId}/files/${encodeURIComponent(r.providerId)}`,
        mimetype: r.media.mimetype,
        filename: r.media.filename,
        size: r.media.size,
      }
    : null,
  read: Boolean(r.readAt),
  createdAt: r.createdAt.toISOString(),
});

export interface WidgetServiceDeps {
  db: Db;
  media: MediaStore;
  /** Tells the connection's channel, wherever it runs, that visitor messages wait (channel-commands `webhook`). */
  notifyChannel(whatsappId: number, payload: WebchatWebhook): Promise<void>;
  /** Emits to a room of the /widget namespace (through the adapter: reaches every process). */
  emit(room: string, event: string, payload: unknown): void;
  /** To the attendants watching the visitor's ticket (typing). */
  visitorTyping?(widget: Widget, visitorId: string, typing: boolean): Promise<void>;
  log?: { warn(o: object, m: string): void };
}

/** What a process hands the connection's owner (the channel's `handleWebhook`). */
export type WebchatWebhook = { type: 'deliver' } | { type: 'read'; providerIds: string[] };

export function widgetService(deps: WidgetServiceDeps) {
  const { db } = deps;

  async function widget(publicId: string): Promise<Widget | undefined> {
    if (!/^wc_[\w-]{6,40}$/.test(publicId)) return undefined;
    const [w] = await db
      .select({ id: whatsapps.id, companyId: whatsapps.companyId, config: whatsapps.channelConfig })
      .from(whatsapps)
      .where(
        and(eq(whatsapps.channel, 'webchat'), sql`${whatsapps.channelConfig}->>'publicId' = ${publicId}`),
      );
    return w ? { whatsappId: w.id, companyId: w.companyId, config: readWebchatConfig(w.config) } : undefined;
  }

  /** The widget of a page: 404 for an unknown id, 403 for a page whose origin is not allowed (before any data). */
  async function widgetFor(publicId: string, origin: string | undefined): Promise<Widget> {
    const w = await widget(publicId);
    if (!w) throw new AppError('ERR_NO_WAPP_FOUND', 404, 'Unknown widget');
    if (!originAllowed(w.config, origin))
      throw new AppError('ERR_NO_PERMISSION', 403, 'This page may not use this widget');
    return w;
  }

  /** Some attendant of the company is online (modules/presence). */
  async function online(companyId: number): Promise<boolean> {
    const [u] = await db
      .select({ id: users.id })
      .from(users)
      .where(and(eq(users.companyId, companyId), eq(users.presence, 'online')))
      .limit(1);
    return Boolean(u);
  }

  async function configView(w: Widget): Promise<WidgetConfigView> {
    const c = w.config;
    return {
      publicId: c.publicId,
      color: c.color,
      position: c.position,
      title: c.title,
      greeting: c.greeting,
      preChatForm: c.preChatForm,
      preChatContact: c.preChatContact,
      consentText: c.consentText,
      offlineForm: c.offlineForm,
      online: await online(w.companyId),
      limits: { ...WIDGET_LIMITS },
    };
  }

  async function visitorOf(w: Widget, token: string | undefined): Promise<VisitorRow> {
    const [v] = token
      ? await db
          .select()
          .from(widgetVisitors)
          .where(
            and(eq(widgetVisitors.tokenHash, hashToken(token)), eq(widgetVisitors.whatsappId, w.whatsappId)),
          )
      : [];
    if (!v) throw new AppError('ERR_SESSION_EXPIRED', 401, 'Unknown visitor');
    return v;
  }

  const checkText = (body: string) => {
    if (!body.trim()) throw new AppError('ERR_VALIDATION', 400, 'Empty message');
    if (body.length > WIDGET_LIMITS.messageChars)
      throw new AppError('ERR_VALIDATION', 400, `Messages up to ${WIDGET_LIMITS.messageChars} characters`);
  };

  /** More than `perMinute` messages in the last minute: 429 (counted in the database: every process agrees). */
  async function checkRate(v: VisitorRow) {
    const [row] = await db
      .select({ n: sql<number>`count(*)::int` })
      .from(widgetMessages)
      .where(
        and(
          eq(widgetMessages.visitorId, v.id),
          eq(widgetMessages.fromVisitor, true),
          gt(widgetMessages.createdAt, sql`now() - interval '1 minute'`),
        ),
      );
    if ((row?.n ?? 0) >= WIDGET_LIMITS.perMinute)
      throw new AppError('ERR_RATE_LIMITED', 429, `At most ${WIDGET_LIMITS.perMinute} messages a minute`);
  }

  /** Hands the stored message to the channel; a failure leaves it undelivered for the channel's next start. */
  async function deliver(w: Widget) {
    await deps
      .notifyChannel(w.whatsappId, { type: 'deliver' })
      .catch((err: unknown) =>
        deps.log?.warn(
          { err: String(err), whatsappId: w.whatsappId },
          'webchat message waits for its channel',
        ),
      );
  }

  async function store(w: Widget, v: VisitorRow, body: string, media: WidgetMedia | null) {
    const [row] = await db
      .insert(widgetMessages)
      .values({
        visitorId: v.id,
        companyId: w.companyId,
        whatsappId: w.whatsappId,
        providerId: `wc-${randomUUID()}`,
        fromVisitor: true,
        body,
        media,
      })
      .returning();
    // The visitor's other tabs and pages show it too.
    deps.emit(widgetRoom(w.whatsappId, v.id), WIDGET_EVENTS.message, widgetView(w.config.publicId, row!));
    await deliver(w);
    return widgetView(w.config.publicId, row!);
  }

  return {
    widget,
    widgetFor,
    configView,
    visitorOf,
    online,

    async createVisitor(w: Widget, input: WidgetVisitorInput) {
      const c = w.config;
      if (input.offline) {
        if (!c.offlineForm) throw new AppError('ERR_VALIDATION', 400, 'This widget has no offline form');
        if (!input.email) throw new AppError('ERR_VALIDATION', 400, 'An e-mail is required');
        checkText(input.message);
      } else if (c.preChatForm) {
        const contact =
          c.preChatContact === 'email'
            ? input.email
            : c.preChatContact === 'phone'
              ? input.phone
              : input.email || input.phone;
        if (!input.name || !contact)
          throw new AppError('ERR_VALIDATION', 400, 'Name and contact are required');
        if (c.consentText && !input.consent) throw new AppError('ERR_VALIDATION', 400, 'Consent is required');
      }
      const token = randomBytes(32).toString('base64url');
      const [v] = await db
        .insert(widgetVisitors)
        .values({
          id: `v_${randomBytes(16).toString('base64url')}`,
          companyId: w.companyId,
          whatsappId: w.whatsappId,
          tokenHash: hashToken(token),
          name: input.name,
          email: input.email,
          phone: input.phone,
          consentAt: input.consent ? new Date() : null,
          offline: input.offline,
          pageUrl: input.pageUrl,
          language: input.language,
        })
        .returning();
      if (input.offline) await store(w, v!, input.message, null);
      return { visitorId: v!.id, visitorToken: token };
    },

    async history(w: Widget, v: VisitorRow) {
      const rows = await db
        .select()
        .from(widgetMessages)
        .where(eq(widgetMessages.visitorId, v.id))
        .orderBy(asc(widgetMessages.createdAt), asc(widgetMessages.id))
        .limit(500);
      return rows.map((r) => widgetView(w.config.publicId, r));
    },

    async sendText(w: Widget, v: VisitorRow, body: string) {
      checkText(body);
      await checkRate(v);
      return store(w, v, body, null);
    },

    async sendFile(w: Widget, v: VisitorRow, file: { filename: string; mimetype: string; data: Buffer }) {
      await checkRate(v);
      const path = await deps.media.save(w.companyId, file.data, file.filename, 'widget');
      return store(w, v, '', {
        path,
        mimetype: file.mimetype,
        filename: file.filename,
        size: file.data.length,
      });
    },

    /** The visitor saw the agents' messages: marked read, and the ticket's messages get read acks. */
    async seen(w: Widget, v: VisitorRow) {
      const rows = await db
        .update(widgetMessages)
        .set({ readAt: new Date() })
        .where(
          and(
            eq(widgetMessages.visitorId, v.id),
            eq(widgetMessages.fromVisitor, false),
            isNull(widgetMessages.readAt),
          ),
        )
        .returning({ providerId: widgetMessages.providerId });
      const ids = rows.map((r) => r.providerId);
      if (!ids.length) return 0;
      deps.emit(widgetRoom(w.whatsappId, v.id), WIDGET_EVENTS.read, { ids, fromVisitor: false });
      // NOTIFY payloads are short: a few ids at a time.
      for (let i = 0; i < ids.length; i += 50)
        await deps
          .notifyChannel(w.whatsappId, { type: 'read', providerIds: ids.slice(i, i + 50) })
          .catch((err: unknown) => deps.log?.warn({ err: String(err) }, 'webchat read marks not passed on'));
      return ids.length;
    },

    async typing(w: Widget, v: VisitorRow, typing: boolean) {
      await deps.visitorTyping?.(w, v.id, typing);
    },

    /** A file of the visitor's own conversation. */
    async file(w: Widget, v: VisitorRow, providerId: string) {
      const [r] = await db
        .select()
        .from(widgetMessages)
        .where(and(eq(widgetMessages.visitorId, v.id), eq(widgetMessages.providerId, providerId)));
      if (!r?.media || !deps.media.belongsTo(r.media.path, w.companyId))
        throw new AppError('ERR_NO_FILE_FOUND', 404);
      return { ...r.media, data: await deps.media.read(r.media.path) };
    },

    /** Rows of visitor messages not yet handed to the pipeline (the channel's side). */
    undelivered: (whatsappId: number, limit = 500) =>
      db
        .select()
        .from(widgetMessages)
        .where(
          and(
            eq(widgetMessages.whatsappId, whatsappId),
            eq(widgetMessages.fromVisitor, true),
            eq(widgetMessages.delivered, false),
          ),
        )
        .orderBy(asc(widgetMessages.id))
        .limit(limit),
    markDelivered: async (ids: number[]) => {
      if (ids.length)
        await db.update(widgetMessages).set({ delivered: true }).where(inArray(widgetMessages.id, ids));
    },
  };
}
export type WidgetService = ReturnType<typeof widgetService>;
