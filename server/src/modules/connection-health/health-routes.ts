import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { ConnectionAlertList, ConnectionHealth, IdParam } from '@recado/contracts';
import { access } from '../../http/access.js';
import type { ConnectionHealthService } from './health-service.js';

/** #33 A connection's health (timeline, uptime, outages) and the admins' top-bar alerts (docs/connection-health.md). */
export const connectionHealthRoutes =
  (health: ConnectionHealthService): FastifyPluginAsyncZod =>
  async (app) => {
    app.get(
      '/whatsapp/:id/health',
      { config: access.admin, schema: { params: IdParam, response: { 200: ConnectionHealth } } },
      (req) => health.health(req.tenant, req.params.id),
    );
    app.get(
      '/connection-alerts',
      { config: access.admin, schema: { response: { 200: ConnectionAlertList } } },
      (req) => health.alerts(req.tenant),
    );
  };
