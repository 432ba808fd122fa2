import { z } from 'zod';
import { Timestamp, oneOf, pageOf, type Wire } from './responses.js';

/**
 * #32.5 The ticket timeline (docs/productivity.md "Ticket timeline"): what happened to a ticket, who did it
 * and when, read through GET /tickets/{id}/events and shown inline in the chat.
 */
export const TICKET_EVENT_TYPES = [
  'created',
  'bot',
  'flow',
  'accepted',
  'transferred',
  'returned',
  'tag_added',
  'tag_removed',
  'priority',
  'note',
  'snoozed',
  'woken',
  'sla_breached',
  'resolved',
  'reopened',
  'rated',
  'macro',
  'merged',
  'owner',
] as const;
export type TicketEventType = (typeof TICKET_EVENT_TYPES)[number];

/** Who did it: a person (actorId), the system, the bot, a flow, an API token, or the customer. */
export const TICKET_EVENT_ACTOR_KINDS = ['user', 'system', 'bot', 'flow', 'api', 'customer'] as const;
export type TicketEventActorKind = (typeof TICKET_EVENT_ACTOR_KINDS)[number];

/**
 * One timeline entry as GET /tickets/{id}/events answers it. (Named TicketTimelineEvent: `TicketEvent` is
 * already the socket event of contracts/src/tickets.ts.)
 */
export const TicketTimelineEvent = z
  .looseObject({
    id: z.number(),
    ticketId: z.number(),
    type: oneOf(TICKET_EVENT_TYPES),
    actorKind: oneOf(TICKET_EVENT_ACTOR_KINDS),
    actorId: z.number().nullable(),
    /** The person's name when actorId is set (null once the user is deleted). */
    actorName: z.string().nullable(),
    /** Type-specific details, e.g. {from:{queueId,queueName,userId,userName}, to:{…}}, {tag:{id,name}}. */
    data: z.looseObject({}),
    createdAt: Timestamp,
  })
  .meta({ id: 'TicketTimelineEvent' });
export type TicketTimelineEvent = Wire<typeof TicketTimelineEvent>;

/** GET /tickets/{id}/events: oldest first; `before` (an event id) pages backwards from the newest. */
export const TicketEventsQuery = z.object({
  before: z.coerce.number().int().positive().optional(),
  after: z.coerce.number().int().min(0).optional(),
  limit: z.coerce.number().int().min(1).max(500).default(100),
});
export type TicketEventsQuery = z.infer<typeof TicketEventsQuery>;

export const TicketEventPage = pageOf('events', TicketTimelineEvent);
