import type { InboundMessage, MediaPayload, MediaType } from '../../channel.js';

/**
 * Telegram's Update objects (https://core.telegram.org/bots/api#update) as the product's inbound messages.
 * A message's provider id is `<chat id>:<message id>` (Telegram numbers messages per chat); the customer is
 * the identity ('telegram', chat id), the address replies go to.
 */

interface TgFile {
  file_id: string;
  file_unique_id?: string;
  file_size?: number;
  mime_type?: string;
  file_name?: string;
}
export interface TgMessage {
  message_id: number;
  date: number;
  chat: {
    id: number;
    type: string;
    title?: string;
    first_name?: string;
    last_name?: string;
    username?: string;
  };
  from?: { id: number; is_bot?: boolean; first_name?: string; last_name?: string; username?: string };
  text?: string;
  caption?: string;
  photo?: (TgFile & { width?: number; height?: number })[];
  document?: TgFile;
  voice?: TgFile;
  video?: TgFile;
  audio?: TgFile & { title?: string };
  video_note?: TgFile;
  animation?: TgFile;
  sticker?: TgFile & { emoji?: string; is_animated?: boolean; is_video?: boolean };
  location?: { latitude: number; longitude: number };
  contact?: { phone_number: string; first_name?: string; last_name?: string; vcard?: string };
  reply_to_message?: { message_id: number };
}
export interface TgUpdate {
  update_id: number;
  message?: TgMessage;
  edited_message?: TgMessage;
}

export const providerIdOf = (chatId: number | string, messageId: number) => `${chatId}:${messageId}`;
/** The message id inside a provider id of this channel (null for another shape). */
export const messageIdOf = (providerId: string): number | null => {
  const m = /^-?\d+:(\d+)$/.exec(providerId);
  return m ? Number(m[1]) : null;
};

const nameOf = (p?: { first_name?: string; last_name?: string; username?: string; title?: string }) =>
  p ? (p.title ?? ([p.first_name, p.last_name].filter(Boolean).join(' ') || p.username || '')) : '';

const extension: Record<string, string> = {
  'image/jpeg': 'jpg',
  'image/webp': 'webp',
  'audio/ogg': 'ogg',
  'video/mp4': 'mp4',
  'video/webm': 'webm',
  'audio/mpeg': 'mp3',
};

/** The file a message carries, how it is shown, and its type when Telegram does not say. */
function fileOf(m: TgMessage): { file: TgFile; type: MediaType; mimetype: string; name?: string } | null {
  if (m.photo?.length) {
    // Telegram sends every size: the largest is last.
    return { file: m.photo[m.photo.length - 1]!, type: 'image', mimetype: 'image/jpeg' };
  }
  if (m.sticker)
    return {
      file: m.sticker,
      type: 'image',
      mimetype: m.sticker.is_video
        ? 'video/webm'
        : m.sticker.is_animated
          ? 'application/x-tgsticker'
          : 'image/webp',
    };
  if (m.voice) return { file: m.voice, type: 'audio', mimetype: m.voice.mime_type ?? 'audio/ogg' };
  if (m.audio)
    return {
      file: m.audio,
      type: 'audio',
      mimetype: m.audio.mime_type ?? 'audio/mpeg',
      name: m.audio.file_name,
    };
  if (m.video)
    return {
      file: m.video,
      type: 'video',
      mimetype: m.video.mime_type ?? 'video/mp4',
      name: m.video.file_name,
    };
  if (m.video_note) return { file: m.video_note, type: 'video', mimetype: 'video/mp4' };
  if (m.animation)
    return { file: m.animation, type: 'video', mimetype: m.animation.mime_type ?? 'video/mp4' };
  if (m.document) {
    const mime = m.document.mime_type ?? 'application/octet-stream';
    const type: MediaType = mime.startsWith('image/')
      ? 'image'
      : mime.startsWith('video/')
        ? 'video'
        : mime.startsWith('audio/')
          ? 'audio'
          : 'application';
    return { file: m.document, type, mimetype: mime, name: m.document.file_name };
  }
  return null;
}

export type Download = (fileId: string) => Promise<{ data: Buffer; path: string }>;

/**
 * One update as inbound messages (none for what the product does not take: channel posts, service messages,
 * the bot's own messages).
 */
export function parseUpdate(update: unknown, download: Download): InboundMessage[] {
  const u = update as TgUpdate | null;
  if (!u || typeof u !== 'object' || typeof u.update_id !== 'number') return [];
  const edited = u.edited_message;
  const m = u.message ?? edited;
  if (!m || typeof m.message_id !== 'number' || !m.chat || typeof m.chat.id !== 'number') return [];
  if (m.from?.is_bot) return [];
  const chatId = String(m.chat.id);
  const isGroup = m.chat.type !== 'private';
  const base = {
    from: '',
    replyTo: chatId,
    identity: { kind: 'telegram' as const, value: chatId },
    name: nameOf(isGroup ? m.chat : (m.from ?? m.chat)),
    fromMe: false,
    isGroup,
    ...(isGroup && m.from ? { participant: { number: '', name: nameOf(m.from) } } : {}),
    timestamp: new Date((m.date || Date.now() / 1000) * 1000),
  };
  if (edited)
    return [
      {
        ...base,
        providerId: `edit:${u.update_id}`,
        kind: 'edit',
        body: m.text ?? m.caption ?? '',
        targetProviderId: providerIdOf(chatId, m.message_id),
      },
    ];
  const f = fileOf(m);
  let body = m.text ?? m.caption ?? '';
  let mediaType: MediaType | undefined = f?.type;
  let data: Record<string, unknown> | undefined;
  if (!f && m.location) {
    mediaType = 'locationMessage';
    data = { latitude: m.location.latitude, longitude: m.location.longitude };
    body = body || `${m.location.latitude},${m.location.longitude}`;
  } else if (!f && m.contact) {
    mediaType = 'contactMessage';
    const name = nameOf(m.contact);
    data = {
      name,
      number: m.contact.phone_number.replace(/\D/g, ''),
      ...(m.contact.vcard ? { vcard: m.contact.vcard } : {}),
    };
    body = body || `${name} ${m.contact.phone_number}`.trim();
  } else if (m.sticker && !body) body = m.sticker.emoji ?? '';
  if (!f && !body && !mediaType) return [];
  const media = f
    ? async (): Promise<MediaPayload> => {
        const got = await download(f.file.file_id);
        const fromPath = got.path.split('/').pop() || '';
        const filename =
          f.name ||
          (fromPath.includes('.')
            ? fromPath
            : `${f.file.file_unique_id ?? f.file.file_id}.${extension[f.mimetype] ?? 'bin'}`);
        return { data: got.data, mimetype: f.mimetype, filename };
      }
    : undefined;
  return [
    {
      ...base,
      providerId: providerIdOf(chatId, m.message_id),
      kind: 'message',
      body,
      ...(mediaType ? { mediaType } : {}),
      ...(media ? { media } : {}),
      ...(data ? { data } : {}),
      ...(m.reply_to_message
        ? { quotedProviderId: providerIdOf(chatId, m.reply_to_message.message_id) }
        : {}),
    },
  ];
}
