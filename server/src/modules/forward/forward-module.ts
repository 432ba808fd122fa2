import type { AppModule } from '../app-module.js';
import { forwardRoutes } from './forward-routes.js';
import type { ForwardService } from './forward-service.js';

/** #32.9 Forwarding messages (docs/productivity.md "Forward"). */
export const forwardModule = (service: ForwardService): AppModule => ({
  name: 'forward',
  routes: [forwardRoutes(service)],
});
