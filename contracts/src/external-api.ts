import { z } from 'zod';
import { TicketPriority } from './tickets.js';
import { IDENTITY_KINDS } from './contacts.js';

/**
 * The external messaging API (docs/external-api.md): calls authenticated with a connection's token
 * (`Authorization: Bearer <token>`), for stores, ERPs and n8n flows.
 */

/** A phone number as integrators write it: digits with optional +, spaces, dots, dashes and parentheses. */
export const API_NUMBER_PATTERN = /^\+?[\d\s().-]+$/;

/**
 * The `number` field: any text up to 30 characters here; the service answers one that is not a phone number
 * (API_NUMBER_PATTERN, then 10 to 15 digits once normalized) with 400 ERR_WAPP_INVALID_CONTACT, as the docs
 * promise, rather than the schema's generic ERR_VALIDATION.
 */
export const ApiNumber = z.string().trim().max(30).meta({
  description: 'Digits, optionally with +, spaces, dots, dashes and parentheses (55 11 99999-8888)',
});

export const EXTERNAL_KEY_MAX = 200;

/**
 * #34.4 Who a message goes to: a phone `number`, a `contactId` of the company, or an `identity` of a channel
 * without phone numbers (`{"kind":"telegram","value":"<chat id>"}`) — exactly one of the three.
 */
const Recipient = {
  number: ApiNumber.optional(),
  contactId: z.coerce.number().int().positive().max(2147483647).optional(),
  identity: z
    .object({ kind: z.enum(IDENTITY_KINDS), value: z.string().trim().min(1).max(200) })
    .strict()
    .optional(),
};
const oneRecipient = (v: { number?: string; contactId?: number; identity?: unknown }) =>
  [v.number, v.contactId, v.identity].filter((x) => x !== undefined).length === 1;
const ONE_RECIPIENT = { message: 'exactly one of number, contactId or identity', path: ['number'] };

/** POST /api/messages/send (JSON; the multipart form has number, body and medias). */
export const ApiSendInput = z
  .object({
    ...Recipient,
    body: z.string().max(20000).default(''),
    /** Id of a message (GET /api/messages/status/{id}) on the same ticket to reply to. */
    quotedMsgId: z.coerce.number().int().positive().max(2147483647).optional(),
    /** The same key again (on this connection) answers the first result and sends nothing. */
    externalKey: z.string().trim().min(1).max(EXTERNAL_KEY_MAX).optional(),
    /** Sets the ticket's priority (#30.6): low, normal, high or urgent; left out, it stays as it is. */
    priority: TicketPriority.optional(),
  })
  .strict()
  .refine(oneRecipient, ONE_RECIPIENT);
export type ApiSendInput = z.infer<typeof ApiSendInput>;

export const ApiSendResult = z.object({
  /** The stored message (the last one when several files were sent). */
  messageId: z.number().int(),
  /** Every message stored by this call, in order (one per file; one for a text). */
  messageIds: z.array(z.number().int()),
  ticketId: z.number().int(),
  /** #32.4 The ticket's protocol number (what {{protocol}} in the text became). */
  protocol: z.string().optional(),
  contactId: z.number().int(),
  /** True when this answer repeats the first call with the same externalKey. */
  duplicate: z.boolean(),
});
export type ApiSendResult = z.infer<typeof ApiSendResult>;

/** POST /api/messages/schedule */
export const ApiScheduleInput = z
  .object({
    ...Recipient,
    body: z.string().trim().min(1).max(20000),
    sendAt: z.coerce.date().refine((d) => !Number.isNaN(d.getTime()) && d.getUTCFullYear() < 10000, 'date'),
  })
  .strict()
  .refine(oneRecipient, ONE_RECIPIENT);
export type ApiScheduleInput = z.infer<typeof ApiScheduleInput>;

export const ApiScheduleResult = z.object({
  scheduleId: z.number().int(),
  contactId: z.number().int(),
  sendAt: z.string(),
  status: z.string(),
});
export type ApiScheduleResult = z.infer<typeof ApiScheduleResult>;

/** GET /api/messages/status/{id}: ack 0 waiting, 1 sent, 2 delivered, 3 read, 4 played. */
export const ApiMessageStatus = z.object({
  id: z.number().int(),
  ticketId: z.number().int(),
  fromMe: z.boolean(),
  ack: z.number().int(),
  /** Why the channel refused it, when it did. */
  error: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type ApiMessageStatus = z.infer<typeof ApiMessageStatus>;

/** POST /api/contacts/check */
export const ApiCheckInput = z.object({ number: ApiNumber }).strict();
export const ApiCheckResult = z.object({
  number: z.string(),
  /** null: the connection could not answer (not a "no"). */
  exists: z.boolean().nullable(),
});
export type ApiCheckResult = z.infer<typeof ApiCheckResult>;

/** GET/POST /api/whatsapp/{id}/token (admins): the connection's API token, revealed or regenerated. */
export const ConnectionToken = z.object({
  /** null: a token exists but was made before tokens were sealed; regenerate to see one. */
  token: z.string().nullable(),
  hasToken: z.boolean(),
});
export type ConnectionToken = z.infer<typeof ConnectionToken>;
