import { z } from 'zod';
import { Day, spanDays } from './days.js';
import { Timestamp, type Wire } from './responses.js';
import { PRESENCES } from './constants.js';
import { CHANNEL_KINDS } from './connections.js';

/** docs/metrics.md: the dashboard's period options, in days (filter type 2). */
export const DASHBOARD_PERIODS = [3, 7, 15, 30, 60, 90] as const;
/** The longest range one request may cover (a date filter, type 1). */
export const DASHBOARD_MAX_DAYS = 366;
/** GET /dashboard/sourceTracking answers at most this many records, the newest first. */
export const SOURCE_TRACKING_LIMIT = 200;

const MAX_ID = 2_147_483_647;
// A Day (./days.ts) here is a calendar day in the company's time zone.

/** Narrows every figure to one queue's (or one connection's) tickets. */
const QueueFilter = z.coerce.number().int().positive().max(MAX_ID).optional();
/** #34.4 Narrows every figure to the tickets of one channel's connections. */
const ChannelFilter = z.enum(CHANNEL_KINDS).optional();

/**
 * GET /dashboard (docs/metrics.md): the last `days` days (today included), or the days from `date_from` to
 * `date_to` (both included), in the company's time zone. One of the two must be given (docs/metrics.md).
 */
export const DashboardQuery = z
  .object({
    days: z.coerce.number().int().min(1).max(DASHBOARD_MAX_DAYS).optional(),
    date_from: Day.optional(),
    date_to: Day.optional(),
    queueId: QueueFilter,
    whatsappId: QueueFilter,
    channel: ChannelFilter,
  })
  .refine((q) => q.days !== undefined || (q.date_from !== undefined && q.date_to !== undefined), {
    message: 'choose a period (days) or a date range (date_from and date_to)',
  })
  .refine((q) => !q.date_from || !q.date_to || q.date_from <= q.date_to, {
    message: 'date_from after date_to',
  })
  .refine((q) => !q.date_from || !q.date_to || spanDays(q.date_from, q.date_to) <= DASHBOARD_MAX_DAYS, {
    message: `at most ${DASHBOARD_MAX_DAYS} days`,
  });
export type DashboardQuery = z.infer<typeof DashboardQuery>;

/** GET /dashboard/ticketsUsers, /ticketsDay, /sourceTracking, /export: both days included. */
export const DashboardRangeQuery = z
  .object({
    initialDate: Day,
    finalDate: Day,
    queueId: QueueFilter,
    whatsappId: QueueFilter,
    channel: ChannelFilter,
  })
  .refine((q) => q.initialDate <= q.finalDate, { message: 'initialDate after finalDate' })
  .refine((q) => spanDays(q.initialDate, q.finalDate) <= DASHBOARD_MAX_DAYS, {
    message: `at most ${DASHBOARD_MAX_DAYS} days`,
  });
export type DashboardRangeQuery = z.infer<typeof DashboardRangeQuery>;

/** Mean and median of a duration, in minutes (one decimal); null when no ticket qualifies. */
export const DurationStat = z
  .looseObject({
    avg: z.number().nullable(),
    median: z.number().nullable(),
    count: z.number(),
  })
  .meta({ id: 'DurationStat' });
export type DurationStat = Wire<typeof DurationStat>;

export const DashboardAttendant = z
  .looseObject({
    id: z.number(),
    name: z.string(),
    /** Tickets this attendant closed in the period. */
    tickets: z.number(),
    /** Mean of the 1–3 ratings received in the period; 0 when none (shown as 0–3 stars). */
    rating: z.number(),
    ratings: z.number(),
    /** Mean minutes from first acceptance to close, over the tickets counted in `tickets`. */
    avgSupportTime: z.number().nullable(),
    online: z.boolean(),
    /** #30.2 The attendant's presence now: online, away or offline (the dot and its label). */
    presence: z.enum(PRESENCES),
  })
  .meta({ id: 'DashboardAttendant' });
export type DashboardAttendant = Wire<typeof DashboardAttendant>;

export const DashboardCounters = z
  .looseObject({
    /** The period actually read: first and last local day, and the company's time zone. */
    period: z.looseObject({
      from: z.string(),
      to: z.string(),
      timeZone: z.string(),
    }),
    supportHappening: z.number(),
    supportPending: z.number(),
    supportFinished: z.number(),
    /** Minutes (mean) — see docs/metrics.md for the exact definitions. */
    avgWaitTime: z.number().nullable(),
    avgSupportTime: z.number().nullable(),
    waitTime: DurationStat,
    supportTime: DurationStat,
    firstResponseTime: DurationStat,
    resolutionTime: DurationStat,
    csat: z.looseObject({
      avg: z.number().nullable(),
      ratings: z.number(),
      responseRate: z.number().nullable(),
    }),
    attendants: z.array(DashboardAttendant),
    /**
     * The same period figures over the period of the same length just before (docs/metrics.md "Comparison"):
     * what the screen's deltas compare with. The counts of now (open, pending) have no previous value.
     */
    previous: z.looseObject({
      period: z.looseObject({ from: z.string(), to: z.string() }),
      supportFinished: z.number(),
      waitTime: DurationStat,
      supportTime: DurationStat,
      firstResponseTime: DurationStat,
      resolutionTime: DurationStat,
      csat: z.looseObject({
        avg: z.number().nullable(),
        ratings: z.number(),
        responseRate: z.number().nullable(),
      }),
    }),
  })
  .meta({ id: 'DashboardCounters' });
export type DashboardCounters = Wire<typeof DashboardCounters>;

export const TicketsPerUser = z
  .looseObject({
    userId: z.number().nullable(),
    name: z.string().nullable(),
    total: z.number(),
  })
  .meta({ id: 'TicketsPerUser' });
export type TicketsPerUser = Wire<typeof TicketsPerUser>;

export const TicketsPerDay = z
  .looseObject({
    /** Local day, YYYY-MM-DD. */
    date: Timestamp,
    created: z.number(),
    closed: z.number(),
  })
  .meta({ id: 'TicketsPerDay' });
export type TicketsPerDay = Wire<typeof TicketsPerDay>;

/**
 * #34.4 GET /dashboard/ticketsChannel: per channel, the tickets created and closed in the period and the
 * ones open or pending now (channel null: tickets whose connection was deleted).
 */
export const TicketsPerChannel = z
  .looseObject({
    channel: z.enum(CHANNEL_KINDS).nullable(),
    created: z.number(),
    closed: z.number(),
    active: z.number(),
  })
  .meta({ id: 'TicketsPerChannel' });
export type TicketsPerChannel = Wire<typeof TicketsPerChannel>;

export const SourceTrackingRow = z
  .looseObject({
    id: z.number(),
    uuid: z.string(),
    ticketId: z.number(),
    campaign: z.string(),
    source: z.string(),
    medium: z.string(),
    sourceUrl: z.string().nullable(),
    createdAt: Timestamp,
  })
  .meta({ id: 'SourceTrackingRow' });
export type SourceTrackingRow = Wire<typeof SourceTrackingRow>;

export const SourceTrackingList = z
  .looseObject({
    records: z.array(SourceTrackingRow),
    count: z.number(),
  })
  .meta({ id: 'SourceTrackingList' });
export type SourceTrackingList = Wire<typeof SourceTrackingList>;
