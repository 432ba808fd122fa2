import { openApiRoutes } from '../../http/openapi.js';
import type { AppModule } from '../app-module.js';
import { systemRoutes } from './system-routes.js';

/**
 * Version and health answers, and the OpenAPI document with its UI (docs/api.md): all public, unless
 * API_DOCS=off leaves the document and its UI out (docs/security.md).
 */
export const systemModule = (opts: { apiDocs?: 'public' | 'off' } = {}): AppModule => ({
  name: 'system',
  openRoutes: opts.apiDocs === 'off' ? [systemRoutes] : [systemRoutes, openApiRoutes],
});
