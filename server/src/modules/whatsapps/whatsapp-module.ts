import type { AppModule } from '../app-module.js';
import { whatsappRoutes } from './whatsapp-routes.js';
import type { WhatsappService } from './whatsapp-service.js';

export const whatsappModule = (service: WhatsappService): AppModule => ({
  name: 'whatsapps',
  routes: [whatsappRoutes(service)],
});
