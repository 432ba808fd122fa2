import { z } from 'zod';
import { ChannelError, type AckUpdate, type InboundMessage, type MediaType } from '../../channel.js';
import { extensionFor } from '../cloud-api/graph-client.js';
import type { MetaChannelKind } from './meta-config.js';

/**
 * What the Messenger Platform posts to the webhook for a page (`object: 'page'`, Messenger) or an Instagram
 * professional account (`object: 'instagram'`): `entry[].messaging[]` events (messages, echoes, edits,
 * reactions, postbacks, deliveries, reads). Pure functions; nothing here throws on what anyone posts.
 */

const Attachment = z.object({
  type: z.string(),
  payload: z.object({ url: z.string().optional(), title: z.string().optional() }).loose().nullish(),
});

const Message = z.object({
  mid: z.string().min(1),
  text: z.string().optional(),
  is_echo: z.boolean().optional(),
  is_deleted: z.boolean().optional(),
  app_id: z.union([z.number(), z.string()]).optional(),
  attachments: z.array(Attachment).optional(),
  quick_reply: z.object({ payload: z.string() }).optional(),
  reply_to: z.object({ mid: z.string().optional() }).loose().optional(),
  is_unsupported: z.boolean().optional(),
});

const Event = z.object({
  sender: z.object({ id: z.string().min(1) }),
  recipient: z.object({ id: z.string().min(1) }),
  timestamp: z.number().optional(),
  message: Message.optional(),
  message_edit: z
    .object({ mid: z.string().min(1), text: z.string().optional(), num_edit: z.number().optional() })
    .optional(),
  reaction: z
    .object({ mid: z.string().min(1), action: z.string().optional(), emoji: z.string().optional() })
    .loose()
    .optional(),
  postback: z
    .object({ mid: z.string().optional(), title: z.string().optional(), payload: z.string().optional() })
    .optional(),
  delivery: z.object({ mids: z.array(z.string()).optional(), watermark: z.number().optional() }).optional(),
  read: z.object({ mid: z.string().optional(), watermark: z.number().optional() }).optional(),
});
type Event = z.infer<typeof Event>;

/** What Meta posts to the webhook (exported for the OpenAPI document). */
export const MetaWebhookPayload = z.object({
  object: z.enum(['page', 'instagram']),
  entry: z.array(
    z.object({
      id: z.string(),
      time: z.number().optional(),
      messaging: z.array(z.unknown()).default([]),
    }),
  ),
});

export interface ParsedMetaWebhook {
  messages: InboundMessage[];
  acks: AckUpdate[];
  /** Messenger's read receipts: every message sent to `customer` before `watermark` was read. */
  reads: { customer: string; watermark: Date }[];
}

export interface MetaParseOptions {
  channel: MetaChannelKind;
  /** The page (Messenger) or Instagram account id: events of other accounts are skipped. */
  accountId: string;
  /** Downloads an attachment's URL (through the outbound-URL guard). */
  download?: (url: string) => Promise<{ data: Buffer; mimetype: string | undefined }>;
}

const OBJECT: Record<MetaChannelKind, 'page' | 'instagram'> = { messenger: 'page', instagram: 'instagram' };
const MEDIA: Record<string, MediaType> = {
  image: 'image',
  audio: 'audio',
  video: 'video',
  file: 'application',
};
const DEFAULT_MIME: Record<string, string> = {
  image: 'image/jpeg',
  audio: 'audio/mp4',
  video: 'video/mp4',
  file: 'application/octet-stream',
};

const toDate = (ms: number | undefined) => (ms && ms > 0 ? new Date(ms) : new Date());

export function parseMetaWebhook(payload: unknown, opts: MetaParseOptions): ParsedMetaWebhook {
  const out: ParsedMetaWebhook = { messages: [], acks: [], reads: [] };
  const parsed = MetaWebhookPayload.safeParse(payload);
  if (!parsed.success || parsed.data.object !== OBJECT[opts.channel]) return out;
  for (const entry of parsed.data.entry) {
    if (entry.id !== opts.accountId) continue;
    for (const raw of entry.messaging) {
      const e = Event.safeParse(raw);
      if (e.success) toItems(e.data, opts, out);
    }
  }
  return out;
}

