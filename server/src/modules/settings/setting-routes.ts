import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { SettingKeyParam, SettingUpdate } from '@recado/contracts';
import type { SettingService } from './setting-service.js';

export const settingRoutes =
  (settings: SettingService): FastifyPluginAsyncZod =>
  async (app) => {
    app.get('/settings', (req) => settings.list(req.tenant));
    app.get('/settings/:key', { schema: { params: SettingKeyParam } }, (req) =>
      settings.get(req.tenant, req.params.key),
    );
    app.put('/settings/:key', { schema: { params: SettingKeyParam, body: SettingUpdate } }, (req) =>
      settings.update(req.tenant, req.params.key, req.body.value),
    );
  };
