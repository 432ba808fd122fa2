import { CHANNEL_KINDS } from '@recado/contracts';
import type { SecretBox } from '../lib/crypto.js';
import type { SQL } from 'drizzle-orm';

/**
 * The one interface the product talks to for every messaging channel (Baileys, Cloud API, simulator).
 * A channel turns its provider's protocol into these calls and events; nothing above it knows which
 * provider is underneath.
 */

/** The connection kinds (contracts' one list: the API validates against the same). */
export const CHANNELS = CHANNEL_KINDS;
export type ChannelKind = (typeof CHANNELS)[number];

export const CONNECTION_STATUSES = [
  'qrcode',
  'PAIRING',
  'DISCONNECTED',
  'TIMEOUT',
  'OPENING',
  'CONNECTED',
] as const;
export type ConnectionStatus = (typeof CONNECTION_STATUSES)[number];

export type MediaType =
  | 'image'
  | 'audio'
  | 'video'
  | 'application'
  | 'locationMessage'
  | 'vcard'
  | 'contactMessage'
  | 'call_log'
  | 'sticker';

export interface MediaPayload {
  mimetype: string;
  filename: string;
  data: Buffer;
}

/** A message as a channel delivers it, before the product stores it. */
export interface InboundMessage {
  /** The provider's id; with the connection, the idempotency key. */
  providerId: string;
  kind: 'message' | 'edit' | 'revoke' | 'reaction' | 'call';
  /** The customer's (or group's) phone number in digits; '' when only a hidden id is known. */
  from: string;
  /** WhatsApp's hidden id (LID) of the sender when the channel has one. */
  lid?: string;
  /**
   * #34 The customer's identity on a channel without phone numbers (then `from` is ''): the contact is found
   * or created by (company, kind, value) (docs/channels.md "Identities").
   */
  identity?: { kind: 'telegram' | 'instagram' | 'messenger' | 'webchat'; value: string };
  /** The address to answer to, as the channel needs it (a JID for Baileys, digits for others). */
  replyTo: string;
  /** Push name / profile name. */
  name?: string;
  fromMe: boolean;
  isGroup: boolean;
  /** In a group, who wrote. */
  participant?: { number: string; lid?: string; name?: string };
  body: string;
  mediaType?: MediaType;
  /** Downloads the media lazily (the pipeline decides when). */
  media?: () => Promise<MediaPayload>;
  quotedProviderId?: string;
  /** For edit, revoke and reaction: the message acted upon. */
  targetProviderId?: string;
  timestamp: Date;
  /** Extra structured data (location coordinates, vcard text, call status). */
  data?: Record<string, unknown>;
  /** The ad or tracked link the customer came through (a ticket's source tracking when it opens one). */
  referral?: InboundReferral;
  /**
   * #33.3 Delivered on reconnect for the time the connection was away: `offline` (WhatsApp's pending
   * notifications) or `history` (history sync; kept only when sent during the last outage). Stored with its
   * own time, marked recovered, and answered by no greeting, bot, flow, AI or rating.
   */
  recovered?: 'offline' | 'history';
  /** #33.4 A call: refuses it on the provider, with a text to the caller when given (what was sent, if any). */
  reject?: (text: string) => Promise<SendResult | null>;
}

/** Where a conversation came from, as each channel reads it from its provider (docs/messaging.md). */
export interface InboundReferral {
  /** The ad's headline, or its id when it has none. */
  campaign: string;
  /** Where the ad ran: 'facebook', 'instagram', or what the provider says. */
  source: string;
  /** What kind of entry it was: 'ad', 'post', ... */
  medium: string;
  sourceUrl?: string;
  /** Everything else the provider told (ad id, click id, body text), kept in the record's metadata. */
  metadata?: Record<string, unknown>;
}

/** The network of an ad's link, when the provider did not name it. */
export const sourceFromUrl = (url: string | undefined): string => {
  const host = (() => {
    try {
      return url ? new URL(url).hostname.toLowerCase() : '';
    } catch {
      return '';
    }
  })();
  if (/(^|\.)(instagram\.com|instagr\.am|ig\.me)$/.test(host)) return 'instagram';
  if (/(^|\.)(facebook\.com|fb\.com|fb\.me|fb\.watch|m\.me)$/.test(host)) return 'facebook';
  return host;
};

export interface AckUpdate {
  providerId: string;
  /** 0 failed, 1 sent, 2 delivered, 3 read, 4 played. */
  ack: number;
  /** Why a send failed (ack 0), as the provider said. */
  data?: Record<string, unknown>;
  /**
   * #31 The channel's own write for this ack, run in the pipeline's ack statement rather than as a statement of
   * its own (the simulator's phone row): `cte` a data-modifying statement with `returning`; nothing else of
   * the ack happens when it returns no row; `seen` gets its first returned row (as JSON) after the statement.
   */
  own?: OwnWrite;
}

/**
 * A channel's own write, run inside the caller's statement instead of as a statement of its own: `cte` a
 * data-modifying statement with `returning`; `seen` gets its first returned row (as JSON) after the statement.
 */
export interface OwnWrite {
  cte: SQL;
  seen(row: Record<string, unknown> | undefined): void | Promise<void>;
}

export interface StateUpdate {
  status: ConnectionStatus;
  qrcode?: string;
  retries?: number;
  number?: string;
  /** Why the connection cannot run (shown to the admin): a short code, and the provider's words if any. */
  data?: { reason: string; detail?: string };
}

