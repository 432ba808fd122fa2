import type { AppModule } from '../app-module.js';
import { liveListener } from './live-listener.js';
import { liveRoutes } from './live-routes.js';
import type { LiveService } from './live-service.js';

/** #30.8 The supervisor's live view: its route and the listener that pushes it (the room is in room-policy). */
export const liveModule = (service: LiveService): AppModule => ({
  name: 'live',
  routes: [liveRoutes(service)],
  listeners: (bus) => liveListener(bus, service),
});
