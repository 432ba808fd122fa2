import type { AppModule } from '../app-module.js';
import { presenceRoutes } from './presence-routes.js';
import type { PresenceService } from './presence-service.js';

/** #30.2 Presence: the switch's routes and the jobs that keep holds and turn users offline. */
export const presenceModule = (service: PresenceService): AppModule => ({
  name: 'presence',
  routes: [presenceRoutes(service)],
  jobs: Object.values(service.jobs),
});