/** What the session manager gives a channel: where to put what arrives. */
export interface ChannelSink {
  message(m: InboundMessage): Promise<void>;
  /**
   * Several messages at once (each customer's in the order given), for channels that receive bursts; one
   * answer per message: true when it was taken (stored, a duplicate or ignored), false when it failed.
   */
  messages?(ms: InboundMessage[]): Promise<boolean[]>;
  ack(a: AckUpdate): Promise<void>;
  state(s: StateUpdate): Promise<void>;
  /**
   * #33.6 Hidden ids (LIDs) and the phone numbers behind them, from any event that revealed both (contacts,
   * chats, Baileys' lid-mapping events, history sync). `lid` as `<digits>@lid`, `number` canonical digits.
   */
  lids?(pairs: LidPair[], source: string): Promise<void>;
}

/** #33.6 A WhatsApp hidden id and the phone number behind it. */
export interface LidPair {
  lid: string;
  number: string;
}

export interface SendResult {
  providerId: string;
  timestamp: Date;
  /**
   * #31 With `stageOwn`: the channel's own record of the send (the simulator's phone row), for the caller to
   * write in the statement that records the sent message - the send is done once that statement ran.
   */
  own?: OwnWrite;
}

export interface OutboundOptions {
  quotedProviderId?: string;
  /** #32.9 Marked as forwarded ("Encaminhada") where the channel supports it (Baileys' contextInfo). */
  forwarded?: boolean;
  /**
   * The provider id to send under, chosen by the caller (campaign sends): sending again with the same id is
   * a no-op where the channel supports it (simulator, Baileys), so a resend after a crash never duplicates.
   */
  providerId?: string;
  /**
   * #34 Instagram/Messenger: sent with Meta's message tag (`HUMAN_AGENT`: a person answering 24 hours to 7 days
   * after the customer's last message) instead of as a RESPONSE (docs/channels.md "Instagram and Messenger").
   */
  messageTag?: 'HUMAN_AGENT';
  /** The caller writes SendResult.own in its own statement (the outbound sender's record). */
  stageOwn?: boolean;
}

/** A message template to send: Graph's `template` object of a type "template" message. */
export interface TemplateSend {
  name: string;
  language: { code: string };
  components?: { type: 'header' | 'body'; parameters: Record<string, unknown>[] }[];
}

/**
 * An interactive message (WhatsApp Cloud API): Graph's `interactive` object, reply buttons (at most 3, titles
 * of at most 20 characters) or a list (at most 10 rows, titles of at most 24). Replies come back as
 * `interactive.button_reply` / `list_reply` with the chosen id (the inbound message's `data.reply.id`).
 */
export type InteractiveSend =
  | {
      type: 'button';
      body: { text: string };
      action: { buttons: { type: 'reply'; reply: { id: string; title: string } }[] };
    }
  | {
      type: 'list';
      body: { text: string };
      action: {
        button: string;
        sections: { title?: string; rows: { id: string; title: string; description?: string }[] }[];
      };
    };

export interface Channel {
  readonly kind: ChannelKind;
  /**
   * Sends honour `OutboundOptions.providerId` and a repeat under the same id is a no-op (simulator, Baileys):
   * the outbox then sends a reply whose owner died mid-send again instead of giving it up.
   */
  readonly chosenIds?: boolean;
  /** Connects (or resumes) the session; state changes go to the sink. */
  start(): Promise<void>;
  /** Stops without logging out (process shutdown, lease handed over). */
  stop(): Promise<void>;
  /** Ends the session on the provider's side and forgets its credentials. */
  logout(): Promise<void>;
  sendText(to: string, body: string, opts?: OutboundOptions): Promise<SendResult>;
  sendMedia(
    to: string,
    media: MediaPayload & { caption?: string; asVoice?: boolean },
    opts?: OutboundOptions,
  ): Promise<SendResult>;
  markRead(to: string, providerIds: string[]): Promise<void>;
  deleteMessage(to: string, providerId: string, fromMe: boolean): Promise<void>;
  /** Absent when the channel cannot edit sent messages. */
  editMessage?(to: string, providerId: string, body: string): Promise<void>;
  /** WhatsApp Cloud API only: an approved message template (Graph's `template` object, docs/cloud-api.md). */
  sendTemplate?(to: string, template: TemplateSend): Promise<SendResult>;
  /** WhatsApp Cloud API only: reply buttons or a list. Channels without it get the message's text. */
  sendInteractive?(to: string, interactive: InteractiveSend, opts?: OutboundOptions): Promise<SendResult>;
  /**
   * #33.7 Reacts to a message of the conversation (`emoji` '' removes the reaction). Absent when the channel
   * has no reactions.
   */
  sendReaction?(to: string, target: { providerId: string; fromMe: boolean }, emoji: string): Promise<void>;
  /** Whether the number has WhatsApp, and the address to reach it. */
  checkNumber(number: string): Promise<{ exists: boolean; replyTo?: string; number?: string }>;
  profilePicture(replyTo: string): Promise<string | null>;
  /** The connection's address book, where the channel has one. */
  addressBook?(): Promise<{ number: string; name: string }[]>;
}

export interface ChannelContext {
  whatsappId: number;
  companyId: number;
  config: Record<string, unknown>;
  sink: ChannelSink;
  /** Opens the secrets sealed in `config` and in the channel's stored state. */
  box?: SecretBox;
}

export type ChannelFactory = (ctx: ChannelContext) => Channel;

export class ChannelError extends Error {
  constructor(
    public readonly code:
      | 'ERR_WAPP_NOT_INITIALIZED'
      | 'ERR_SENDING_WAPP_MSG'
      | 'ERR_WAPP_CHECK_CONTACT'
      | 'ERR_DELETE_WAPP_MSG'
      | 'ERR_WAPP_DOWNLOAD_MEDIA'
      | 'ERR_WAPP_INVALID_CONTACT',
    message?: string,
  ) {
    super(message ?? code);
  }
}
