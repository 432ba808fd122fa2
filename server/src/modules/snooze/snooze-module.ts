import type { AppModule } from '../app-module.js';
import { snoozeListeners } from './snooze-listener.js';
import { snoozeRoutes } from './snooze-routes.js';
import type { SnoozeService } from './snooze-service.js';

/** #30.7 Snooze: its routes, the listeners that wake and clear, and the durable wake-up job. */
export const snoozeModule = (snooze: SnoozeService): AppModule => ({
  name: 'snooze',
  routes: [snoozeRoutes(snooze)],
  listeners: (bus) => snoozeListeners(bus, snooze),
  jobs: Object.values(snooze.jobs),
});
