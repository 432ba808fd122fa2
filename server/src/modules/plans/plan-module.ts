import type { AppModule } from '../app-module.js';
import { planPublicRoutes, planRoutes } from './plan-routes.js';
import type { PlanService } from './plan-service.js';

export const planModule = (plans: PlanService): AppModule => ({
  name: 'plans',
  openRoutes: [planPublicRoutes(plans)],
  routes: [planRoutes(plans)],
});
