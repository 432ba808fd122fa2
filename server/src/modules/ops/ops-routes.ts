import type { FastifyInstance } from 'fastify';
import { JsonObject } from '@recado/contracts';
import { access } from '../../http/access.js';
import { requestContext } from '../../lib/request-context.js';
import type { OpsService } from './ops-service.js';

/**
 * Installed on the root instance (not an encapsulated plugin): the latency hook sees every route, the request
 * context wraps every request, and /metrics lives outside /api. /api/health stays in system-routes.
 */
export function installOps(app: FastifyInstance, ops: OpsService) {
  // Everything a request starts (services, jobs it schedules) knows its id (lib/request-context.ts).
  app.addHook('onRequest', (req, _reply, done) => requestContext.run(req.id, done));
  app.addHook('onResponse', (req, reply, done) => {
    ops.observe(req, reply);
    done();
  });
  app.get(
    '/api/ready',
    { config: access.public, schema: { response: { 200: JsonObject, 503: JsonObject } } },
    async (req, reply) => {
      const r = await ops.ready();
      // Process id, roles, migrations and uptime only for whoever may read /metrics (METRICS_TOKEN, or a
      // direct loopback caller); anyone else learns the status alone (#28.9, docs/deployment.md).
      return reply.status(r.ok ? 200 : 503).send(ops.mayReadMetrics(req) ? r : { status: r.status });
    },
  );
  app.get('/metrics', async (req, reply) => {
    if (!ops.mayReadMetrics(req))
      return reply.status(404).send({ error: 'ERR_NOT_FOUND', message: 'No route GET /metrics' });
    const body = await ops.registry.metrics();
    return reply.header('content-type', ops.registry.contentType).send(body);
  });
}
