import type { AppModule } from '../app-module.js';
import { quickMessageRoutes } from './quick-message-routes.js';
import type { QuickMessageService } from './quick-message-service.js';

export const quickMessageModule = (service: QuickMessageService): AppModule => ({
  name: 'quick-messages',
  routes: [quickMessageRoutes(service)],
});
