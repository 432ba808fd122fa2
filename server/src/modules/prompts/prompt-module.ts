import type { AppModule } from '../app-module.js';
import { promptRoutes } from './prompt-routes.js';
import type { PromptService } from './prompt-service.js';

export const promptModule = (service: PromptService): AppModule => ({
  name: 'prompts',
  routes: [promptRoutes(service)],
});
