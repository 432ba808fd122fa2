import type { FastifyRequest } from 'fastify';
import { AppError } from './errors.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A billing route: reachable while the company's subscription is blocked (docs/billing.md). */
    billing?: boolean;
  }
}

const READS = new Set(['GET', 'HEAD', 'OPTIONS']);
/** Customer messages keep arriving while a company is late: nothing a customer sends is lost. */
const ALWAYS_OPEN = [/^\/api\/simulator\/[^/]+\/(inbound|read)/];

/**
 * onRequest hook for private routes (after requireAuth, before validation): once now is past dueDate + 1 day, every write of the company's users
 * answers 402 ERR_SUBSCRIPTION_EXPIRED, except billing routes. Reads stay open (the app shows why).
 */
export const subscriptionBlock =
  (isBlocked: (companyId: number) => Promise<boolean>) =>
  async (req: FastifyRequest): Promise<void> => {
    if (READS.has(req.method) || !req.tenant || req.tenant.super) return;
    if (req.routeOptions.config?.billing) return;
    if (ALWAYS_OPEN.some((r) => r.test(req.url))) return;
    if (await isBlocked(req.tenant.companyId))
      throw new AppError('ERR_SUBSCRIPTION_EXPIRED', 402, 'The subscription has expired: pay to continue');
  };
