import { z } from 'zod';
import { Timestamp, type Wire, oneOf } from './responses.js';

export const CHANNEL_KINDS = [
  'baileys',
  'cloud_api',
  'simulator',
  'webchat',
  'telegram',
  'instagram',
  'messenger',
] as const;
export type ChannelKindName = (typeof CHANNEL_KINDS)[number];

/**
 * #34.4 The channels where a company may write first to someone who never wrote (campaigns): WhatsApp by
 * phone, Cloud API (with approved templates) and the simulator. Website chat, Telegram, Instagram and
 * Messenger only answer people who wrote in (docs/channels.md "One inbox").
 */
export const OUTBOUND_FIRST_CONTACT_CHANNELS: readonly ChannelKindName[] = [
  'baileys',
  'cloud_api',
  'simulator',
];
export const allowsFirstContact = (channel: string): boolean =>
  (OUTBOUND_FIRST_CONTACT_CHANNELS as readonly string[]).includes(channel);

/**
 * #34.4 A list filter of channels (`channels=["telegram","webchat"]` as the web client sends arrays, or a
 * comma list): each must be a channel kind; duplicates dropped; empty means no filter.
 */
export const ChannelListFilter = z
  .union([z.string().max(300), z.array(z.string())])
  .optional()
  .transform((v, ctx): ChannelKindName[] | undefined => {
    if (v === undefined || v === '') return undefined;
    let list: unknown = v;
    if (typeof v === 'string') {
      try {
        list = v.trim().startsWith('[') ? JSON.parse(v) : v.split(',').map((x) => x.trim());
      } catch {
        list = null;
      }
    }
    if (!Array.isArray(list) || list.some((c) => !(CHANNEL_KINDS as readonly unknown[]).includes(c))) {
      ctx.addIssue({ code: 'custom', message: `a list of channels (${CHANNEL_KINDS.join(', ')})` });
      return z.NEVER;
    }
    const kinds = [...new Set(list as ChannelKindName[])];
    return kinds.length ? kinds : undefined;
  });

export const CONNECTION_STATES = [
  'qrcode',
  'PAIRING',
  'DISCONNECTED',
  'TIMEOUT',
  'OPENING',
  'CONNECTED',
] as const;
export type ConnectionState = (typeof CONNECTION_STATES)[number];
/** States that put the warning badge on the connections menu entry (docs/product.md#screens). */
export const WARNING_STATES: readonly ConnectionState[] = [
  'qrcode',
  'PAIRING',
  'DISCONNECTED',
  'TIMEOUT',
  'OPENING',
];

const Message = z.string().max(4000);
/** #33.5 What a connection does with group messages. */
export const GROUP_MODES = ['ignore', 'tickets'] as const;
/** #33.4 What a connection does with a WhatsApp call. */
export const CALL_MODES = ['ring', 'reject'] as const;
const OptionalId = z.coerce.number().int().positive().nullable().optional();

export const WhatsappInput = z.object({
  name: z.string().trim().min(2).max(50),
  channel: z.enum(CHANNEL_KINDS).default('baileys'),
  isDefault: z.boolean().default(false),
  greetingMessage: Message.default(''),
  complationMessage: Message.default(''),
  outOfHoursMessage: Message.default(''),
  ratingMessage: Message.default(''),
  expiresInactiveMessage: Message.default(''),
  token: z.string().max(200).default(''),
  provider: z.string().max(20).default('beta'),
  queueIds: z.array(z.coerce.number().int().positive()).max(200).default([]),
  transferQueueId: OptionalId,
  timeToTransfer: z.coerce.number().int().min(0).max(100000).nullable().optional(),
  promptId: OptionalId,
  integrationId: OptionalId,
  /** The flow new conversations start in, in place of the queue menu (docs/flows.md#triggers). */
  flowId: OptionalId,
  expiresTicket: z.coerce.number().int().min(0).max(100000).default(0),
  timeUseBotQueues: z.coerce.number().int().min(0).max(100000).default(0),
  maxUseBotQueues: z.coerce.number().int().min(0).max(100).default(3),
  closeOpenChatsAfter: z.coerce.number().int().min(0).max(100000).default(0),
  /** Channel settings (Cloud API ids and secrets); secrets are sealed at rest and masked in answers. */
  channelConfig: z.record(z.string(), z.unknown()).optional(),
  /** #33.5 Group messages: ignored (default) or one ticket per group (docs/messaging.md#groups). */
  groupMode: z.enum(GROUP_MODES).default('ignore'),
  /** #33.4 Calls (Baileys): let them ring, or reject them and send `callRejectMessage` when set. */
  callMode: z.enum(CALL_MODES).default('ring'),
  callRejectMessage: Message.default(''),
  /** #33.4 A call from a customer without an open ticket opens one (otherwise it is only logged on an open one). */
  callOpensTicket: z.boolean().default(false),
});
export type WhatsappInput = z.infer<typeof WhatsappInput>;
export const WhatsappUpdate = WhatsappInput.partial().omit({ channel: true });
export type WhatsappUpdate = z.infer<typeof WhatsappUpdate>;

