import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { IdParam, RoutingStatsQuery, RoutingUserStats, TicketView } from '@recado/contracts';
import { access } from '../../http/access.js';
import type { RoutingService } from './routing-service.js';

export const routingRoutes =
  (routing: RoutingService): FastifyPluginAsyncZod =>
  async (app) => {
    // The attendant a ticket was given to passes it on (docs/routing.md#skip).
    app.post(
      '/tickets/:id/skip',
      { config: access.user, schema: { params: IdParam, noBody: true, response: { 200: TicketView } } },
      (req) => routing.skip(req.tenant, req.params.id),
    );
    app.get(
      '/routing/stats',
      {
        config: access.supervisor,
        schema: { querystring: RoutingStatsQuery, response: { 200: z.array(RoutingUserStats) } },
      },
      (req) =>
        routing.stats(
          req.tenant,
          req.query.since ? new Date(req.query.since) : new Date(Date.now() - 24 * 3600_000),
        ),
    );
  };
