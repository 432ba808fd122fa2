import { z } from 'zod';

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

export interface Webhook {
  id: number;
  name: string;
  url: string;
  events: WebhookEvent[];
  enabled: boolean;
  failingSince: string | null;
  /** Why it was switched off automatically ('' otherwise). */
  disabledReason: string;
  createdAt: string;
  updatedAt: string;
}

/** The secret, only on request by an admin (reveal) or right after it was made (create, regenerate). */
export interface WebhookSecret {
  secret: string;
}

export const WEBHOOK_DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const;
export type WebhookDeliveryStatus = (typeof WEBHOOK_DELIVERY_STATUSES)[number];

export interface WebhookDelivery {
  id: number;
  webhookId: number;
  event: WebhookEvent;
  status: WebhookDeliveryStatus;
  attempts: number;
  lastStatusCode: number | null;
  lastError: string;
  lastAttemptAt: string | null;
  nextAttemptAt: string | null;
  deliveredAt: string | null;
  createdAt: string;
  /** The JSON body as sent. */
  body: string;
}

export const WebhookDeliveryQuery = z.object({
  pageNumber: z.coerce.number().int().min(1).max(100000).default(1),
});
export interface WebhookDeliveryPage {
  deliveries: WebhookDelivery[];
  hasMore: boolean;
}

/** What every delivery's JSON body looks like. */
export interface WebhookPayload<T = unknown> {
  /** Unique per event and webhook (a UUID): a receiver ignores one it has seen. */
  id: string;
  event: WebhookEvent;
  companyId: number;
  createdAt: string;
  data: T;
}
