import { ConversationWindow, TemplateSendInput } from './templates.js';
import { TicketAutomationState } from './automation.js';
import { Timestamp, hasMoreOf, type Wire } from './responses.js';
import { z } from 'zod';
import { SLA_FILTERS, TicketSla } from './sla.js';
import { SaleValue } from './closing.js';
import { CustomFieldFilter, CustomFieldValues, CustomFieldValuesInput } from './custom-fields.js';
import { ChannelListFilter } from './connections.js';

export const TICKET_STATUSES = ['pending', 'open', 'closed'] as const;
export type TicketStatus = (typeof TICKET_STATUSES)[number];
export const TICKET_PAGE_SIZE = 40;

/** A ticket's priority (#30.6): stored as its index (0 low … 3 urgent); the lists read the highest first. */
export const TICKET_PRIORITIES = ['low', 'normal', 'high', 'urgent'] as const;
export type TicketPriority = (typeof TICKET_PRIORITIES)[number];
export const TicketPriority = z.enum(TICKET_PRIORITIES);
/** 'urgent' → 3; the stored number of a priority. */
export const priorityRank = (p: TicketPriority): number => TICKET_PRIORITIES.indexOf(p);
/** 3 → 'urgent'; an unknown number reads as 'normal'. */
export const priorityOf = (rank: number): TicketPriority => TICKET_PRIORITIES[rank] ?? 'normal';
export const MESSAGE_PAGE_SIZE = 30;

/** JSON-encoded id arrays as the spec's client sends them (`queueIds=[1,2]`), or comma lists. */
const IdList = z
  .union([z.string(), z.array(z.coerce.number())])
  .optional()
  .transform((v, ctx) => {
    if (v === undefined || v === '') return undefined;
    if (Array.isArray(v)) return v;
    try {
      const parsed: unknown = v.trim().startsWith('[') ? JSON.parse(v) : v.split(',');
      const ids = (parsed as unknown[]).map(Number);
      if (ids.some((n) => !Number.isInteger(n) || n <= 0 || n > 2147483647)) throw new Error('ids');
      return ids.slice(0, 500);
    } catch {
      ctx.addIssue({ code: 'custom', message: 'a list of ids' });
      return z.NEVER;
    }
  });

const Bool = z
  .union([z.boolean(), z.enum(['true', 'false'])])
  .optional()
  .transform((v) => v === true || v === 'true');

const DateOnly = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'YYYY-MM-DD')
  .optional();

export const TicketListQuery = z.object({
  searchParam: z.string().trim().max(100).optional().default(''),
  pageNumber: z.coerce.number().int().min(1).max(100000).optional().default(1),
  status: z.enum(TICKET_STATUSES).optional(),
  tags: IdList,
  users: IdList,
  queueIds: IdList,
  showAll: Bool,
  withUnreadMessages: Bool,
  date: DateOnly,
  updatedAt: DateOnly,
  isGroup: Bool,
  /** The "Adiados" tab: only snoozed tickets (without it, the open and waiting lists leave them out). */
  snoozed: Bool,
  /** #30.5 Only tickets whose SLA is at risk or breached (docs/metrics.md "SLA"). */
  sla: z.enum(SLA_FILTERS).optional(),
  /** #32.7 `{"key": value}` as JSON: tickets whose custom fields hold every pair. */
  customFields: CustomFieldFilter,
  /** #34.4 Only tickets whose connection is of one of these channels (docs/channels.md "One inbox"). */
  channels: ChannelListFilter,
});
export type TicketListQuery = z.infer<typeof TicketListQuery>;

const OptionalId = z.coerce.number().int().positive().max(2147483647).nullable().optional();

export const TicketCreate = z.object({
  contactId: z.coerce.number().int().positive().max(2147483647),
  queueId: OptionalId,
  whatsappId: OptionalId,
  userId: OptionalId,
  status: z.enum(['open', 'pending']).default('open'),
  priority: TicketPriority.optional(),
  /** #32.7 Custom field values by key (required fields must be given). */
  customFields: CustomFieldValuesInput.optional(),
});
export type TicketCreate = z.infer<typeof TicketCreate>;

export const TicketUpdate = z.object({
  status: z.enum(TICKET_STATUSES).optional(),
  userId: OptionalId,
  queueId: OptionalId,
  whatsappId: OptionalId,
  useIntegration: z.boolean().optional(),
  promptId: OptionalId,
  integrationId: OptionalId,
  priority: TicketPriority.optional(),
  /** #32.3 With status 'closed': the company's closing reason (required when closingReasonMode is 'required'). */
  closingReasonId: OptionalId,
  /** #32.3 With status 'closed': the sale value, ≥ 0 with at most two decimals. */
  saleValue: SaleValue.nullable().optional(),
  /** #32.7 Custom field values: the keys sent change (null or '' removes one). */
  customFields: CustomFieldValuesInput.optional(),
});
export type TicketUpdate = z.infer<typeof TicketUpdate>;

