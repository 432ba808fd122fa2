import type { FastifyRequest } from 'fastify';
import { AppError } from './errors.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A billing route: reachable while the company's subscription is blocked (docs/billing.md). */
    billing?: boolean;
  }
  interface FastifyRequest {
    /** The company a credential that is not a user's acts for (a connection token: the external API). */
    credentialCompanyId?: number;
  }
}

const READS = new Set(['GET', 'HEAD', 'OPTIONS']);
/** Customer messages keep arriving while a company is late: nothing a customer sends is lost. */
const ALWAYS_OPEN = [/^\/api\/simulator\/[^/]+\/(inbound|read)/];

/** What a blocked company's writes answer, over HTTP or from a service (messageService.deliver). */
export const subscriptionExpired = () =>
  new AppError('ERR_SUBSCRIPTION_EXPIRED', 402, 'The subscription has expired: pay to continue');

/** The company a request acts for, whatever authenticated it (a user's session or token, a connection token). */
const actingCompany = (req: FastifyRequest): number | undefined =>
  req.tenant ? (req.tenant.super ? undefined : req.tenant.companyId) : req.credentialCompanyId;

/**
 * preValidation hook on every /api route (after each route's own authentication, before its body is
 * validated): once now is past dueDate + 1 day, every write made for the company — by its users, by any
 * token, by a connection token of the external API — answers 402 ERR_SUBSCRIPTION_EXPIRED, except billing
 * routes. Reads stay open (the app shows why, and the company can pay). Sends that no request makes
 * (bot, automations, timers, schedules) are refused by messageService.deliver; campaign and schedule jobs
 * wait (billing's pausedWhileBlocked).
 */
export const subscriptionBlock =
  (isBlocked: (companyId: number) => Promise<boolean>) =>
  async (req: FastifyRequest): Promise<void> => {
    if (READS.has(req.method)) return;
    const companyId = actingCompany(req);
    if (companyId === undefined) return;
    if (req.routeOptions.config?.billing) return;
    if (ALWAYS_OPEN.some((r) => r.test(req.url))) return;
    if (await isBlocked(companyId)) throw subscriptionExpired();
  };
