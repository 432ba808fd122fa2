import type { AppModule } from '../app-module.js';
import { messageTemplateRoutes } from './message-template-routes.js';
import type { MessageTemplateService } from './message-template-service.js';

export const messageTemplateModule = (templates: MessageTemplateService): AppModule => ({
  name: 'message-templates',
  routes: [messageTemplateRoutes(templates)],
  jobs: Object.values(templates.jobs),
});