/** POST /tickets/{id}/snooze: until a time, until the customer writes, or both (the first to come wakes it). */
export const TicketSnooze = z
  .object({
    until: z.iso.datetime({ offset: true }).optional(),
    untilReply: z.boolean().optional(),
  })
  .refine((v) => v.until !== undefined || v.untilReply === true, {
    message: 'until or untilReply',
    path: ['until'],
  });
export type TicketSnooze = z.infer<typeof TicketSnooze>;

export const UuidParam = z.object({ ticketId: z.string().uuid() });

export const MessageSend = z.object({
  body: z.string().max(20000).default(''),
  read: z.boolean().optional(),
  fromMe: z.boolean().optional(),
  mediaUrl: z.string().max(500).optional(),
  quotedMsg: z.object({ id: z.coerce.number().int().positive() }).passthrough().nullable().optional(),
  /** WhatsApp Cloud API: an approved message template instead of free text (docs/cloud-api.md). */
  template: TemplateSendInput.optional(),
});
export type MessageSend = z.infer<typeof MessageSend>;

export const MessageEdit = z.object({ body: z.string().trim().min(1).max(20000) });

/** The signature the message input adds (docs/product.md#states): the user's name in bold, a colon and a new line. */
const SIGNATURE = /^\*[^*\n]+\*:\n/;

/**
 * Splits a sent body into its signature ("*Ana*:\n", or '') and the text after it: an edit shows and
 * changes only the text, and the server puts the signature back.
 */
export function splitSignature(body: string): { signature: string; text: string } {
  const m = SIGNATURE.exec(body);
  return m ? { signature: m[0], text: body.slice(m[0].length) } : { signature: '', text: body };
}

export const TicketNoteInput = z.object({
  note: z.string().trim().min(2).max(5000),
  ticketId: z.coerce.number().int().positive().max(2147483647),
  contactId: z.coerce.number().int().positive().max(2147483647).optional(),
});
export const TicketNoteListQuery = z.object({
  ticketId: z.coerce.number().int().positive().max(2147483647).optional(),
  contactId: z.coerce.number().int().positive().max(2147483647).optional(),
});

export const TicketView = z
  .looseObject({
    id: z.number(),
    uuid: z.string(),
    /** A TicketStatus; group conversations' tickets are stored with status 'group'. */
    status: z.string() as z.ZodType<TicketStatus, TicketStatus>,
    contactId: z.number(),
    contact: z.looseObject({
      id: z.number(),
      name: z.string(),
      number: z.string(),
      email: z.string(),
      profilePicUrl: z.string(),
      isGroup: z.boolean(),
      /** #30.4 The contact's owner attendant (null: nobody's). */
      ownerId: z.number().nullable().optional(),
      /** #32.7 The contact's custom field values. */
      customFields: CustomFieldValues.optional(),
    }),
    queueId: z.number().nullable(),
    queue: z
      .looseObject({
        id: z.number(),
        name: z.string(),
        color: z.string(),
      })
      .nullable(),
    userId: z.number().nullable(),
    user: z
      .looseObject({
        id: z.number(),
        name: z.string(),
      })
      .nullable(),
    whatsappId: z.number().nullable(),
    whatsapp: z
      .looseObject({
        id: z.number(),
        name: z.string(),
        channel: z.string(),
      })
      .nullable(),
    lastMessage: z.string(),
    /** In search results only: the ticket's newest message whose text matched the search (docs/search.md). */
    searchMatch: z.looseObject({ messageId: z.number(), body: z.string() }).optional(),
    /** #32.9 Pinned by the asking user (lists and GET /tickets/{id}); absent in broadcast events. */
    pinned: z.boolean().optional(),
    unreadMessages: z.number(),
    isGroup: z.boolean(),
    chatbot: z.boolean(),
    useIntegration: z.boolean(),
    integrationId: z.number().nullable(),
    promptId: z.number().nullable(),
    /** The automation's state (docs/automation.md): answering, or failed and waiting for people; null: none. */
    automation: TicketAutomationState.nullable().optional(),
    /** low, normal, high or urgent (#30.6). */
    priority: TicketPriority,
    /** #32.7 The ticket's custom field values. */
    customFields: CustomFieldValues.optional(),
    /** #32.4 The ticket's protocol number, unique in its company (docs/productivity.md "Protocol numbers"). */
    protocol: z.string(),
    /** #32.3 The reason it was closed with (null: none, or not closed). */
    closingReasonId: z.number().nullable().optional(),
    /** #32.3 The sale value recorded on closing (null: none). */
    saleValue: z.number().nullable().optional(),
    /** Snoozed until this time (null: not snoozed, or only until the customer writes). */
    snoozedUntil: Timestamp.nullable(),
    /** Snoozed until the customer writes. */
    snoozeUntilReply: z.boolean(),
    /** When the current snooze started; null: not snoozed. */
    snoozedAt: Timestamp.nullable(),
    tags: z.array(
      z.looseObject({
        id: z.number(),
        name: z.string(),
        color: z.string(),
      }),
    ),
    ticketSourceTracking: z.array(
      z.looseObject({
        id: z.number(),
        uuid: z.string(),
        campaign: z.string(),
        source: z.string(),
        medium: z.string(),
        metadata: z.looseObject({
          sourceUrl: z.string().optional(),
        }),
        createdAt: Timestamp,
      }),
    ),
    /** #30.5 Due times and breaches of the ticket's SLA (docs/metrics.md "SLA"); all null without a policy. */
    sla: TicketSla,
    createdAt: Timestamp,
    updatedAt: Timestamp,
  })
  .meta({ id: 'TicketView' });
