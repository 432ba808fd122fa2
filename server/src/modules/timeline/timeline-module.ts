import type { Db } from '../../db/client.js';
import type { AppModule } from '../app-module.js';
import { timelineListeners } from './timeline-listener.js';
import { timelineRoutes } from './timeline-routes.js';
import { timelineService } from './timeline-service.js';

/** #32.5 The ticket timeline: its listeners and GET /tickets/{id}/events (docs/productivity.md). */
export function timelineModule(db: Db): AppModule {
  const timeline = timelineService({ db });
  return {
    name: 'timeline',
    routes: [timelineRoutes(timeline)],
    listeners: (bus) => timelineListeners(bus, { db, timeline }),
  };
}
