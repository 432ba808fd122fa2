import {
  areJidsSameUser,
  downloadMediaMessage,
  jidDecode,
  normalizeMessageContent,
  proto,
  toNumber,
  type WACallEvent,
  type WAMessage,
  type WAMessageKey,
} from 'baileys';
import { normalizeNumber } from '@recado/contracts';
import {
  ChannelError,
  sourceFromUrl,
  type InboundMessage,
  type InboundReferral,
  type MediaPayload,
  type MediaType,
} from '../../channel.js';
import { truncate } from '../../../lib/text.js';

/**
 * Pure translation from what Baileys 7 emits to the product's InboundMessage.
 *
 * Addresses: a chat or sender is either a phone-number JID (`5511987654321@s.whatsapp.net`) or a hidden
 * id (`123456789012345@lid`). Baileys 7 puts the other form, when WhatsApp sent it, in
 * `key.remoteJidAlt` (1:1) or `key.participantAlt` (groups). `from` only ever holds a canonical phone
 * number (ninth digit added) or ''; a LID goes to `lid` as `<digits>@lid`, never to `from`.
 */

export interface MapContext {
  /** Our own JIDs (sock.user.id / sock.user.lid): in a message we sent, Baileys' alternate is ours, not the customer's. */
  me?: { id?: string | null; lid?: string | null };
  /** Downloads a media message; the channel passes one that can ask the phone to re-upload. */
  download?: (msg: WAMessage) => Promise<Buffer>;
}

export interface Address {
  /** Canonical phone number (digits), '' when only a LID is known. */
  number: string;
  /** `<digits>@lid` when known. */
  lid?: string;
  /** The JID to answer to: the phone-number JID WhatsApp uses (as WhatsApp spells it), else the LID. */
  jid: string;
}

const isPnServer = (server: string) =>
  server === 's.whatsapp.net' || server === 'c.us' || server === 'hosted';
const isLidServer = (server: string) => server === 'lid' || server === 'hosted.lid';

/** Resolves a sender from its primary JID and the alternate Baileys may provide (either may be the LID). */
export function resolveAddress(
  primary: string | null | undefined,
  ...alternates: (string | null | undefined)[]
): Address {
  let pn: string | undefined;
  let lid: string | undefined;
  for (const jid of [primary, ...alternates]) {
    const d = jid ? jidDecode(jid) : undefined;
    if (!d?.user) continue;
    if (!pn && isPnServer(d.server)) pn = d.user;
    else if (!lid && isLidServer(d.server)) lid = d.user;
  }
  return {
    number: pn ? normalizeNumber(pn) : '',
    lid: lid ? `${lid}@lid` : undefined,
    // WhatsApp's own spelling (a number registered before the ninth digit keeps its 12-digit JID).
    jid: pn ? `${pn}@s.whatsapp.net` : lid ? `${lid}@lid` : (primary ?? ''),
  };
}

/** Statuses, newsletters and broadcast lists are not conversations. */
export const isIgnoredJid = (jid: string | null | undefined): boolean =>
  !jid || jid.endsWith('@broadcast') || jid.endsWith('@newsletter');

const enumIs = (value: unknown, num: number, name: string) => value === num || value === name;

/** Baileys' WebMessageInfo.Status → our ack (0 failed, 1 sent, 2 delivered, 3 read, 4 played); null for PENDING. */
export function mapAckStatus(status: unknown): number | null {
  const S = proto.WebMessageInfo.Status;
  if (enumIs(status, S.ERROR, 'ERROR')) return 0;
  if (enumIs(status, S.SERVER_ACK, 'SERVER_ACK')) return 1;
  if (enumIs(status, S.DELIVERY_ACK, 'DELIVERY_ACK')) return 2;
  if (enumIs(status, S.READ, 'READ')) return 3;
  if (enumIs(status, S.PLAYED, 'PLAYED')) return 4;
  return null;
}

const timestampOf = (t: WAMessage['messageTimestamp'] | string): Date => {
  const seconds = typeof t === 'string' ? Number(t) : toNumber(t);
  return seconds ? new Date(seconds * 1000) : new Date();
};

