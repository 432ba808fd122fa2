import type { AppModule } from '../app-module.js';
import type { TicketTimerService } from './ticket-timer-service.js';

export const ticketTimerModule = (timers: TicketTimerService): AppModule => ({
  name: 'ticket-timers',
  jobs: Object.values(timers.jobs),
});
