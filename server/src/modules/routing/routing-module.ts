import type { AppModule } from '../app-module.js';
import { routingListeners } from './routing-listener.js';
import { routingRoutes } from './routing-routes.js';
import type { RoutingService } from './routing-service.js';

export const routingModule = (routing: RoutingService): AppModule => ({
  name: 'routing',
  routes: [routingRoutes(routing)],
  listeners: (bus) => {
    routingListeners(bus, routing);
    // Waiting tickets left by a stop or a crash are routed as soon as the job poller runs.
    void routing.kickOff().catch(() => undefined);
  },
  jobs: Object.values(routing.jobs),
});