const EXT: Record<string, string> = {
  'image/jpeg': 'jpg',
  'image/png': 'png',
  'image/webp': 'webp',
  'image/gif': 'gif',
  'audio/ogg': 'ogg',
  'audio/mpeg': 'mp3',
  'audio/mp4': 'm4a',
  'audio/aac': 'aac',
  'video/mp4': 'mp4',
  'video/3gpp': '3gp',
  'application/pdf': 'pdf',
};
export const extensionOf = (mimetype: string): string => {
  const base = mimetype.split(';')[0]!.trim().toLowerCase();
  return EXT[base] ?? (base.split('/')[1]?.replace(/[^a-z0-9]/g, '') || 'bin');
};

/** The text a message carries, whatever its kind (for edits and captions). */
function textOf(content: proto.IMessage | null | undefined): string {
  const c = normalizeMessageContent(content);
  if (!c) return '';
  return (
    c.conversation ??
    c.extendedTextMessage?.text ??
    c.imageMessage?.caption ??
    c.videoMessage?.caption ??
    c.documentMessage?.caption ??
    ''
  );
}

type Media = proto.Message.IImageMessage &
  proto.Message.IVideoMessage &
  proto.Message.IAudioMessage &
  proto.Message.IDocumentMessage &
  proto.Message.IStickerMessage;

const defaultDownload = (msg: WAMessage) => downloadMediaMessage(msg, 'buffer', {});

