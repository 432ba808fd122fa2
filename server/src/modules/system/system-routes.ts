import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { APP_VERSION } from '@recado/contracts';
import { access } from '../../http/access.js';

export const systemRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/version',
    { config: access.public, schema: { response: { 200: z.object({ version: z.string() }) } } },
    () => ({ version: APP_VERSION }),
  );
  app.get(
    '/health',
    { config: access.public, schema: { response: { 200: z.object({ ok: z.boolean() }) } } },
    () => ({ ok: true }),
  );
};
