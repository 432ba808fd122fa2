import { openApiRoutes } from '../../http/openapi.js';
import type { AppModule } from '../app-module.js';
import { systemRoutes } from './system-routes.js';

/** Version and health answers, and the OpenAPI document with its UI (docs/api.md): all public. */
export const systemModule = (): AppModule => ({ name: 'system', openRoutes: [systemRoutes, openApiRoutes] });
