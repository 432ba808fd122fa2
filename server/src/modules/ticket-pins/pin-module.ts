import type { AppModule } from '../app-module.js';
import { ticketPinRoutes } from './pin-routes.js';
import type { TicketPinService } from './pin-service.js';

/** #32.9 Pinned tickets (docs/productivity.md "Pin"). */
export const ticketPinModule = (service: TicketPinService): AppModule => ({
  name: 'ticket-pins',
  routes: [ticketPinRoutes(service)],
});
