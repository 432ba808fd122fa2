import type { AppModule } from '../app-module.js';
import { externalApiRoutes } from './external-api-routes.js';
import type { ExternalApiService } from './external-api-service.js';

/** The external API: a connection token instead of a user session (docs/external-api.md). */
export const externalApiModule = (api: ExternalApiService, opts: { rateLimit: number }): AppModule => ({
  name: 'external-api',
  openRoutes: [externalApiRoutes(api, opts)],
});
