import type { SecretBox } from '../../../lib/crypto.js';
import {
  ChannelError,
  type Channel,
  type ChannelContext,
  type MediaPayload,
  type OutboundOptions,
  type SendResult,
} from '../../channel.js';
import { openTelegramConfig, TelegramConfigError, type TelegramOpenConfig } from './telegram-config.js';
import {
  TelegramApiError,
  telegramClient,
  type TelegramClient,
  type TelegramSentMessage,
} from './telegram-client.js';
import { messageIdOf, parseUpdate, providerIdOf } from './telegram-updates.js';
import { startRetries } from '../start-retries.js';

/**
 * A Telegram bot as a Channel (docs/channels.md "Telegram"). Starting checks the token (getMe) and points the
 * bot's webhook at this install (`<PUBLIC_URL>/api/webhooks/telegram/<connection id>`, with the connection's
 * secret token); updates come in through that route (telegram-routes.ts) to handleWebhook; replies go out
 * through the Bot API to the customer's chat id (the contact's 'telegram' identity).
 */
export type TelegramContext = ChannelContext & {
  box: SecretBox;
  /** TELEGRAM_API_URL. */
  apiUrl: string;
  /** PUBLIC_URL: where Telegram reaches this install. */
  publicUrl: string;
  /** First wait before asking an unreachable Bot API again (doubles up to 5 minutes). */
  retryMs?: number;
};

export interface TelegramChannel extends Channel {
  readonly kind: 'telegram';
  /** Feeds one verified update into the sink. */
  handleWebhook(payload: unknown): Promise<void>;
}

/** Why a connection is not running (web: connections.reason.*). */
type Reason = 'config_invalid' | 'token_rejected' | 'webhook_refused' | 'telegram_unreachable' | 'logged_out';

/** Telegram's limits: a text message, a caption. */
const TEXT_MAX = 4096;
const CAPTION_MAX = 1024;

/** Long texts go as several messages of at most TEXT_MAX characters. */
const pieces = (text: string): string[] => {
  const out: string[] = [];
  for (let rest = text; rest.length;) {
    let cut = rest.length <= TEXT_MAX ? rest.length : rest.lastIndexOf('\n', TEXT_MAX);
    if (cut < TEXT_MAX / 2) cut = Math.min(rest.length, TEXT_MAX);
    out.push(rest.slice(0, cut));
    rest = rest.slice(cut).replace(/^\n/, '');
  }
  return out.length ? out : [''];
};

const fileMethod = (media: MediaPayload & { asVoice?: boolean }) => {
  const mime = media.mimetype.toLowerCase();
  if (media.asVoice) return { method: 'sendVoice', field: 'voice' } as const;
  if (/^image\/(jpeg|png|webp)$/.test(mime)) return { method: 'sendPhoto', field: 'photo' } as const;
  if (mime === 'video/mp4') return { method: 'sendVideo', field: 'video' } as const;
  if (mime === 'audio/ogg' || mime === 'audio/opus') return { method: 'sendVoice', field: 'voice' } as const;
  if (mime === 'audio/mpeg' || mime === 'audio/mp4') return { method: 'sendAudio', field: 'audio' } as const;
  return { method: 'sendDocument', field: 'document' } as const;
};

