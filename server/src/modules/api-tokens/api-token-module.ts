import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppModule } from '../app-module.js';
import { AppError } from '../../http/errors.js';
import { apiTokenRoutes } from './api-token-routes.js';
import type { ApiTokenService } from './api-token-service.js';

/** Personal and company API tokens (docs/api.md "API tokens"); app.ts also hands their bearers to the auth hook. */
export const apiTokenModule = (service: ApiTokenService): AppModule => ({
  name: 'api-tokens',
  routes: [apiTokenRoutes(service)],
});

/**
 * onRequest hook after the auth hook: `max` calls a minute per API token (the rate-limit plugin's store, so
 * shared through Redis when there is one); session callers pass untouched. Over it: 429 ERR_RATE_LIMITED.
 */
export function apiTokenRateLimit(app: FastifyInstance, max: number) {
  const limit = app.createRateLimit({
    max,
    timeWindow: 60_000,
    // The token's id, never the token: the limiter's store holds no secret.
    keyGenerator: (req: FastifyRequest) => `pat:${req.tenant?.apiToken?.id ?? 0}`,
  });
  return async (req: FastifyRequest, reply: FastifyReply) => {
    if (!req.tenant?.apiToken) return;
    const r = await limit(req);
    if (!r.isAllowed && r.isExceeded) {
      reply.header('retry-after', r.ttlInSeconds);
      throw new AppError('ERR_RATE_LIMITED', 429, 'Too many calls with this API token');
    }
  };
}
