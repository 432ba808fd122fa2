import type { AppModule } from '../app-module.js';
import { tagRoutes } from './tag-routes.js';
import type { TagService } from './tag-service.js';

export const tagModule = (service: TagService): AppModule => ({ name: 'tags', routes: [tagRoutes(service)] });