export const telegramChannel = (ctx: TelegramContext): TelegramChannel => {
  let api: TelegramClient | undefined;
  const retries = startRetries(ctx.sink, ctx.retryMs);
  const disconnected = (reason: Reason, detail?: string) => {
    api = undefined;
    return retries.disconnected(reason, detail);
  };
  const ready = (): TelegramClient => {
    if (!api) throw new ChannelError('ERR_WAPP_NOT_INITIALIZED', 'Telegram connection not started');
    return api;
  };
  const chat = (to: string): string => {
    if (!/^-?\d{1,20}$/.test(to))
      throw new ChannelError('ERR_WAPP_INVALID_CONTACT', 'No Telegram chat to send to');
    return to;
  };
  const sent = (m: TelegramSentMessage, to: string): SendResult => ({
    providerId: providerIdOf(m.chat?.id ?? to, m.message_id),
    timestamp: new Date((m.date || Date.now() / 1000) * 1000),
  });
  const quoted = (opts?: OutboundOptions) =>
    opts?.quotedProviderId ? (messageIdOf(opts.quotedProviderId) ?? undefined) : undefined;
  /** Telegram's refusals as the outbox's failures (its words, never the token). */
  const sending = async <T>(run: () => Promise<T>): Promise<T> => {
    try {
      return await run();
    } catch (err) {
      if (err instanceof ChannelError) throw err;
      throw new ChannelError('ERR_SENDING_WAPP_MSG', (err as Error).message);
    }
  };

  const channel: TelegramChannel = {
    kind: 'telegram',

    async start() {
      retries.begin();
      let cfg: TelegramOpenConfig;
      try {
        cfg = openTelegramConfig(ctx.config, ctx.box);
      } catch (err) {
        if (err instanceof TelegramConfigError) return disconnected('config_invalid', err.reason);
        throw err;
      }
      const client = telegramClient({ apiUrl: ctx.apiUrl, token: cfg.botToken });
      let me: Awaited<ReturnType<TelegramClient['getMe']>> | undefined;
      try {
        me = await client.getMe();
        await client.setWebhook(
          `${ctx.publicUrl.replace(/\/+$/, '')}/api/webhooks/telegram/${ctx.whatsappId}`,
          cfg.webhookSecret,
        );
      } catch (err) {
        if (err instanceof TelegramApiError && err.status >= 400 && err.status < 500 && err.status !== 429) {
          // 401/404: the token is wrong or revoked; 400 on setWebhook: Telegram refuses the URL (it wants
          // HTTPS on 443, 80, 88 or 8443).
          return disconnected(me ? 'webhook_refused' : 'token_rejected', err.message);
        }
        return retries.later('telegram_unreachable', err, () => channel.start());
      }
      if (retries.stopped) return;
      retries.connected();
      api = client;
      await ctx.sink.state({ status: 'CONNECTED', ...(me?.username ? { number: `@${me.username}` } : {}) });
    },

    async stop() {
      // The webhook stays: the process taking the connection over points it at the same URL.
      retries.stop();
      api = undefined;
    },

    async logout() {
      const client = api;
      if (client) await client.deleteWebhook().catch(() => undefined);
      await disconnected('logged_out');
    },

    async sendText(to: string, body: string, opts?: OutboundOptions): Promise<SendResult> {
      const t = ready();
      const id = chat(to);
      let first: SendResult | undefined;
      for (const [i, piece] of pieces(body).entries()) {
        const r = sent(await sending(() => t.sendMessage(id, piece, i === 0 ? quoted(opts) : undefined)), id);
        first ??= r;
      }
      return first!;
    },

    async sendMedia(to, media, opts): Promise<SendResult> {
      const t = ready();
      const id = chat(to);
      const { method, field } = fileMethod(media);
      const caption = media.caption?.trim() ?? '';
      // A caption over Telegram's limit follows as its own message rather than being cut.
      const fits = caption.length <= CAPTION_MAX && method !== 'sendVoice';
      const r = sent(
        await sending(() => t.sendFile(method, field, id, media, fits ? caption : undefined, quoted(opts))),
        id,
      );
      if (caption && !fits) await channel.sendText(id, caption);
      return r;
    },

    // Telegram has no read receipts for bots.
    async markRead() {},

    async deleteMessage(to: string, providerId: string) {
      const messageId = messageIdOf(providerId);
      if (messageId === null) throw new ChannelError('ERR_DELETE_WAPP_MSG', 'Not a Telegram message');
      try {
        await ready().deleteMessage(chat(to), messageId);
      } catch (err) {
        throw new ChannelError('ERR_DELETE_WAPP_MSG', (err as Error).message);
      }
    },

    async editMessage(to: string, providerId: string, body: string) {
      const messageId = messageIdOf(providerId);
      if (messageId === null) throw new ChannelError('ERR_SENDING_WAPP_MSG', 'Not a Telegram message');
      await sending(() => ready().editMessageText(chat(to), messageId, body));
    },

    // Telegram users have no phone number a bot could look up.
    async checkNumber() {
      return { exists: false };
    },

    async profilePicture() {
      return null;
    },

    async handleWebhook(payload: unknown): Promise<void> {
      const t = ready();
      for (const m of parseUpdate(payload, (fileId) => t.download(fileId))) await ctx.sink.message(m);
    },
  };
  return channel;
};
