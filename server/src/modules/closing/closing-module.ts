import type { Db } from '../../db/client.js';
import type { AppModule } from '../app-module.js';
import { closingReasonRoutes } from './closing-routes.js';
import { closingReasonService } from './closing-service.js';

/** #32.3 Closing reasons; the reason on resolve is checked by the ticket service (closingFields). */
export const closingReasonModule = (db: Db): AppModule => ({
  name: 'closing-reasons',
  routes: [closingReasonRoutes(closingReasonService({ db }))],
});
