import type { AppModule } from '../app-module.js';
import { campaignSettingRoutes } from './campaign-setting-routes.js';
import type { CampaignSettingService } from './campaign-setting-service.js';

export const campaignSettingModule = (service: CampaignSettingService): AppModule => ({
  name: 'campaign-settings',
  routes: [campaignSettingRoutes(service)],
});
