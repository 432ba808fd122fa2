import { z } from 'zod';
import { ListQuery } from './users.js';
import { TemplateSendInput } from './templates.js';

/**
 * Scheduled messages (docs/team-tools.md). A schedule waits as PENDENTE; at sendAt the sender claims it
 * (AGENDADA: being sent), then it ends ENVIADA (sentAt set) or ERRO (with the reason shown on screen).
 * Only an unsent schedule (no sentAt, not being sent) can be changed.
 */
export const SCHEDULE_STATUSES = ['PENDENTE', 'AGENDADA', 'ENVIADA', 'ERRO'] as const;
export type ScheduleStatus = (typeof SCHEDULE_STATUSES)[number];

export const SCHEDULE_BODY_MIN = 5;
export const SCHEDULE_BODY_MAX = 4000;
/** Attachments of a schedule: png, jpg, jpeg only (docs/team-tools.md). */
export const SCHEDULE_MEDIA_EXTENSIONS = ['png', 'jpg', 'jpeg'] as const;
export const SCHEDULE_MEDIA_TYPES = ['image/png', 'image/jpeg'] as const;
/** The default send time of a new schedule: one hour from now. */
export const SCHEDULE_DEFAULT_DELAY_MS = 60 * 60 * 1000;
/** A send time further in the past than this is refused (a typo, not an intention to send at once). */
export const SCHEDULE_PAST_TOLERANCE_MS = 5 * 60 * 1000;

const Id = z.coerce.number().int().positive().max(2147483647);
const When = z.coerce.date().refine((d) => !Number.isNaN(d.getTime()) && d.getUTCFullYear() < 10000, 'date');

const ScheduleFields = z.object({
  /** The text; with a template it is left out (the server stores the template's rendered text). */
  body: z.string().trim().min(SCHEDULE_BODY_MIN).max(SCHEDULE_BODY_MAX).optional(),
  contactId: Id,
  sendAt: When,
  /** The connection to send on; left out: the contact's active ticket's, or the company's default one. */
  whatsappId: Id.nullable().optional(),
  /** The ticket it was scheduled from, when any. */
  ticketId: Id.nullable().optional(),
  /**
   * WhatsApp Cloud API (docs/cloud-api.md): an approved template of the schedule's connection, sent instead
   * of free text, so it is delivered outside the customer's 24-hour window too. `null` on update drops it.
   */
  template: TemplateSendInput.nullable().optional(),
});
export const ScheduleInput = ScheduleFields.refine((s) => Boolean(s.body) || Boolean(s.template), {
  message: 'body or template is required',
  path: ['body'],
});
export type ScheduleInput = z.input<typeof ScheduleInput>;
export type ScheduleInputParsed = z.infer<typeof ScheduleInput>;

export const ScheduleUpdate = ScheduleFields.partial();
export type ScheduleUpdate = z.infer<typeof ScheduleUpdate>;

/** GET /schedules/connection: the connection a schedule to this contact goes out on (the dialog asks). */
export const ScheduleConnectionQuery = z.object({
  contactId: Id,
  whatsappId: Id.optional(),
});
export type ScheduleConnectionQuery = z.infer<typeof ScheduleConnectionQuery>;
export interface ScheduleConnection {
  /** null: the company has no connection to send on. */
  connection: { id: number; name: string; channel: string } | null;
}

/** GET /schedules: searchParam (body or contact name), pageNumber, contactId, and a sendAt range. */
export const ScheduleListQuery = ListQuery.extend({
  contactId: Id.optional(),
  userId: Id.optional(),
  /** sendAt >= from */
  from: When.optional(),
  /** sendAt < to */
  to: When.optional(),
  status: z.enum(SCHEDULE_STATUSES).optional(),
});
export type ScheduleListQuery = z.infer<typeof ScheduleListQuery>;

export interface Schedule {
  id: number;
  companyId: number;
  body: string;
  contactId: number;
  ticketId: number | null;
  userId: number | null;
  whatsappId: number | null;
  sendAt: string;
  sentAt: string | null;
  status: ScheduleStatus;
  /** Cloud API: the template it sends (then `body` is the template's rendered text). */
  template: TemplateSendInput | null;
  /** Why the send failed (status ERRO). */
  error: string | null;
  mediaName: string | null;
  /** `/api/schedules/{id}/media` when there is an attachment. */
  mediaPath: string | null;
  contact: { id: number; name: string; number: string };
  user: { id: number; name: string } | null;
  /** The ticket the message went out on, once sent. */
  sentTicketId: number | null;
  createdAt: string;
  updatedAt: string;
}

export interface SchedulePage {
  schedules: Schedule[];
  hasMore: boolean;
}

export type ScheduleEvent =
  { action: 'create' | 'update'; schedule: Schedule } | { action: 'delete'; scheduleId: number };
