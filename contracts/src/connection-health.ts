import { z } from 'zod';
import { Timestamp, type Wire } from './responses.js';

/** #33.2 The windows over which a connection's uptime is given (GET /whatsapp/{id}/health, /metrics). */
export const UPTIME_WINDOWS = { '7d': 7, '30d': 30 } as const;
export type UptimeWindow = keyof typeof UPTIME_WINDOWS;

/** One stretch of a connection's history: a state from `at` until `until` (null: still in it). */
export const ConnectionHealthEntry = z.object({
  id: z.number(),
  status: z.string(),
  /** The channel's short code for why (connections.reason.* in the web), null when it gave none. */
  reason: z.string().nullable(),
  detail: z.string().nullable(),
  at: Timestamp,
  until: Timestamp.nullable(),
  /** Seconds in that state (until now for the current one). */
  seconds: z.number(),
});
export type ConnectionHealthEntry = Wire<typeof ConnectionHealthEntry>;

/** One outage (left CONNECTED): when, whether the admins were told, when it came back. */
export const ConnectionIncident = z.object({
  id: z.number(),
  whatsappId: z.number(),
  /** The connection's name (the top bar's row title). */
  name: z.string(),
  status: z.string(),
  reason: z.string().nullable(),
  startedAt: Timestamp,
  alertedAt: Timestamp.nullable(),
  endedAt: Timestamp.nullable(),
  /** Length of the outage in seconds (until now while it lasts). */
  seconds: z.number(),
});
export type ConnectionIncident = Wire<typeof ConnectionIncident>;

/** GET /whatsapp/{id}/health: the last 30 days' timeline (newest first), uptime ratios and outages. */
export const ConnectionHealth = z
  .object({
    whatsappId: z.number(),
    status: z.string(),
    /** CONNECTED time ÷ observed time in the window (0–1); null when nothing was observed in it. */
    uptime: z.object({ '7d': z.number().nullable(), '30d': z.number().nullable() }),
    /** Minutes an outage lasts before the admins are told (company setting connectionAlertMinutes). */
    alertMinutes: z.number(),
    timeline: z.array(ConnectionHealthEntry),
    incidents: z.array(ConnectionIncident),
  })
  .meta({ id: 'ConnectionHealth' });
export type ConnectionHealth = Wire<typeof ConnectionHealth>;

/**
 * GET /connection-alerts (admins): outages the admins were told about that still last, and those that ended in
 * the last hour (their "back" notice) — the top bar's list.
 */
export const ConnectionAlertList = z
  .object({ alerts: z.array(ConnectionIncident) })
  .meta({ id: 'ConnectionAlertList' });
export type ConnectionAlertList = Wire<typeof ConnectionAlertList>;

/** `company-{id}-connectionAlert`, to the company's admins: an outage was told ('down') or ended ('back'). */
export type ConnectionAlertEvent = { action: 'down' | 'back'; alert: ConnectionIncident };
