import type { AppModule } from '../app-module.js';
import { customFieldRoutes } from './custom-field-routes.js';
import type { CustomFieldService } from './custom-field-service.js';

export const customFieldModule = (service: CustomFieldService): AppModule => ({
  name: 'custom-fields',
  routes: [customFieldRoutes(service)],
});
