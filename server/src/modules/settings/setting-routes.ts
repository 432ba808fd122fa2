import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { Setting, SettingKeyParam, SettingUpdate } from '@recado/contracts';
import type { SettingService } from './setting-service.js';
import { access } from '../../http/access.js';

export const settingRoutes =
  (settings: SettingService): FastifyPluginAsyncZod =>
  async (app) => {
    app.get('/settings', { config: access.user, schema: { response: { 200: z.array(Setting) } } }, (req) =>
      settings.list(req.tenant),
    );
    app.get(
      '/settings/:key',
      { config: access.user, schema: { response: { 200: Setting }, params: SettingKeyParam } },
      (req) => settings.get(req.tenant, req.params.key),
    );
    app.put(
      '/settings/:key',
      {
        config: access.admin,
        schema: { response: { 200: Setting }, params: SettingKeyParam, body: SettingUpdate },
      },
      (req) => settings.update(req.tenant, req.params.key, req.body.value),
    );
  };
