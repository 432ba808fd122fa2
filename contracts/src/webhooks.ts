import { z } from 'zod';
import { Timestamp, type Wire, oneOf } from './responses.js';

/** Events an outgoing webhook can subscribe to (docs/webhooks.md). */
export const WEBHOOK_EVENTS = [
  'message.created',
  'message.ack',
  'ticket.created',
  'ticket.updated',
  'ticket.assigned',
  'contact.created',
  'campaign.finished',
  'flow.completed',
  'flow.failed',
  'sla.breached',
  'call.received',
  'connection.updated',
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

/** A message as webhooks send it. */
export const WebhookMessage = z
  .looseObject({
    id: z.number(),
    ticketId: z.number(),
    contactId: z.number().nullable(),
    whatsappId: z.number().nullable(),
    /** '' once deleted. */
    body: z.string(),
    mediaType: z.string().nullable(),
    mediaName: z.string().nullable(),
    fromMe: z.boolean(),
    ack: z.number(),
    userId: z.number().nullable(),
    createdAt: z.string(),
    /**
     * For a file: a download link signed with an expiry (no sign-in needed until `mediaUrlExpiresAt`); null
     * without a file. docs/webhooks.md#files.
     */
    mediaUrl: z.string().nullable(),
    mediaUrlExpiresAt: z.string().nullable(),
  })
  .meta({ id: 'WebhookMessage' });

const named = z.looseObject({ id: z.number(), name: z.string() });

/** A ticket as every ticket event sends it, whoever made the change (docs/webhooks.md#events). */
export const WebhookTicket = z
  .looseObject({
    id: z.number(),
    uuid: z.string(),
    /** #32.4 The protocol number, unique in the company. */
    protocol: z.string(),
    status: z.string(),
    queueId: z.number().nullable(),
    queue: named.nullable(),
    userId: z.number().nullable(),
    user: named.nullable(),
    contactId: z.number(),
    contact: z.looseObject({
      id: z.number(),
      name: z.string(),
      number: z.string(),
      isGroup: z.boolean(),
      /** #32.7 The contact's custom field values by key. */
      customFields: z.record(z.string(), z.unknown()).optional(),
    }),
    whatsappId: z.number().nullable(),
    /** The connection it runs on and its channel (`baileys`, `cloud_api`, `simulator`, …). */
    channel: z.looseObject({ id: z.number(), name: z.string(), channel: z.string() }).nullable(),
    tags: z.array(named),
    isGroup: z.boolean(),
    /** #32.7 The ticket's custom field values by key. */
    customFields: z.record(z.string(), z.unknown()).optional(),
  })
  .meta({ id: 'WebhookTicket' });

/** Who made a ticket change (`ticket.updated`'s `actor`). */
export const WEBHOOK_TICKET_ACTORS = [
  'user',
  'bot',
  'ai',
  'integration',
  'timer',
  'schedule',
  'api',
  'routing',
] as const;
export type WebhookTicketActor = (typeof WEBHOOK_TICKET_ACTORS)[number];

export const WebhookContact = z
  .looseObject({
    id: z.number(),
    name: z.string(),
    number: z.string(),
    email: z.string().optional(),
    isGroup: z.boolean().optional(),
    createdAt: z.string().optional(),
    /** #32.7 Custom field values by key. */
    customFields: z.record(z.string(), z.unknown()).optional(),
  })
  .meta({ id: 'WebhookContact' });

const change = z.object({ from: z.unknown(), to: z.unknown() });

/** flow.completed / flow.failed: the run, where it ended and the variables it collected. */
const flowRunData = z.looseObject({
  flow: z.looseObject({ id: z.number(), name: z.string(), version: z.number().nullable() }),
  runId: z.number(),
  ticket: WebhookTicket,
  /** The node the run ended on (a transfer, a close, an exit with no edge, the node that failed). */
  nodeId: z.string().nullable(),
  /** The answers and variables by name (`{ name: 'Ana', cpf: '12345678909', ... }`). */
  variables: z.record(z.string(), z.unknown()),
  /** flow.failed: which node and why; null otherwise. */
  error: z.string().nullable(),
});

/**
 * Each event's `data`. The OpenAPI document's `webhooks` section is generated from this map
 * (server/src/http/openapi.ts): change a payload here and the document follows.
 */
export const WEBHOOK_EVENT_DATA = {
  'message.created': z.looseObject({ direction: z.enum(['inbound', 'outbound']), message: WebhookMessage }),
  'message.ack': z.looseObject({ messageId: z.number(), ticketId: z.number(), ack: z.number() }),
  'ticket.created': z.looseObject({
    ticket: WebhookTicket,
    actor: z.enum(['customer', ...WEBHOOK_TICKET_ACTORS]),
  }),
  'ticket.updated': z.looseObject({
    ticket: WebhookTicket,
    /** What the change did: update, accept, reopen, return, close, transfer (a user's), or the actor's move. */
    action: z.string(),
    actor: z.enum(WEBHOOK_TICKET_ACTORS),
    /** The user who changed it; null when it was not a user. */
    by: z.number().nullable(),
    /** Only what changed; `tags` as tag ids. */
    changes: z.object({
      status: change.optional(),
      queueId: change.optional(),
      userId: change.optional(),
      tags: z.object({ from: z.array(z.number()), to: z.array(z.number()) }).optional(),
    }),
  }),
  /** #30 Routing gave a waiting ticket to an attendant (docs/routing.md). */
  'ticket.assigned': z.looseObject({
    ticket: WebhookTicket,
    user: z.looseObject({ id: z.number(), name: z.string() }),
    /** The queue's policy: manual (an owner's customer under manual), round_robin, least_busy. */
    policy: z.enum(['manual', 'round_robin', 'least_busy']),
    /** policy: the queue's policy chose; owner: the contact's owner; skip: passed on after a skip. */
    reason: z.enum(['policy', 'owner', 'skip']),
  }),
  'contact.created': z.looseObject({ contact: WebhookContact }),
  'campaign.finished': z.looseObject({ campaignId: z.number() }),
  /** A conversation's flow run ended (docs/flows.md "Webhooks"): its last node led nowhere, or a transfer/close. */
  'flow.completed': flowRunData,
  /** A run failed (a node's error with nothing after it): people have the ticket; `error` names the node and why. */
  'flow.failed': flowRunData,
  /** #30.5 A ticket missed an SLA target (docs/metrics.md "SLA"): once per due time. */
  'sla.breached': z.looseObject({
    ticket: WebhookTicket,
    kind: z.enum(['first_response', 'next_response', 'resolution']),
    policyId: z.number().nullable(),
    dueAt: z.string(),
    breachedAt: z.string(),
  }),
  /** #33.4 A WhatsApp call reached a connection (docs/webhooks.md): rejected or left to ring, logged or not. */
  'call.received': z.looseObject({
    call: z.looseObject({
      /** The provider's call id. */
      id: z.string(),
      whatsappId: z.number(),
      /** The caller's number (digits); '' when only a hidden id is known. */
      from: z.string(),
      isVideo: z.boolean(),
      isGroup: z.boolean(),
      at: z.string(),
      /** The connection rejected it (its call setting). */
      rejected: z.boolean(),
    }),
    /** The ticket the missed-call line went to; null when none (no open ticket and no new one set). */
    ticketId: z.number().nullable(),
    contactId: z.number().nullable(),
  }),
  /**
   * #33.1 A connection changed state, was told down to the admins (`alert: 'down'`, once per outage past the
   * company's threshold) or came back from such an outage (`alert: 'back'`, with its length): docs/connection-health.md.
   */
  'connection.updated': z.looseObject({
    connection: z.looseObject({ id: z.number(), name: z.string(), channel: z.string() }),
    status: z.string(),
    previousStatus: z.string().nullable(),
    reason: z.string().nullable(),
    at: z.string(),
    alert: z.enum(['down', 'back']).nullable(),
    /** The outage's length in seconds: on 'back', and on 'down' (so far); null otherwise. */
    outageSeconds: z.number().nullable(),
    incidentId: z.number().nullable(),
  }),
} satisfies Record<WebhookEvent, z.ZodType>;

/** The JSON body of one event's deliveries: the envelope of every delivery around that event's `data`. */
export const webhookPayloadSchema = (event: WebhookEvent) =>
  z.looseObject({
    /** Unique per event and webhook (a UUID): a receiver ignores one it has seen. */
    id: z.string(),
    event: z.literal(event),
    companyId: z.number(),
    /** The event's number in the company, growing by one per event in the order they happened. */
    sequence: z.number(),
    /** When it happened. */
    occurredAt: z.string(),
    /** When it was queued for this webhook. */
    createdAt: z.string(),
    data: WEBHOOK_EVENT_DATA[event],
  });

/** What every delivery's JSON body looks like. */
export interface WebhookPayload<T = unknown> {
  /** Unique per event and webhook (a UUID): a receiver ignores one it has seen. */
  id: string;
  event: WebhookEvent;
  companyId: number;
  /** Per company, one per event, in the order the events happened (docs/webhooks.md#order). */
  sequence: number;
  occurredAt: string;
  createdAt: string;
  data: T;
}