export type TicketView = Wire<typeof TicketView>;

/** A message as the server answers it (GET /messages/:ticketId, events): one definition for server and web. */
export const MessageView = z
  .looseObject({
    id: z.number(),
    ticketId: z.number(),
    body: z.string(),
    mediaType: z.string().nullable(),
    mediaUrl: z.string().nullable(),
    mediaName: z.string().nullable(),
    fromMe: z.boolean(),
    ack: z.number(),
    read: z.boolean(),
    isDeleted: z.boolean(),
    isEdited: z.boolean(),
    userId: z.number().nullable(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    quotedMsg: z
      .looseObject({
        id: z.number(),
        body: z.string(),
        fromMe: z.boolean(),
        mediaType: z.string().nullable(),
      })
      .nullable(),
    contact: z
      .looseObject({
        id: z.number(),
        name: z.string(),
      })
      .nullable(),
    data: z.record(z.string(), z.unknown()).nullable(),
  })
  .meta({ id: 'MessageView' });
export type MessageView = Wire<typeof MessageView>;

/** GET /tickets: a page of the list. */
export const TicketPage = hasMoreOf('tickets', TicketView).meta({ id: 'TicketPage' });

/** GET /messages/{ticketId}: a page of messages (oldest first), the ticket, and Cloud API's 24-hour window. */
export const MessagePage = z
  .looseObject({
    messages: z.array(MessageView),
    hasMore: z.boolean(),
    ticket: TicketView.optional(),
    window: ConversationWindow.optional(),
  })
  .meta({ id: 'MessagePage' });

/** GET /tickets/{id}/histories (docs/product.md#entities Ticket history): who did what to the ticket, oldest first. */
export const TicketHistory = z
  .looseObject({
    id: z.number(),
    action: z.string(),
    status: z.string().nullable(),
    createdAt: Timestamp,
    user: z.looseObject({ id: z.number(), name: z.string() }).nullable(),
    queue: z.looseObject({ id: z.number(), name: z.string(), color: z.string() }).nullable(),
    whatsapp: z.looseObject({ id: z.number(), name: z.string() }).nullable(),
  })
  .meta({ id: 'TicketHistory' });
export type TicketHistory = Wire<typeof TicketHistory>;

/** An internal note of a ticket (docs/product.md#entities Ticket note). */
export const TicketNote = z
  .looseObject({
    id: z.number(),
    note: z.string(),
    ticketId: z.number(),
    contactId: z.number().nullable(),
    user: z.looseObject({ id: z.number(), name: z.string() }).nullable(),
    createdAt: Timestamp,
  })
  .meta({ id: 'TicketNote' });
export type TicketNote = Wire<typeof TicketNote>;

/**
 * `company-{id}-ticket`: a ticket changed (it carries the whole view), its unread count went to 0, or it
 * was deleted. `previousStatus` lets a list drop a ticket that left it.
 */
export type TicketEvent =
  | { action: 'update'; ticket: TicketView; previousStatus?: string }
  | { action: 'updateUnread'; ticketId: number; ticket?: TicketView }
  | { action: 'delete'; ticketId: number };

/** `company-{id}-appMessage`: a message was stored or changed; new ones carry their ticket and contact. */
export type AppMessageEvent = {
  action: 'create' | 'update';
  message: MessageView;
  ticket?: TicketView;
  contact?: TicketView['contact'];
};
