import type { AppModule } from '../app-module.js';
import { webhookListeners } from './webhook-listener.js';
import { webhookMediaRoutes, webhookRoutes } from './webhook-routes.js';
import type { WebhookService } from './webhook-service.js';

export const webhookModule = (webhooks: WebhookService): AppModule => ({
  name: 'webhooks',
  routes: [webhookRoutes(webhooks)],
  openRoutes: [webhookMediaRoutes(webhooks)],
  listeners: (bus) => webhookListeners(bus, webhooks),
  jobs: Object.values(webhooks.jobs),
});
