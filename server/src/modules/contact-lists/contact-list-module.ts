import type { AppModule } from '../app-module.js';
import { contactListRoutes } from './contact-list-routes.js';
import type { ContactListService } from './contact-list-service.js';

export const contactListModule = (lists: ContactListService): AppModule => ({
  name: 'contact-lists',
  routes: [contactListRoutes(lists)],
  jobs: Object.values(lists.jobs),
});
