import type { AppModule } from '../app-module.js';
import { queueRoutes } from './queue-routes.js';
import type { QueueOptionService } from './queue-option-service.js';
import type { QueueService } from './queue-service.js';

export const queueModule = (queues: QueueService, options: QueueOptionService): AppModule => ({
  name: 'queues',
  routes: [queueRoutes(queues, options)],
});
