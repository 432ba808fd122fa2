import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { APP_VERSION } from '@recado/contracts';
import { access } from '../../http/access.js';

export const systemRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get('/version', { config: access.public }, () => ({ version: APP_VERSION }));
  app.get('/health', { config: access.public }, () => ({ ok: true }));
};
