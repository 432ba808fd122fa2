import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  DashboardRangeQuery,
  SlaAchievement,
  SlaBreachList,
  SlaPolicy,
  SlaPolicyInput,
  SlaPolicyUpdate,
} from '@recado/contracts';
import { access } from '../../http/access.js';
import { resourceRoutes } from '../../http/route-kit.js';
import type { SlaService } from './sla-service.js';

/** SLA policies (admins), the breaches of the top bar, and the dashboard's SLA achievement (docs/metrics.md). */
export const slaRoutes =
  (sla: SlaService): FastifyPluginAsyncZod =>
  async (app) => {
    resourceRoutes(app, {
      base: '/sla-policies',
      view: SlaPolicy,
      read: access.admin,
      write: access.admin,
      list: { answer: z.array(SlaPolicy), run: (req) => sla.list(req.tenant) },
      show: { run: (req) => sla.get(req.tenant, req.params.id) },
      create: { body: SlaPolicyInput, run: (req) => sla.create(req.tenant, req.body) },
      update: { body: SlaPolicyUpdate, run: (req) => sla.update(req.tenant, req.params.id, req.body) },
      remove: { run: (req) => sla.remove(req.tenant, req.params.id) },
    });
    app.get('/sla-breaches', { config: access.user, schema: { response: { 200: SlaBreachList } } }, (req) =>
      sla.breaches(req.tenant),
    );
    app.get(
      '/dashboard/sla',
      {
        config: access.admin,
        schema: { response: { 200: SlaAchievement }, querystring: DashboardRangeQuery },
      },
      (req) => sla.achievement(req.tenant, req.query),
    );
  };
