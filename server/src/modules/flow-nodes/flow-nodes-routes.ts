import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { Flow, FlowConvertInput, FlowStats, FlowStatsQuery, IdParam } from '@recado/contracts';
import { access } from '../../http/access.js';
import type { FlowConvertService } from './flow-convert.js';
import type { FlowStatsService } from './flow-stats-service.js';

/** Flow analytics and the queue menu's conversion (docs/flows.md "Analytics", "From the queue menu"). */
export const flowNodesRoutes =
  (stats: FlowStatsService, convert: FlowConvertService): FastifyPluginAsyncZod =>
  async (app) => {
    app.post(
      '/flows/convert',
      {
        config: access.plan('useFlows', 'admin'),
        schema: { body: FlowConvertInput, response: { 201: Flow } },
      },
      async (req, reply) => reply.code(201).send(await convert.convert(req.tenant, req.body)),
    );
    app.get(
      '/flows/:id/stats',
      {
        config: access.plan('useFlows', 'admin'),
        schema: { params: IdParam, querystring: FlowStatsQuery, response: { 200: FlowStats } },
      },
      (req) => stats.stats(req.tenant.companyId, req.params.id, req.query),
    );
  };
