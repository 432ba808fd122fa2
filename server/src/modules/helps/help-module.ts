import type { AppModule } from '../app-module.js';
import { helpRoutes } from './help-routes.js';
import type { HelpService } from './help-service.js';

export const helpModule = (service: HelpService): AppModule => ({
  name: 'helps',
  routes: [helpRoutes(service)],
});
