import type { AppModule } from '../app-module.js';
import { messageRoutes } from './message-routes.js';
import type { MessageService } from './message-service.js';

export const messageModule = (service: MessageService): AppModule => ({
  name: 'messages',
  routes: [messageRoutes(service)],
});