export const Whatsapp = z
  .looseObject({
    id: z.number(),
    name: z.string(),
    channel: oneOf(CHANNEL_KINDS),
    status: oneOf(CONNECTION_STATES),
    qrcode: z.string(),
    retries: z.number(),
    number: z.string(),
    isDefault: z.boolean(),
    greetingMessage: z.string(),
    complationMessage: z.string(),
    outOfHoursMessage: z.string(),
    ratingMessage: z.string(),
    expiresInactiveMessage: z.string(),
    token: z.string(),
    provider: z.string(),
    transferQueueId: z.number().nullable(),
    timeToTransfer: z.number().nullable(),
    promptId: z.number().nullable(),
    integrationId: z.number().nullable(),
    flowId: z.number().nullable().optional(),
    expiresTicket: z.number(),
    timeUseBotQueues: z.number(),
    maxUseBotQueues: z.number(),
    closeOpenChatsAfter: z.number(),
    channelConfig: z.record(z.string(), z.unknown()),
    groupMode: oneOf(GROUP_MODES).optional(),
    callMode: oneOf(CALL_MODES).optional(),
    callRejectMessage: z.string().optional(),
    callOpensTicket: z.boolean().optional(),
    /**
     * #33.3 The last outage the connection recovered messages after: how many were stored as recovered, and
     * when it left CONNECTED and came back ("12 mensagens recuperadas após 3 h offline"); null when none.
     */
    recovery: z
      .looseObject({ count: z.number(), startedAt: Timestamp, endedAt: Timestamp })
      .nullable()
      .optional(),
    /**
     * Why a DISCONNECTED or TIMEOUT connection is not running: `reason` a code the web translates
     * (`connections.reason.*`), `detail` the provider's own words when there are any.
     */
    statusReason: z
      .looseObject({
        reason: z.string(),
        detail: z.string().optional(),
      })
      .optional(),
    queues: z.array(
      z.looseObject({
        id: z.number(),
        name: z.string(),
        color: z.string(),
      }),
    ),
    updatedAt: Timestamp,
  })
  .meta({ id: 'Whatsapp' });
export type Whatsapp = Wire<typeof Whatsapp>;

/** GET /whatsapp/{id}/inbound-failures (admins): customer messages given up after repeated failures. */
export const InboundFailure = z
  .looseObject({
    id: z.number(),
    providerId: z.string(),
    sender: z.string(),
    preview: z.string(),
    attempts: z.number(),
    error: z.string(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  })
  .meta({ id: 'InboundFailure' });
export type InboundFailure = Wire<typeof InboundFailure>;

export const InboundFailureList = z
  .looseObject({
    failures: z.array(InboundFailure),
  })
  .meta({ id: 'InboundFailureList' });
export type InboundFailureList = Wire<typeof InboundFailureList>;

/** The simulator's HTTP entry (GUIDE §8). */
export const SimulatorInbound = z
  .object({
    id: z.string().trim().min(1).max(128).optional(),
    from: z
      .string()
      .trim()
      .max(30)
      .regex(/^\+?[\d\s().-]+$/, 'phone number')
      .refine((v) => v.replace(/\D/g, '').length >= 8, 'phone number'),
    name: z.string().trim().max(100).optional(),
    body: z.string().max(20000).optional(),
    media: z
      .object({
        mimetype: z
          .string()
          .regex(/^[\w.+-]+\/[\w.+-]+$/, 'mimetype')
          .max(100),
        filename: z.string().trim().min(1).max(200),
        data: z.string().max(22_000_000),
      })
      .optional(),
  })
  .refine((v) => Boolean(v.body?.trim()) || Boolean(v.media), {
    message: 'body or media is required',
    path: ['body'],
  });
export type SimulatorInbound = z.infer<typeof SimulatorInbound>;

/** GET /simulator/{id}/customers: the simulated phone's conversations, newest first. */
export const SimulatorCustomer = z
  .looseObject({
    number: z.string(),
    name: z.string(),
    /** The last message's text ('' for a file sent without a caption: see lastMediaType). */
    lastMessage: z.string(),
    /** The last message's file kind and name, null without a file. */
    lastMediaType: z.string().nullable(),
    lastMediaName: z.string().nullable(),
    lastAt: Timestamp,
  })
  .meta({ id: 'SimulatorCustomer' });
export type SimulatorCustomer = Wire<typeof SimulatorCustomer>;

/** One message as the simulated customer's phone sees it (GET /simulator/{id}/conversations/{number}, events). */
export const SimulatorMessageView = z
  .looseObject({
    id: z.string(),
    number: z.string(),
    /** true: sent by the company; false: sent by the customer. */
    fromMe: z.boolean(),
    body: z.string(),
    mediaType: z.string().nullable(),
    mediaUrl: z.string().nullable(),
    /** The file's name (a document shows it, with the caption under it); null without a file. */
    mediaName: z.string().nullable(),
    /** 1 sent, 2 delivered, 3 read. */
    ack: z.number(),
    isDeleted: z.boolean(),
    /** Changed by the company after it was sent. */
    isEdited: z.boolean(),
    /** The message this one answers, as the phone shows it above the text. */
    quoted: z
      .looseObject({
        id: z.string(),
        fromMe: z.boolean(),
        body: z.string(),
        mediaType: z.string().nullable(),
      })
      .nullable(),
    createdAt: Timestamp,
  })
  .meta({ id: 'SimulatorMessage' });
export type SimulatorMessageView = Wire<typeof SimulatorMessageView>;
