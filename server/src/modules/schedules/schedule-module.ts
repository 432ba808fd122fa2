import type { JobDefinition } from '../../jobs/job-queue.js';
import type { AppModule } from '../app-module.js';
import { scheduleRoutes } from './schedule-routes.js';
import type { ScheduleService } from './schedule-service.js';

/** `paused`: wraps the send job so a blocked company's schedules wait (billing's pausedWhileBlocked). */
export const scheduleModule = (
  schedules: ScheduleService,
  paused: (jobs: JobDefinition[]) => JobDefinition[],
): AppModule => ({
  name: 'schedules',
  routes: [scheduleRoutes(schedules)],
  jobs: paused(Object.values(schedules.jobs)),
});
