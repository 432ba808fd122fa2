import type { AppModule } from '../app-module.js';
import { slaListeners } from './sla-listener.js';
import { slaRoutes } from './sla-routes.js';
import type { SlaService } from './sla-service.js';

/** #30.5 Service levels: policies, the clocks' listener and the breach jobs (docs/metrics.md "SLA"). */
export const slaModule = (service: SlaService): AppModule => ({
  name: 'sla',
  routes: [slaRoutes(service)],
  listeners: (bus) => slaListeners(bus, service),
  jobs: Object.values(service.jobs),
});
