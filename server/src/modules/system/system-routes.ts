import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { APP_VERSION } from '@recado/contracts';

export const systemRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get('/version', () => ({ version: APP_VERSION }));
  app.get('/health', () => ({ ok: true }));
};
