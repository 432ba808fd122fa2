import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { LiveView } from '@recado/contracts';
import { access } from '../../http/access.js';
import type { LiveService } from './live-service.js';

/** #30.8 GET /live: the supervisor's view, for admins and supervisors (others 403). */
export const liveRoutes =
  (live: LiveService): FastifyPluginAsyncZod =>
  async (app) => {
    app.get('/live', { config: access.supervisor, schema: { response: { 200: LiveView } } }, (req) =>
      live.get(req.tenant),
    );
  };
