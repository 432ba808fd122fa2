import { z } from 'zod';
import { PRESENCES } from './constants.js';
import { Timestamp, type Wire } from './responses.js';

/**
 * #30.2 Presence and #30.8 the supervisor's live view (docs/routing.md "Presence", "The live view").
 */

/** PUT /users/me/presence: the top-bar switch. */
export const PresenceInput = z.object({ presence: z.enum(PRESENCES) });
export type PresenceInput = z.infer<typeof PresenceInput>;

export const PresenceView = z
  .looseObject({
    userId: z.number(),
    presence: z.enum(PRESENCES),
    presenceAt: Timestamp.nullable(),
    /** The user chose it (the switch); false: the server set it (idle, sockets closed, a new socket). */
    manual: z.boolean(),
  })
  .meta({ id: 'PresenceView' });
export type PresenceView = Wire<typeof PresenceView>;

/**
 * `company-{id}-presence`: to the user's own browsers and to the company's admins and supervisors (room
 * `company-{id}-supervisors`). `previous` is what it was before this change.
 */
export type PresenceEvent = {
  action: 'update';
  presence: PresenceView;
  previous: (typeof PRESENCES)[number];
};

/** Minutes without activity in the web app before an online attendant becomes away (company setting). */
export const PRESENCE_AWAY_MINUTES_DEFAULT = 10;
export const PRESENCE_AWAY_MINUTES_MAX = 1440;

export const LiveQueue = z
  .looseObject({
    /** null: the tickets waiting without a queue. */
    queueId: z.number().nullable(),
    name: z.string(),
    color: z.string(),
    /** Tickets waiting (status pending). */
    waiting: z.number(),
    /** How long the oldest waiting ticket has waited, in seconds (0 when none waits). */
    longestWaitSeconds: z.number(),
    /** Waiting or open tickets whose SLA clock is amber: past its at-risk time, not yet breached. */
    slaAtRisk: z.number(),
    /** Waiting or open tickets with a breached SLA target. */
    slaBreached: z.number(),
    /** Open (being attended) tickets of the queue. */
    open: z.number(),
  })
  .meta({ id: 'LiveQueue' });
export type LiveQueue = Wire<typeof LiveQueue>;

export const LiveAttendant = z
  .looseObject({
    userId: z.number(),
    name: z.string(),
    profile: z.string(),
    presence: z.enum(PRESENCES),
    presenceAt: Timestamp.nullable(),
    /** Open tickets assigned to the attendant. */
    openTickets: z.number(),
    /** The most open tickets routing gives them (users.maxTickets); null: no limit. */
    capacity: z.number().nullable(),
    /** Seconds since the attendant last sent a message on a ticket; null: never. */
    secondsSinceLastReply: z.number().nullable(),
    queueIds: z.array(z.number()),
  })
  .meta({ id: 'LiveAttendant' });
export type LiveAttendant = Wire<typeof LiveAttendant>;

/** GET /live and the `company-{id}-live` event: the supervisor's view of the company now. */
export const LiveView = z
  .looseObject({
    at: Timestamp,
    queues: z.array(LiveQueue),
    attendants: z.array(LiveAttendant),
  })
  .meta({ id: 'LiveView' });
export type LiveView = Wire<typeof LiveView>;

/** `company-{id}-live`, to the room `company-{id}-live` (joined with `join('live')` by admins and supervisors). */
export type LiveEvent = { action: 'update'; live: LiveView };
