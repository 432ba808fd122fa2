import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { ForwardInput, ForwardResult } from '@recado/contracts';
import { access } from '../../http/access.js';
import type { ForwardService } from './forward-service.js';

export const forwardRoutes =
  (service: ForwardService): FastifyPluginAsyncZod =>
  async (app) => {
    app.post(
      '/messages/forward',
      { config: access.user, schema: { response: { 200: ForwardResult }, body: ForwardInput } },
      (req) => service.forward(req.tenant, req.body),
    );
  };
