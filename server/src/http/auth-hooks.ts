import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from './errors.js';
import type { Tenant } from './tenant.js';

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
  };

export const requireAdmin = async (req: FastifyRequest): Promise<void> => {
  if (req.tenant.profile !== 'admin' && !req.tenant.super) throw new AppError('ERR_NO_PERMISSION', 403);
};

export const requireSuper = async (req: FastifyRequest): Promise<void> => {
  if (!req.tenant.super) throw new AppError('ERR_NO_PERMISSION', 403);
};
