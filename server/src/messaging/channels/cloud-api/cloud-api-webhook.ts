import { createHmac, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import { normalizeNumber } from '@recado/contracts';
import {
  ChannelError,
  sourceFromUrl,
  type AckUpdate,
  type InboundMessage,
  type InboundReferral,
  type MediaType,
} from '../../channel.js';
import { extensionFor } from './graph-client.js';
import { truncate } from '../../../lib/text.js';

/** Pure functions over what Meta sends to the webhook: the handshake, the signature and the payload. */

/** The hub.challenge handshake Meta performs when the webhook URL is saved: the challenge, or null. */
export function verifyChallenge(query: unknown, verifyToken: string): string | null {
  const q = (query ?? {}) as Record<string, unknown>;
  const mode = q['hub.mode'];
  const token = q['hub.verify_token'];
  const challenge = q['hub.challenge'];
  if (mode !== 'subscribe' || typeof token !== 'string' || typeof challenge !== 'string') return null;
  if (!verifyToken || !safeEqual(Buffer.from(token), Buffer.from(verifyToken))) return null;
  return challenge;
}

/** X-Hub-Signature-256: `sha256=` + hex HMAC-SHA256 of the raw body with the app secret. */
export function checkSignature(rawBody: Buffer, header: string | undefined, appSecret: string): boolean {
  if (!header || !appSecret) return false;
  const m = /^sha256=([0-9a-f]{64})$/i.exec(header.trim());
  if (!m) return false;
  const expected = createHmac('sha256', appSecret).update(rawBody).digest();
  return safeEqual(Buffer.from(m[1]!, 'hex'), expected);
}

function safeEqual(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

/** An ack as this channel reports it: a failed send carries Meta's error in `data`. */
export type CloudAckUpdate = AckUpdate & { data?: { error: CloudSendError } };
export interface CloudSendError {
  code?: number;
  title?: string;
  message?: string;
  details?: string;
}

export interface ParsedWebhook {
  messages: InboundMessage[];
  acks: CloudAckUpdate[];
}

export interface ParseOptions {
  /** Only changes for this phone number are kept (one Meta app may serve several numbers and companies). */
  phoneNumberId?: string;
  /** Fetches a media object by its id (the graph client's downloadMedia). */
  downloadMedia?: (mediaId: string) => Promise<{ data: Buffer; mimetype: string }>;
}

const WaError = z.object({
  code: z.number().optional(),
  title: z.string().optional(),
  message: z.string().optional(),
  error_data: z.object({ details: z.string().optional() }).optional(),
});
const WaMedia = z.object({
  id: z.string().min(1),
  mime_type: z.string().optional(),
  sha256: z.string().optional(),
  caption: z.string().optional(),
  filename: z.string().optional(),
  voice: z.boolean().optional(),
  animated: z.boolean().optional(),
});
const WaContactCard = z.object({
  name: z
    .object({
      formatted_name: z.string().optional(),
      first_name: z.string().optional(),
      last_name: z.string().optional(),
      middle_name: z.string().optional(),
      prefix: z.string().optional(),
      suffix: z.string().optional(),
    })
    .optional(),
  org: z
    .object({
      company: z.string().optional(),
      department: z.string().optional(),
      title: z.string().optional(),
    })
    .optional(),
  phones: z
    .array(
      z.object({ phone: z.string().optional(), wa_id: z.string().optional(), type: z.string().optional() }),
    )
    .optional(),
  emails: z.array(z.object({ email: z.string().optional(), type: z.string().optional() })).optional(),
  urls: z.array(z.object({ url: z.string().optional(), type: z.string().optional() })).optional(),
  birthday: z.string().optional(),
});
type WaContactCard = z.infer<typeof WaContactCard>;

const WaMessage = z.object({
  id: z.string().min(1),
  from: z.string().min(1),
  timestamp: z.string().optional(),
  type: z.string(),
  context: z
    .object({
      id: z.string().optional(),
      from: z.string().optional(),
      forwarded: z.boolean().optional(),
      frequently_forwarded: z.boolean().optional(),
    })
    .optional(),
  text: z.object({ body: z.string() }).optional(),
  image: WaMedia.optional(),
  audio: WaMedia.optional(),
  video: WaMedia.optional(),
  document: WaMedia.optional(),
  sticker: WaMedia.optional(),
  location: z
    .object({
      latitude: z.number(),
      longitude: z.number(),
      name: z.string().optional(),
      address: z.string().optional(),
      url: z.string().optional(),
    })
    .optional(),
  contacts: z.array(WaContactCard).optional(),
  reaction: z.object({ message_id: z.string(), emoji: z.string().optional() }).optional(),
  interactive: z
    .object({
      type: z.string(),
      button_reply: z.object({ id: z.string(), title: z.string() }).optional(),
      list_reply: z
        .object({ id: z.string(), title: z.string(), description: z.string().optional() })
        .optional(),
      nfm_reply: z
        .object({
          name: z.string().optional(),
          body: z.string().optional(),
          response_json: z.string().optional(),
        })
        .optional(),
    })
    .optional(),
  button: z.object({ text: z.string(), payload: z.string().optional() }).optional(),
  order: z.object({ text: z.string().optional() }).loose().optional(),
  referral: z.record(z.string(), z.unknown()).optional(),
  errors: z.array(WaError).optional(),
});
type WaMessage = z.infer<typeof WaMessage>;

const WaStatus = z.object({
  id: z.string().min(1),
  status: z.string(),
  timestamp: z.string().optional(),
  recipient_id: z.string().optional(),
  errors: z.array(WaError).optional(),
});

const WaValue = z.object({
  metadata: z.object({ phone_number_id: z.string() }).loose().optional(),
  contacts: z
    .array(
      z.object({
        wa_id: z.string().optional(),
        profile: z.object({ name: z.string().optional() }).optional(),
      }),
    )
    .optional(),
  messages: z.array(z.unknown()).optional(),
  statuses: z.array(z.unknown()).optional(),
});

/** What Meta posts to the webhook (exported for the OpenAPI document). */
export const CloudApiWebhookPayload = z.object({
  object: z.literal('whatsapp_business_account'),
  entry: z.array(
    z.object({
      changes: z.array(z.object({ field: z.string(), value: z.unknown() })).default([]),
    }),
  ),
});

const ACKS: Record<string, number> = { sent: 1, delivered: 2, read: 3, played: 4, failed: 0 };

/** Message types that carry nothing for an attendant (the first-open "welcome" request, number changes). */
const SKIPPED_TYPES = new Set(['system', 'request_welcome']);

/** Meta's wa_id always carries the country code: the + keeps normalizeNumber from adding Brazil's 55. */
export const waIdToNumber = (waId: string): string => normalizeNumber(`+${waId}`);

/**
 * Turns one webhook delivery into the channel's messages and acks, in Meta's order.
 * Malformed items are skipped one by one; nothing here throws on what Meta (or anyone) posts.
 */
export function parseWebhook(payload: unknown, opts: ParseOptions = {}): ParsedWebhook {
  const out: ParsedWebhook = { messages: [], acks: [] };
  const parsed = CloudApiWebhookPayload.safeParse(payload);
  if (!parsed.success) return out;
  for (const entry of parsed.data.entry) {
    for (const change of entry.changes) {
      if (change.field !== 'messages') continue;
      const value = WaValue.safeParse(change.value);
      if (!value.success) continue;
      const v = value.data;
      if (opts.phoneNumberId && v.metadata?.phone_number_id !== opts.phoneNumberId) continue;
      const names = new Map<string, string>();
      for (const c of v.contacts ?? []) if (c.wa_id && c.profile?.name) names.set(c.wa_id, c.profile.name);
      for (const raw of v.messages ?? []) {
        const m = WaMessage.safeParse(raw);
        if (!m.success) continue;
        const msg = toInbound(m.data, names.get(m.data.from), opts);
        if (msg) out.messages.push(msg);
      }
      for (const raw of v.statuses ?? []) {
        const s = WaStatus.safeParse(raw);
        if (!s.success) continue;
        const ack = ACKS[s.data.status];
        if (ack === undefined) continue;
        if (ack === 0) {
          const e = s.data.errors?.[0];
          out.acks.push({
            providerId: s.data.id,
            ack,
            data: {
              error: {
                ...(e?.code !== undefined ? { code: e.code } : {}),
                ...(e?.title ? { title: e.title } : {}),
                ...(e?.message ? { message: e.message } : {}),
                ...(e?.error_data?.details ? { details: e.error_data.details } : {}),
              },
            },
          });
        } else out.acks.push({ providerId: s.data.id, ack });
      }
    }
  }
  return out;
}

function toDate(ts: string | undefined): Date {
  const n = Number(ts);
  return Number.isFinite(n) && n > 0 ? new Date(n * 1000) : new Date();
}

function toInbound(m: WaMessage, name: string | undefined, opts: ParseOptions): InboundMessage | null {
  if (SKIPPED_TYPES.has(m.type)) return null;
  const digits = m.from.replace(/\D/g, '');
  if (!digits) return null;
  const base: InboundMessage = {
    providerId: m.id,
    kind: 'message',
    from: waIdToNumber(digits),
    // Answer to the id Meta gave: for Brazilian numbers it may lack the ninth digit, and Meta routes by it.
    replyTo: digits,
    ...(name ? { name } : {}),
    fromMe: false,
    isGroup: false,
    body: '',
    ...(m.context?.id ? { quotedProviderId: m.context.id } : {}),
    timestamp: toDate(m.timestamp),
  };
  const data: Record<string, unknown> = {};
  if (m.context?.forwarded || m.context?.frequently_forwarded) data.forwarded = true;
  if (m.referral) data.referral = m.referral;
  const referral = m.referral ? toReferral(m.referral) : undefined;
  const withData = (msg: InboundMessage): InboundMessage => {
    const out = Object.keys(data).length || msg.data ? { ...msg, data: { ...data, ...msg.data } } : msg;
    return referral ? { ...out, referral } : out;
  };

  switch (m.type) {
    case 'text':
      return withData({ ...base, body: m.text?.body ?? '' });
    case 'image':
    case 'audio':
    case 'video':
    case 'document':
    case 'sticker': {
      const media = m[m.type];
      if (!media) break;
      const mediaType: MediaType = m.type === 'document' ? 'application' : m.type;
      return withData({
        ...base,
        body: media.caption ?? (m.type === 'document' ? (media.filename ?? '') : ''),
        mediaType,
        media: lazyMedia(media, opts),
        data: {
          mediaId: media.id,
          ...(media.mime_type ? { mimetype: media.mime_type } : {}),
          ...(media.voice ? { voice: true } : {}),
          ...(media.animated ? { animated: true } : {}),
        },
      });
    }
    case 'location': {
      const l = m.location;
      if (!l) break;
      const maps = `https://maps.google.com/maps?q=${l.latitude}%2C${l.longitude}&z=17`;
      return withData({
        ...base,
        body: [l.name, l.address, maps].filter(Boolean).join('\n'),
        mediaType: 'locationMessage',
        data: {
          latitude: l.latitude,
          longitude: l.longitude,
          ...(l.name ? { name: l.name } : {}),
          ...(l.address ? { address: l.address } : {}),
        },
      });
    }
    case 'contacts': {
      const cards = m.contacts ?? [];
      if (!cards.length) break;
      return withData({
        ...base,
        body: cards.map(toVcard).join('\n'),
        mediaType: 'vcard',
        data: {
          contacts: cards.map((c) => ({
            name: contactName(c),
            numbers: (c.phones ?? [])
              .map((p) => (p.wa_id ? waIdToNumber(p.wa_id) : normalizeNumber(p.phone ?? '')))
              .filter(Boolean),
          })),
        },
      });
    }
    case 'reaction': {
      if (!m.reaction) break;
      // An empty emoji is Meta's way of saying the reaction was removed.
      return withData({
        ...base,
        kind: 'reaction',
        body: m.reaction.emoji ?? '',
        targetProviderId: m.reaction.message_id,
      });
    }
    case 'interactive': {
      const i = m.interactive;
      const reply = i?.button_reply ?? i?.list_reply;
      if (reply)
        return withData({ ...base, body: reply.title, data: { reply: { type: i!.type, id: reply.id } } });
      if (i?.nfm_reply)
        return withData({
          ...base,
          body: i.nfm_reply.body ?? '',
          data: { reply: { type: i.type, response: i.nfm_reply.response_json ?? '' } },
        });
      break;
    }
    case 'button':
      if (m.button)
        return withData({
          ...base,
          body: m.button.text,
          data: { reply: { type: 'button', id: m.button.payload ?? m.button.text } },
        });
      break;
    case 'order':
      return withData({ ...base, body: m.order?.text ?? '', data: { order: m.order ?? {} } });
  }
  // Unsupported on Cloud API (polls, view-once...) or malformed: keep a trace so the attendant knows.
  const e = m.errors?.[0];
  return withData({
    ...base,
    data: { unsupported: m.type, ...(e?.title ? { error: e.title } : {}) },
  });
}

const text = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() ? v.trim() : undefined);

/**
 * Meta's `referral` object (a click-to-WhatsApp ad or post): source_url, source_id, source_type ('ad' or
 * 'post'), headline, body, media_type, ctwa_clid...
 */
export function toReferral(r: Record<string, unknown>): InboundReferral {
  const sourceUrl = text(r.source_url);
  const metadata: Record<string, unknown> = {};
  for (const [from, to] of [
    ['source_id', 'sourceId'],
    ['source_type', 'sourceType'],
    ['headline', 'headline'],
    ['body', 'body'],
    ['media_type', 'mediaType'],
    ['ctwa_clid', 'ctwaClid'],
  ] as const) {
    const v = text(r[from]);
    if (v) metadata[to] = v;
  }
  return {
    campaign: truncate(text(r.headline) ?? text(r.source_id) ?? '', 255),
    source: sourceFromUrl(sourceUrl) || 'meta',
    medium: text(r.source_type) ?? 'ad',
    ...(sourceUrl ? { sourceUrl } : {}),
    metadata,
  };
}

function lazyMedia(media: z.infer<typeof WaMedia>, opts: ParseOptions) {
  return async () => {
    if (!opts.downloadMedia) throw new ChannelError('ERR_WAPP_DOWNLOAD_MEDIA', 'No media downloader');
    const { data, mimetype } = await opts.downloadMedia(media.id);
    const type = media.mime_type ?? mimetype;
    return { data, mimetype: type, filename: media.filename || `${media.id}.${extensionFor(type)}` };
  };
}

function contactName(c: WaContactCard): string {
  const n = c.name;
  return (
    n?.formatted_name ||
    [n?.prefix, n?.first_name, n?.middle_name, n?.last_name, n?.suffix].filter(Boolean).join(' ') ||
    c.phones?.[0]?.phone ||
    ''
  );
}

const esc = (s: string) =>
  s
    .replace(/\\/g, '\\\\')
    .replace(/\n/g, '\\n')
    .replace(/([,;])/g, '\\$1');

/** A vCard 3.0 as WhatsApp clients write them (TEL carries waid=, which the product reads back). */
export function toVcard(c: WaContactCard): string {
  const n = c.name ?? {};
  const lines = ['BEGIN:VCARD', 'VERSION:3.0'];
  lines.push(
    `N:${[n.last_name, n.first_name, n.middle_name, n.prefix, n.suffix].map((x) => esc(x ?? '')).join(';')}`,
  );
  lines.push(`FN:${esc(contactName(c))}`);
  if (c.org?.company || c.org?.department)
    lines.push(`ORG:${esc(c.org.company ?? '')}${c.org.department ? `;${esc(c.org.department)}` : ''}`);
  if (c.org?.title) lines.push(`TITLE:${esc(c.org.title)}`);
  for (const p of c.phones ?? []) {
    const digits = (p.wa_id ?? '').replace(/\D/g, '');
    const type = (p.type ?? 'CELL').toUpperCase().replace(/[^A-Z]/g, '') || 'CELL';
    lines.push(`TEL;type=${type}${digits ? `;waid=${digits}` : ''}:${esc(p.phone ?? digits)}`);
  }
  for (const e of c.emails ?? [])
    if (e.email)
      lines.push(
        `EMAIL;type=${(e.type ?? '').toUpperCase().replace(/[^A-Z]/g, '') || 'INTERNET'}:${esc(e.email)}`,
      );
  for (const u of c.urls ?? []) if (u.url) lines.push(`URL:${esc(u.url)}`);
  if (c.birthday) lines.push(`BDAY:${esc(c.birthday)}`);
  lines.push('END:VCARD');
  return lines.join('\n');
}
