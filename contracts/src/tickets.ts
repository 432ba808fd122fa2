import { ConversationWindow, TemplateSendInput } from './templates.js';
import { Timestamp, hasMoreOf, type Wire } from './responses.js';
import { z } from 'zod';

export const TICKET_STATUSES = ['pending', 'open', 'closed'] as const;
export type TicketStatus = (typeof TICKET_STATUSES)[number];
export const TICKET_PAGE_SIZE = 40;
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
});
export type TicketListQuery = z.infer<typeof TicketListQuery>;

const OptionalId = z.coerce.number().int().positive().max(2147483647).nullable().optional();

export const TicketCreate = z.object({
  contactId: z.coerce.number().int().positive().max(2147483647),
  queueId: OptionalId,
  whatsappId: OptionalId,
  userId: OptionalId,
  status: z.enum(['open', 'pending']).default('open'),
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
});
export type TicketUpdate = z.infer<typeof TicketUpdate>;

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
    unreadMessages: z.number(),
    isGroup: z.boolean(),
    chatbot: z.boolean(),
    useIntegration: z.boolean(),
    integrationId: z.number().nullable(),
    promptId: z.number().nullable(),
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
