import type { AppModule } from '../app-module.js';
import { dashboardRoutes } from './dashboard-routes.js';
import type { DashboardService } from './dashboard-service.js';

export const dashboardModule = (service: DashboardService): AppModule => ({
  name: 'dashboard',
  routes: [dashboardRoutes(service)],
});