/** Maps one message of `messages.upsert`; null when it is nothing a conversation should show. */
export function mapMessage(msg: WAMessage, ctx: MapContext = {}): InboundMessage | null {
  const key: WAMessageKey = msg.key ?? {};
  const remoteJid = key.remoteJid;
  if (!key.id || !remoteJid || isIgnoredJid(remoteJid)) return null;
  const content = normalizeMessageContent(msg.message);
  if (!content) return null; // stubs (group notices), undecryptable placeholders

  const fromMe = !!key.fromMe;
  const isGroup = remoteJid.endsWith('@g.us');
  // Alternates older Baileys builds spelled differently (records kept from them).
  const legacy = key as {
    senderPn?: string;
    participantPn?: string;
    senderLid?: string;
    participantLid?: string;
  };
  const mine = (jid: string | null | undefined) =>
    !!jid &&
    (areJidsSameUser(jid, ctx.me?.id ?? undefined) || areJidsSameUser(jid, ctx.me?.lid ?? undefined));

  let chat: Address;
  let participant: InboundMessage['participant'];
  if (isGroup) {
    chat = { number: (jidDecode(remoteJid)?.user ?? '').replace(/\D/g, ''), jid: remoteJid };
    const p = resolveAddress(
      key.participant,
      key.participantAlt,
      legacy.participantPn,
      legacy.participantLid,
    );
    participant = {
      number: p.number,
      ...(p.lid ? { lid: p.lid } : {}),
      ...(!fromMe && msg.pushName ? { name: msg.pushName } : {}),
    };
  } else {
    // In a message we sent, Baileys fills remoteJidAlt from the envelope's sender: our own alternate.
    const alts = [key.remoteJidAlt, legacy.senderPn, legacy.senderLid].filter((a) => !(fromMe && mine(a)));
    chat = resolveAddress(remoteJid, ...alts);
  }

  const base: InboundMessage = {
    providerId: key.id,
    kind: 'message',
    from: chat.number,
    ...(chat.lid ? { lid: chat.lid } : {}),
    replyTo: chat.jid,
    ...(!isGroup && !fromMe && msg.pushName ? { name: msg.pushName } : {}),
    fromMe,
    isGroup,
    ...(participant ? { participant } : {}),
    body: '',
    timestamp: timestampOf(msg.messageTimestamp),
  };

  const protocol = content.protocolMessage;
  if (protocol) {
    const T = proto.Message.ProtocolMessage.Type;
    const target = protocol.key?.id ?? undefined;
    if (enumIs(protocol.type, T.REVOKE, 'REVOKE') && target)
      return { ...base, kind: 'revoke', targetProviderId: target };
    if (enumIs(protocol.type, T.MESSAGE_EDIT, 'MESSAGE_EDIT') && target)
      return { ...base, kind: 'edit', targetProviderId: target, body: textOf(protocol.editedMessage) };
    return null; // history sync, key shares, ephemeral settings...
  }

  if (content.reactionMessage) {
    const target = content.reactionMessage.key?.id;
    if (!target) return null;
    // An empty text is the reaction being removed.
    return { ...base, kind: 'reaction', targetProviderId: target, body: content.reactionMessage.text ?? '' };
  }

  const viewOnce = !!(
    msg.message?.viewOnceMessage ||
    msg.message?.viewOnceMessageV2 ||
    msg.message?.viewOnceMessageV2Extension ||
    msg.message?.ephemeralMessage?.message?.viewOnceMessage ||
    msg.message?.ephemeralMessage?.message?.viewOnceMessageV2
  );

  /** Adds what every kind of content may carry: the quoted message, forwarded and view-once marks. */
  const finish = (
    m: InboundMessage,
    inner: { contextInfo?: proto.IContextInfo | null } | null | undefined,
  ): InboundMessage => {
    const ci = inner?.contextInfo;
    const data = {
      ...m.data,
      ...(ci?.isForwarded ? { forwarded: true } : {}),
      ...(viewOnce ? { viewOnce: true } : {}),
    };
    const out: InboundMessage = { ...m, ...(ci?.stanzaId ? { quotedProviderId: ci.stanzaId } : {}) };
    if (Object.keys(data).length) out.data = data;
    const referral = ci ? adReferral(ci) : undefined;
    if (referral) out.referral = referral;
    return out;
  };

  if (content.conversation != null) return finish({ ...base, body: content.conversation }, null);
  if (content.extendedTextMessage)
    return finish({ ...base, body: content.extendedTextMessage.text ?? '' }, content.extendedTextMessage);

  const download = ctx.download ?? defaultDownload;
  const media = (
    type: MediaType,
    inner: Media,
    body: string,
    filename: string,
    data?: Record<string, unknown>,
  ): InboundMessage => {
    const mimetype = inner.mimetype || 'application/octet-stream';
    const fetch = async (): Promise<MediaPayload> => {
      try {
        return { mimetype, filename, data: await download(msg) };
      } catch (err) {
        throw new ChannelError('ERR_WAPP_DOWNLOAD_MEDIA', (err as Error)?.message);
      }
    };
    return finish({ ...base, body, mediaType: type, media: fetch, ...(data ? { data } : {}) }, inner);
  };
  const named = (inner: Media) => `${key.id}.${extensionOf(inner.mimetype ?? '')}`;

  if (content.imageMessage)
    return media(
      'image',
      content.imageMessage,
      content.imageMessage.caption ?? '',
      named(content.imageMessage),
    );
  if (content.videoMessage)
    return media(
      'video',
      content.videoMessage,
      content.videoMessage.caption ?? '',
      named(content.videoMessage),
    );
  if (content.audioMessage) {
    const a = content.audioMessage;
    return media('audio', a, '', named(a), { ptt: !!a.ptt, ...(a.seconds ? { seconds: a.seconds } : {}) });
  }
  if (content.documentMessage) {
    const d = content.documentMessage;
    const filename = d.fileName || d.title || named(d);
    return media('application', d, d.caption || filename, filename);
  }
  if (content.stickerMessage)
    return media('sticker', content.stickerMessage, '', named(content.stickerMessage));

  const location = content.locationMessage ?? content.liveLocationMessage;
  if (location) {
    const latitude = location.degreesLatitude ?? 0;
    const longitude = location.degreesLongitude ?? 0;
    const l = location as proto.Message.ILocationMessage;
    const lines = [l.name, l.address, `https://maps.google.com/maps?q=${latitude},${longitude}`].filter(
      Boolean,
    );
    return finish(
      {
        ...base,
        body: lines.join('\n'),
        mediaType: 'locationMessage',
        data: {
          latitude,
          longitude,
          ...(l.name ? { name: l.name } : {}),
          ...(l.address ? { address: l.address } : {}),
          ...(content.liveLocationMessage ? { live: true } : {}),
        },
      },
      location,
    );
  }

  if (content.contactMessage) {
    const c = content.contactMessage;
    return finish(
      {
        ...base,
        body: c.vcard ?? '',
        mediaType: 'vcard',
        data: { displayName: c.displayName ?? '', vcard: c.vcard ?? '' },
      },
      c,
    );
  }
  if (content.contactsArrayMessage) {
    const list = (content.contactsArrayMessage.contacts ?? []).map((c) => ({
      displayName: c.displayName ?? '',
      vcard: c.vcard ?? '',
    }));
    return finish(
      {
        ...base,
        body: list.map((c) => c.vcard).join('\n'),
        mediaType: 'contactMessage',
        data: { contacts: list },
      },
      content.contactsArrayMessage,
    );
  }

  // Answers to menus (what a bot reads): the text the customer saw and tapped.
  if (content.buttonsResponseMessage)
    return finish(
      { ...base, body: content.buttonsResponseMessage.selectedDisplayText ?? '' },
      content.buttonsResponseMessage,
    );
  if (content.templateButtonReplyMessage)
    return finish(
      { ...base, body: content.templateButtonReplyMessage.selectedDisplayText ?? '' },
      content.templateButtonReplyMessage,
    );
  if (content.listResponseMessage)
    return finish(
      {
        ...base,
        body:
          content.listResponseMessage.title ||
          content.listResponseMessage.singleSelectReply?.selectedRowId ||
          '',
      },
      content.listResponseMessage,
    );

  return null;
}