function toItems(e: Event, opts: MetaParseOptions, out: ParsedMetaWebhook) {
  const echo = Boolean(e.message?.is_echo);
  // The customer: who wrote, or, for an echo of the page's own message, to whom.
  const customer = echo ? e.recipient.id : e.sender.id;
  if (customer === opts.accountId) return;
  const base = {
    kind: 'message' as const,
    from: '',
    identity: { kind: opts.channel, value: customer },
    replyTo: customer,
    fromMe: echo,
    isGroup: false,
    body: '',
    timestamp: toDate(e.timestamp),
  };

  if (e.message) {
    const m = e.message;
    if (m.is_deleted) {
      out.messages.push({ ...base, providerId: `${m.mid}:deleted`, kind: 'revoke', targetProviderId: m.mid });
      return;
    }
    const quoted = m.reply_to?.mid ? { quotedProviderId: m.reply_to.mid } : {};
    const reply = m.quick_reply
      ? { data: { reply: { type: 'quick_reply', id: m.quick_reply.payload } } }
      : {};
    const attachments = m.attachments ?? [];
    if (!attachments.length) {
      out.messages.push({
        ...base,
        providerId: m.mid,
        body: m.text ?? '',
        ...quoted,
        ...reply,
        ...(m.text === undefined
          ? { data: { unsupported: m.is_unsupported ? 'unsupported' : 'empty' } }
          : {}),
      });
      return;
    }
    // One stored message per attachment: the first under the mid, the others under mid:index.
    attachments.forEach((a, i) => {
      const providerId = i === 0 ? m.mid : `${m.mid}:${i}`;
      const body = i === 0 ? (m.text ?? '') : '';
      const url = a.payload?.url;
      const mediaType = MEDIA[a.type];
      if (!mediaType || !url) {
        out.messages.push({
          ...base,
          providerId,
          body: body || a.payload?.title || '',
          ...quoted,
          data: { unsupported: a.type, ...(url ? { url } : {}) },
        });
        return;
      }
      out.messages.push({
        ...base,
        providerId,
        body,
        ...quoted,
        mediaType,
        media: lazyMedia(url, a.type, opts),
        data: { attachmentType: a.type },
      });
    });
    return;
  }

  if (e.message_edit) {
    const x = e.message_edit;
    out.messages.push({
      ...base,
      providerId: `${x.mid}:edit:${x.num_edit ?? e.timestamp ?? 0}`,
      kind: 'edit',
      targetProviderId: x.mid,
      body: x.text ?? '',
    });
    return;
  }

  if (e.reaction) {
    const r = e.reaction;
    out.messages.push({
      ...base,
      providerId: `${r.mid}:reaction:${customer}:${e.timestamp ?? 0}`,
      kind: 'reaction',
      targetProviderId: r.mid,
      // An unreact is the reaction being removed.
      body: r.action === 'unreact' ? '' : (r.emoji ?? ''),
    });
    return;
  }

  if (e.postback) {
    const p = e.postback;
    out.messages.push({
      ...base,
      providerId: p.mid ?? `postback:${customer}:${e.timestamp ?? 0}`,
      body: p.title ?? p.payload ?? '',
      data: { reply: { type: 'postback', id: p.payload ?? '' } },
    });
    return;
  }

  if (e.delivery) for (const mid of e.delivery.mids ?? []) out.acks.push({ providerId: mid, ack: 2 });
  if (e.read) {
    if (e.read.mid) out.acks.push({ providerId: e.read.mid, ack: 3 });
    else if (e.read.watermark) out.reads.push({ customer, watermark: toDate(e.read.watermark) });
  }
}

function lazyMedia(url: string, type: string, opts: MetaParseOptions) {
  return async () => {
    if (!opts.download) throw new ChannelError('ERR_WAPP_DOWNLOAD_MEDIA', 'No media downloader');
    const { data, mimetype } = await opts.download(url);
    const type_ = mimetype && mimetype !== 'application/octet-stream' ? mimetype : DEFAULT_MIME[type]!;
    const fromUrl = (() => {
      try {
        return decodeURIComponent(new URL(url).pathname.split('/').pop() ?? '');
      } catch {
        return '';
      }
    })();
    const filename = /\.[a-z0-9]{1,8}$/i.test(fromUrl)
      ? fromUrl.slice(-120)
      : `${type}.${extensionFor(type_)}`;
    return { data, mimetype: type_, filename };
  };
}
