import { z } from 'zod';

/**
 * #34.1 Website chat widget (docs/channels.md "Website chat"): a `webchat` connection's channelConfig, what
 * the widget reads from `GET /api/widget/{publicId}/config`, and the widget's own API and socket events.
 */

/** An origin the widget may be embedded on: scheme, host and port, without a path (`https://shop.example`). */
export const WidgetOrigin = z
  .string()
  .trim()
  .max(200)
  .regex(/^https?:\/\/[a-z0-9.-]+(:\d{1,5})?$/i, 'An origin is scheme://host[:port], without a path')
  .transform((s) => s.toLowerCase());

export const WIDGET_POSITIONS = ['right', 'left'] as const;

/** What an admin sets on a webchat connection; `publicId` is made by the server and never changes. */
export const WebchatConfig = z.object({
  publicId: z.string().max(40).optional(),
  /** The bubble's and the header's colour. */
  color: z
    .string()
    .regex(/^#[0-9a-fA-F]{6}$/)
    .default('#2563eb'),
  position: z.enum(WIDGET_POSITIONS).default('right'),
  title: z.string().trim().max(60).default(''),
  greeting: z.string().trim().max(500).default(''),
  /** Pages allowed to embed the widget; empty: none (the widget refuses every page until one is set). */
  allowedOrigins: z.array(WidgetOrigin).max(50).default([]),
  preChatForm: z.boolean().default(false),
  /** The pre-chat form asks for an e-mail, a phone number, or either. */
  preChatContact: z.enum(['email', 'phone', 'either']).default('either'),
  /** Shown beside the consent checkbox; empty: no checkbox. */
  consentText: z.string().trim().max(500).default(''),
  offlineForm: z.boolean().default(true),
});
export type WebchatConfig = z.infer<typeof WebchatConfig>;

/** What the widget reads before it shows anything (no data of the company beyond its looks). */
export const WidgetConfigView = z.object({
  publicId: z.string(),
  color: z.string(),
  position: z.enum(WIDGET_POSITIONS),
  title: z.string(),
  greeting: z.string(),
  preChatForm: z.boolean(),
  preChatContact: z.enum(['email', 'phone', 'either']),
  consentText: z.string(),
  offlineForm: z.boolean(),
  /** Some attendant of the company is online now. */
  online: z.boolean(),
  limits: z.object({ messageChars: z.number(), fileBytes: z.number(), perMinute: z.number() }),
});
export type WidgetConfigView = z.infer<typeof WidgetConfigView>;

export const WidgetVisitorInput = z.object({
  name: z.string().trim().max(100).default(''),
  email: z.union([z.literal(''), z.email().max(200)]).default(''),
  phone: z
    .string()
    .trim()
    .max(30)
    .regex(/^[+\d\s().-]*$/)
    .default(''),
  consent: z.boolean().default(false),
  pageUrl: z.string().max(1000).default(''),
  language: z.string().max(20).default(''),
  /** The offline form: its message opens the ticket, and the agents' replies go by e-mail. */
  offline: z.boolean().default(false),
  message: z.string().max(4000).default(''),
});
export type WidgetVisitorInput = z.infer<typeof WidgetVisitorInput>;

export const WidgetVisitorAnswer = z.object({ visitorId: z.string(), visitorToken: z.string() });

export const WidgetMessageInput = z.object({ body: z.string().min(1) });

export const WidgetMessageView = z.object({
  id: z.string(),
  fromVisitor: z.boolean(),
  body: z.string(),
  media: z
    .object({ url: z.string(), mimetype: z.string(), filename: z.string(), size: z.number() })
    .nullable(),
  read: z.boolean(),
  createdAt: z.string(),
});
export type WidgetMessageView = z.infer<typeof WidgetMessageView>;

/** Events of the `/widget` socket namespace (server → visitor, and visitor → server). */
export const WIDGET_EVENTS = {
  message: 'widget:message',
  read: 'widget:read',
  typing: 'widget:typing',
  /** Visitor → server: a text message, answered by its view or `{ error }`. */
  send: 'widget:send',
  /** Visitor → server: the agent's messages up to now were seen. */
  seen: 'widget:seen',
} as const;
