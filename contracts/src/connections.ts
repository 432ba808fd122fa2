import { z } from 'zod';

export const CHANNEL_KINDS = ['baileys', 'cloud_api', 'simulator'] as const;
export type ChannelKindName = (typeof CHANNEL_KINDS)[number];

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
  expiresTicket: z.coerce.number().int().min(0).max(100000).default(0),
  timeUseBotQueues: z.coerce.number().int().min(0).max(100000).default(0),
  maxUseBotQueues: z.coerce.number().int().min(0).max(100).default(3),
  closeOpenChatsAfter: z.coerce.number().int().min(0).max(100000).default(0),
  /** Channel settings (Cloud API ids and secrets); secrets are sealed at rest and masked in answers. */
  channelConfig: z.record(z.string(), z.unknown()).optional(),
});
export type WhatsappInput = z.infer<typeof WhatsappInput>;
export const WhatsappUpdate = WhatsappInput.partial().omit({ channel: true });
export type WhatsappUpdate = z.infer<typeof WhatsappUpdate>;

export interface Whatsapp {
  id: number;
  name: string;
  channel: ChannelKindName;
  status: ConnectionState;
  qrcode: string;
  retries: number;
  number: string;
  isDefault: boolean;
  greetingMessage: string;
  complationMessage: string;
  outOfHoursMessage: string;
  ratingMessage: string;
  expiresInactiveMessage: string;
  token: string;
  provider: string;
  transferQueueId: number | null;
  timeToTransfer: number | null;
  promptId: number | null;
  integrationId: number | null;
  expiresTicket: number;
  timeUseBotQueues: number;
  maxUseBotQueues: number;
  closeOpenChatsAfter: number;
  channelConfig: Record<string, unknown>;
  /**
   * Why a DISCONNECTED or TIMEOUT connection is not running: `reason` a code the web translates
   * (`connections.reason.*`), `detail` the provider's own words when there are any.
   */
  statusReason?: { reason: string; detail?: string };
  queues: { id: number; name: string; color: string }[];
  updatedAt: string;
}

/** GET /whatsapp/{id}/inbound-failures (admins): customer messages given up after repeated failures. */
export interface InboundFailure {
  id: number;
  providerId: string;
  sender: string;
  preview: string;
  attempts: number;
  error: string;
  createdAt: string;
  updatedAt: string;
}
export interface InboundFailureList {
  failures: InboundFailure[];
}

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
