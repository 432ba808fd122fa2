import type { AppModule } from '../app-module.js';
import { privacyRoutes } from './privacy-routes.js';
import { privacyListeners, type PrivacyDeps, type PrivacyService } from './privacy-service.js';

/** #35 Privacy: data subject requests, consent and opt-out, retention (docs/privacy.md). */
export const privacyModule = (service: PrivacyService, log: PrivacyDeps['log']): AppModule => ({
  name: 'privacy',
  routes: [privacyRoutes(service)],
  listeners: (bus) => privacyListeners(bus, service, log),
  jobs: Object.values(service.jobs),
});
