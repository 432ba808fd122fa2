import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { IdParam, TicketEventPage, TicketEventsQuery } from '@recado/contracts';
import { access } from '../../http/access.js';
import type { TimelineService } from './timeline-service.js';

/** #32.5 A ticket's timeline (docs/productivity.md "Ticket timeline"): whoever may see the ticket. */
export const timelineRoutes =
  (timeline: TimelineService): FastifyPluginAsyncZod =>
  async (app) => {
    app.get(
      '/tickets/:id/events',
      {
        config: access.user,
        schema: { response: { 200: TicketEventPage }, params: IdParam, querystring: TicketEventsQuery },
      },
      (req) => timeline.list(req.tenant, req.params.id, req.query),
    );
  };
