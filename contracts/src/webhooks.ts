import { z } from 'zod';
import { Timestamp, type Wire, oneOf } from './responses.js';

/** Events an outgoing webhook can subscribe to (docs/webhooks.md). */
export const WEBHOOK_EVENTS = [
  'message.created',
  'message.ack',
  'ticket.created',
  'ticket.updated',
  'contact.created',
  'campaign.finished',
] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

/** Headers of every delivery. */
export const WEBHOOK_SIGNATURE_HEADER = 'X-Recado-Signature';
export const WEBHOOK_TIMESTAMP_HEADER = 'X-Recado-Timestamp';
export const WEBHOOK_EVENT_HEADER = 'X-Recado-Event';
export const WEBHOOK_DELIVERY_HEADER = 'X-Recado-Delivery';

export const WebhookInput = z.object({
  name: z.string().trim().max(100).default(''),
  url: z.string().trim().min(1).max(2000),
  events: z.array(z.enum(WEBHOOK_EVENTS)).min(1).max(WEBHOOK_EVENTS.length),
  enabled: z.boolean().default(true),
});
export type WebhookInput = z.input<typeof WebhookInput>;
export const WebhookUpdate = WebhookInput.partial();
export type WebhookUpdate = z.infer<typeof WebhookUpdate>;

export const Webhook = z
  .looseObject({
    id: z.number(),
    name: z.string(),
    url: z.string(),
    events: z.array(oneOf(WEBHOOK_EVENTS)),
    enabled: z.boolean(),
    failingSince: z.string().nullable(),
    /** Why it was switched off automatically ('' otherwise). */
    disabledReason: z.string(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  })
  .meta({ id: 'Webhook' });
export type Webhook = Wire<typeof Webhook>;

/** The secret, only on request by an admin (reveal) or right after it was made (create, regenerate). */
export const WebhookSecret = z
  .looseObject({
    secret: z.string(),
  })
  .meta({ id: 'WebhookSecret' });
export type WebhookSecret = Wire<typeof WebhookSecret>;

export const WEBHOOK_DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const;
export type WebhookDeliveryStatus = (typeof WEBHOOK_DELIVERY_STATUSES)[number];

export const WebhookDelivery = z
  .looseObject({
    id: z.number(),
    webhookId: z.number(),
    event: oneOf(WEBHOOK_EVENTS),
    status: oneOf(WEBHOOK_DELIVERY_STATUSES),
    attempts: z.number(),
    lastStatusCode: z.number().nullable(),
    lastError: z.string(),
    lastAttemptAt: Timestamp.nullable(),
    nextAttemptAt: Timestamp.nullable(),
    deliveredAt: Timestamp.nullable(),
    createdAt: Timestamp,
    /** The JSON body as sent. */
    body: z.string(),
  })
  .meta({ id: 'WebhookDelivery' });
export type WebhookDelivery = Wire<typeof WebhookDelivery>;

export const WebhookDeliveryQuery = z.object({
  pageNumber: z.coerce.number().int().min(1).max(100000).default(1),
});

export const WebhookDeliveryPage = z
  .looseObject({
    deliveries: z.array(WebhookDelivery),
    hasMore: z.boolean(),
  })
  .meta({ id: 'WebhookDeliveryPage' });
export type WebhookDeliveryPage = Wire<typeof WebhookDeliveryPage>;

/** What every delivery's JSON body looks like. */
export interface WebhookPayload<T = unknown> {
  /** Unique per event and webhook (a UUID): a receiver ignores one it has seen. */
  id: string;
  event: WebhookEvent;
  companyId: number;
  createdAt: string;
  data: T;
}
