import type { FastifyReply, FastifyRequest } from 'fastify';
import { apiTokenAllows } from '@recado/contracts';
import { AppError } from './errors.js';
import type { Tenant } from './tenant.js';

/** A session's access token or an API token (`rec_pat_…`) to its caller; may throw an AppError of its own. */
export type Authenticate = (token: string) => Promise<Tenant | 'expired' | null>;

/**
 * onRequest hook for private routes. An expired access token answers 403 (the client refreshes once and
 * replays); a missing, invalid or revoked one answers 401 (the client logs out), as docs/product.md#errors describes.
 */
export const requireAuth =
  (authenticate: Authenticate) =>
  async (req: FastifyRequest, _reply: FastifyReply): Promise<void> => {
    const header = req.headers.authorization ?? '';
    const token = header.startsWith('Bearer ') ? header.slice(7).trim() : '';
    if (!token) throw new AppError('ERR_SESSION_EXPIRED', 401, 'Missing token');
    const result = await authenticate(token);
    if (result === 'expired') throw new AppError('ERR_SESSION_EXPIRED', 403, 'Token expired');
    if (!result) throw new AppError('ERR_SESSION_EXPIRED', 401, 'Invalid session');
    req.tenant = result;
    // An API token's scope (docs/api.md "API tokens"): read = GET/HEAD, write = any method, admin = admin routes too.
    if (result.apiToken) {
      const declared = req.routeOptions.config?.access;
      const role = typeof declared === 'object' ? declared.role : 'user';
      if (!apiTokenAllows(result.apiToken.scope, req.method, role))
        throw new AppError(
          'ERR_API_TOKEN_SCOPE',
          403,
          `This API token's scope (${result.apiToken.scope}) does not allow ${req.method} on this route`,
        );
    }
  };

export const requireAdmin = async (req: FastifyRequest): Promise<void> => {
  if (req.tenant.profile !== 'admin' && !req.tenant.super) throw new AppError('ERR_NO_PERMISSION', 403);
};

export const requireSuper = async (req: FastifyRequest): Promise<void> => {
  if (!req.tenant.super) throw new AppError('ERR_NO_PERMISSION', 403);
};
