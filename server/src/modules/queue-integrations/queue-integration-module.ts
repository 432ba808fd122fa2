import type { AppModule } from '../app-module.js';
import { queueIntegrationRoutes } from './queue-integration-routes.js';
import type { QueueIntegrationService } from './queue-integration-service.js';

export const queueIntegrationModule = (service: QueueIntegrationService): AppModule => ({
  name: 'queue-integrations',
  routes: [queueIntegrationRoutes(service)],
});
