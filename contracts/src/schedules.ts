import { z } from 'zod';
import { Timestamp, type Wire, oneOf } from './responses.js';
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
/** GET /schedules/connection: the connection a schedule for this contact would use (null: the company has none). */
export const ScheduleConnection = z
  .looseObject({
    connection: z.looseObject({ id: z.number(), name: z.string(), channel: z.string() }).nullable(),
  })
  .meta({ id: 'ScheduleConnection' });
export type ScheduleConnection = Wire<typeof ScheduleConnection>;

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

export const Schedule = z
  .looseObject({
    id: z.number(),
    companyId: z.number(),
    body: z.string(),
    contactId: z.number(),
    ticketId: z.number().nullable(),
    userId: z.number().nullable(),
    whatsappId: z.number().nullable(),
    sendAt: Timestamp,
    sentAt: Timestamp.nullable(),
    status: oneOf(SCHEDULE_STATUSES),
    /** Cloud API: the template it sends (then `body` is the template's rendered text). */
    template: z
      .looseObject({
        name: z.string(),
        language: z.string(),
        variables: z.array(z.string()).optional(),
        headerVariables: z.array(z.string()).optional(),
        headerMediaUrl: z.string().optional(),
      })
      .nullable(),
    /** Why the send failed (status ERRO). */
    error: z.string().nullable(),
    mediaName: z.string().nullable(),
    /** `/api/schedules/{id}/media` when there is an attachment. */
    mediaPath: z.string().nullable(),
    contact: z.looseObject({
      id: z.number(),
      name: z.string(),
      number: z.string(),
    }),
    user: z
      .looseObject({
        id: z.number(),
        name: z.string(),
      })
      .nullable(),
    /** The ticket the message went out on, once sent. */
    sentTicketId: z.number().nullable(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  })
  .meta({ id: 'Schedule' });
export type Schedule = Wire<typeof Schedule>;

export const SchedulePage = z
  .looseObject({
    schedules: z.array(Schedule),
    hasMore: z.boolean(),
  })
  .meta({ id: 'SchedulePage' });
export type SchedulePage = Wire<typeof SchedulePage>;

export type ScheduleEvent =
  { action: 'create' | 'update'; schedule: Schedule } | { action: 'delete'; scheduleId: number };
