import type { AppModule } from '../app-module.js';
import { settingRoutes } from './setting-routes.js';
import type { SettingService } from './setting-service.js';

export const settingModule = (service: SettingService): AppModule => ({
  name: 'settings',
  routes: [settingRoutes(service)],
});