/** A call offer from the `call` event, as a call log entry; other call states (ringing, end) are not messages. */
export function mapCall(call: WACallEvent): InboundMessage | null {
  if (call.status !== 'offer' || !call.id) return null;
  const group = !!call.isGroup && !!call.groupJid;
  const caller = resolveAddress(call.from, call.callerPn);
  const chat: Address = group
    ? { number: (jidDecode(call.groupJid)?.user ?? '').replace(/\D/g, ''), jid: call.groupJid! }
    : caller;
  if (isIgnoredJid(chat.jid)) return null;
  return {
    providerId: call.id,
    kind: 'call',
    from: chat.number,
    ...(chat.lid ? { lid: chat.lid } : {}),
    replyTo: chat.jid,
    fromMe: false,
    isGroup: group,
    ...(group ? { participant: { number: caller.number, ...(caller.lid ? { lid: caller.lid } : {}) } } : {}),
    body: '',
    mediaType: 'call_log',
    timestamp: call.date instanceof Date ? call.date : new Date(call.date ?? Date.now()),
    data: { isVideo: !!call.isVideo, status: call.status, offline: !!call.offline },
  };
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() ? v.trim() : undefined);

/**
 * A click-to-WhatsApp ad as WhatsApp Web sees it: `contextInfo.externalAdReply` (title, body, sourceUrl,
 * sourceId, sourceType, ctwaClid) and the conversion fields (`entryPointConversionApp` 'facebook' or
 * 'instagram', `conversionSource` / `entryPointConversionSource` such as 'FB_Ads').
 */
export function adReferral(ci: proto.IContextInfo): InboundReferral | undefined {
  const ad = ci.externalAdReply;
  const conversion = str(ci.conversionSource) ?? str(ci.entryPointConversionSource);
  if (!ad && !conversion) return undefined;
  const sourceUrl = str(ad?.sourceUrl);
  const metadata: Record<string, unknown> = {};
  const keep = {
    sourceId: str(ad?.sourceId),
    sourceType: str(ad?.sourceType),
    headline: str(ad?.title),
    body: str(ad?.body),
    ctwaClid: str(ad?.ctwaClid),
    conversionSource: conversion,
    conversionApp: str(ci.entryPointConversionApp),
  };
  for (const [k, v] of Object.entries(keep)) if (v) metadata[k] = v;
  return {
    campaign: truncate(keep.headline ?? keep.sourceId ?? '', 255),
    source: keep.conversionApp?.toLowerCase() ?? (sourceFromUrl(sourceUrl) || 'meta'),
    medium: keep.sourceType ?? (conversion ? 'ad' : ''),
    ...(sourceUrl ? { sourceUrl } : {}),
    metadata,
  };
}
