import { z } from 'zod';
import { type Wire } from './responses.js';

/** GET /routing/stats: per attendant, their load and what routing did for them since `since` (docs/routing.md). */
export const RoutingStatsQuery = z.object({
  /** ISO date-time; default: the last 24 hours. */
  since: z.iso.datetime({ offset: true }).optional(),
});

export const RoutingUserStats = z
  .looseObject({
    userId: z.number(),
    name: z.string(),
    presence: z.string(),
    maxTickets: z.number().nullable(),
    /** Open tickets now. */
    open: z.number(),
    /** Tickets passed on with skip since `since`. */
    skips: z.number(),
    /** Tickets routing gave them since `since`. */
    assigned: z.number(),
  })
  .meta({ id: 'RoutingUserStats' });
export type RoutingUserStats = Wire<typeof RoutingUserStats>;
