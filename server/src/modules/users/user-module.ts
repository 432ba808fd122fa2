import type { AppModule } from '../app-module.js';
import { userRoutes } from './user-routes.js';
import type { UserService } from './user-service.js';

export const userModule = (service: UserService): AppModule => ({
  name: 'users',
  routes: [userRoutes(service)],
});
