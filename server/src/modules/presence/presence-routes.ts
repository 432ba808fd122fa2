import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { PresenceInput, PresenceView } from '@recado/contracts';
import { access } from '../../http/access.js';
import type { PresenceService } from './presence-service.js';

/** #30.2 The caller's own presence: read it, and the top-bar switch sets it. */
export const presenceRoutes =
  (presence: PresenceService): FastifyPluginAsyncZod =>
  async (app) => {
    app.get(
      '/users/me/presence',
      { config: access.user, schema: { response: { 200: PresenceView } } },
      (req) => presence.get(req.tenant),
    );
    app.put(
      '/users/me/presence',
      { config: access.user, schema: { body: PresenceInput, response: { 200: PresenceView } } },
      (req) => presence.set(req.tenant, req.body.presence),
    );
  };
