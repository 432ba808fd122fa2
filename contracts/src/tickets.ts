import { TemplateSendInput } from './templates.js';
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

export interface TicketView {
  id: number;
  uuid: string;
  status: TicketStatus;
  contactId: number;
  contact: {
    id: number;
    name: string;
    number: string;
    email: string;
    profilePicUrl: string;
    isGroup: boolean;
  };
  queueId: number | null;
  queue: { id: number; name: string; color: string } | null;
  userId: number | null;
  user: { id: number; name: string } | null;
  whatsappId: number | null;
  whatsapp: { id: number; name: string; channel: string } | null;
  lastMessage: string;
  unreadMessages: number;
  isGroup: boolean;
  chatbot: boolean;
  useIntegration: boolean;
  integrationId: number | null;
  promptId: number | null;
  tags: { id: number; name: string; color: string }[];
  ticketSourceTracking: {
    id: number;
    uuid: string;
    campaign: string;
    source: string;
    medium: string;
    metadata: { sourceUrl?: string };
    createdAt: string;
  }[];
  createdAt: string;
  updatedAt: string;
}

/** A message as the server answers it (GET /messages/:ticketId, events): one definition for server and web. */
export interface MessageView {
  id: number;
  ticketId: number;
  body: string;
  mediaType: string | null;
  mediaUrl: string | null;
  mediaName: string | null;
  fromMe: boolean;
  ack: number;
  read: boolean;
  isDeleted: boolean;
  isEdited: boolean;
  userId: number | null;
  createdAt: string;
  updatedAt: string;
  quotedMsg: { id: number; body: string; fromMe: boolean; mediaType: string | null } | null;
  contact: { id: number; name: string } | null;
  data: Record<string, unknown> | null;
}
