import { z } from 'zod';
import { ContactView } from './contacts.js';
import { oneOf, type Wire } from './responses.js';
import { TicketView, MessageView } from './tickets.js';

const Id = z.coerce.number().int().positive().max(2147483647);

// ---- #32.8 contact merge (docs/productivity.md "Contact merge") ----

/** POST /contacts/{id}/merge: `id` survives, `otherId` is moved into it and deleted. */
export const ContactMergeInput = z.strictObject({ otherId: Id }).meta({ id: 'ContactMergeInput' });
export type ContactMergeInput = z.infer<typeof ContactMergeInput>;

export const ContactMergeResult = z
  .looseObject({
    contact: ContactView,
    /** The deleted contact's id. */
    mergedId: z.number(),
    /** How many of the other's tickets and messages now belong to the survivor. */
    movedTickets: z.number(),
    movedMessages: z.number(),
    /** The other's open tickets merged into the survivor's open ticket on the same connection (then closed). */
    mergedTickets: z.array(z.looseObject({ from: z.number(), into: z.number() })),
  })
  .meta({ id: 'ContactMergeResult' });
export type ContactMergeResult = Wire<typeof ContactMergeResult>;

/** What a merge would move: the confirmation dialog's counts (GET /contacts/{id}/merge-preview?otherId). */
export const ContactMergePreview = z
  .looseObject({
    tickets: z.number(),
    openTickets: z.number(),
    messages: z.number(),
    schedules: z.number(),
    notes: z.number(),
    /** true when the other has an owner and the survivor none: the owner moves. */
    ownerMoves: z.boolean(),
  })
  .meta({ id: 'ContactMergePreview' });
export type ContactMergePreview = Wire<typeof ContactMergePreview>;
export const ContactMergePreviewQuery = z.strictObject({ otherId: Id });

export const DUPLICATE_REASONS = ['ninth_digit', 'lid', 'email'] as const;
export type DuplicateReason = (typeof DUPLICATE_REASONS)[number];

/** One suggestion: two contacts that look like one person, and why. */
export const ContactDuplicate = z
  .looseObject({
    reason: oneOf(DUPLICATE_REASONS),
    contacts: z.array(ContactView),
  })
  .meta({ id: 'ContactDuplicate' });
export type ContactDuplicate = Wire<typeof ContactDuplicate>;
export const DUPLICATE_PAGE_SIZE = 20;
export const ContactDuplicatePage = z
  .looseObject({ duplicates: z.array(ContactDuplicate), hasMore: z.boolean() })
  .meta({ id: 'ContactDuplicatePage' });
export type ContactDuplicatePage = Wire<typeof ContactDuplicatePage>;
export const ContactDuplicateQuery = z.strictObject({
  pageNumber: z.coerce.number().int().min(1).max(100000).optional().default(1),
});

// ---- #32.9 pin and forward ----

/** PUT /tickets/{id}/pin {pinned}; POST pins, DELETE unpins. */
export const TicketPinInput = z.strictObject({ pinned: z.boolean() }).meta({ id: 'TicketPinInput' });
export const TicketPinResult = z
  .looseObject({ ticketId: z.number(), pinned: z.boolean() })
  .meta({ id: 'TicketPinResult' });
export type TicketPinResult = Wire<typeof TicketPinResult>;
/** Most pins one user keeps (the top of a list, not a second list). */
export const MAX_PINS = 50;

/**
 * POST /messages/forward: messages of tickets the user can see, to an open ticket (`ticketId`) or to a
 * contact (`contactId`, on `whatsappId` or the default connection: its open ticket, or a new one like a new
 * outbound conversation). Sent in the order they were written.
 */
export const ForwardInput = z
  .strictObject({
    messageIds: z.array(Id).min(1).max(50),
    ticketId: Id.optional(),
    contactId: Id.optional(),
    whatsappId: Id.optional(),
  })
  .refine((v) => (v.ticketId === undefined) !== (v.contactId === undefined), {
    message: 'Give either ticketId or contactId',
    path: ['ticketId'],
  })
  .refine((v) => v.whatsappId === undefined || v.contactId !== undefined, {
    message: 'whatsappId goes with contactId',
    path: ['whatsappId'],
  })
  .meta({ id: 'ForwardInput' });
export type ForwardInput = z.infer<typeof ForwardInput>;

export const ForwardResult = z
  .looseObject({ ticket: TicketView, messages: z.array(MessageView) })
  .meta({ id: 'ForwardResult' });
export type ForwardResult = Wire<typeof ForwardResult>;
