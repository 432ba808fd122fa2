import type { AppModule } from '../app-module.js';
import { companyRoutes } from './company-routes.js';
import type { CompanyService } from './company-service.js';

export const companyModule = (service: CompanyService): AppModule => ({
  name: 'companies',
  routes: [companyRoutes(service)],
});
