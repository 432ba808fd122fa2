import type { AppModule } from '../app-module.js';
import { contactRoutes } from './contact-routes.js';
import type { ContactService } from './contact-service.js';

export const contactModule = (service: ContactService): AppModule => ({
  name: 'contacts',
  routes: [contactRoutes(service)],
});
