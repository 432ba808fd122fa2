import type { Db } from '../../db/client.js';
import type { AppModule } from '../app-module.js';
import { loadViewer, mayFollowTicket } from './ticket-queries.js';
import { ticketRoutes } from './ticket-routes.js';
import type { TicketService } from './ticket-service.js';

export const ticketModule = (tickets: TicketService, db: Db): AppModule => ({
  name: 'tickets',
  routes: [ticketRoutes(tickets)],
  rooms: {
    // Status lists and notifications: the rooms of what this user may see (contracts/visibility.ts).
    viewer: (t) => loadViewer(db, t),
    // A ticket's room: same company, and a ticket this user may see.
    ticket: (t, ticketId) => mayFollowTicket(db, t, ticketId),
  },
});
