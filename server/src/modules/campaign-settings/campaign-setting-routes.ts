import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { CampaignSetting, CampaignSettingsInput } from '@recado/contracts';
import type { CampaignSettingService } from './campaign-setting-service.js';
import { access } from '../../http/access.js';

export const campaignSettingRoutes =
  (settings: CampaignSettingService): FastifyPluginAsyncZod =>
  async (app) => {
    app.get(
      '/campaign-settings',
      { config: access.plan('useCampaigns'), schema: { response: { 200: z.array(CampaignSetting) } } },
      (req) => settings.list(req.tenant),
    );
    app.post(
      '/campaign-settings',
      {
        config: access.plan('useCampaigns', 'admin'),
        schema: { response: { 200: z.array(CampaignSetting) }, body: CampaignSettingsInput },
      },
      (req) => settings.save(req.tenant, req.body),
    );
  };
