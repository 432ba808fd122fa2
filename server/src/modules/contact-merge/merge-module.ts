import type { AppModule } from '../app-module.js';
import { contactMergeRoutes } from './merge-routes.js';
import type { ContactMergeService } from './merge-service.js';

/** #32.8 Contact merge and duplicate suggestions (docs/productivity.md "Contact merge"). */
export const contactMergeModule = (service: ContactMergeService): AppModule => ({
  name: 'contact-merge',
  routes: [contactMergeRoutes(service)],
});
