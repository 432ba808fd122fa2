import type { FastifyInstance, FastifyRequest, RouteOptions } from 'fastify';
import type { PlanFlag } from '@recado/contracts';
import type { Db } from '../db/client.js';
import { campaignsAllowed } from '../modules/campaign-settings/campaign-access.js';
import { planHas } from '../modules/companies/company-queries.js';
import { AppError } from './errors.js';

/**
 * Who may call a route, declared in its config (docs/security.md "Access on the route"):
 * - `'public'`: anyone (login, signup, health, Meta's signed webhook);
 * - `'connection'`: the route checks a connection's API token itself (the external messaging API);
 * - `{ role }`: a signed-in user — `'user'` any profile, `'admin'` an admin (or a super user), `'super'` a
 *   platform super user, `'supervisor'` an admin or a supervisor (#30.8: the live view) — and, with `plan`, only in a company whose plan has that flag.
 */
export type Role = 'user' | 'supervisor' | 'admin' | 'super';
export type Access = 'public' | 'connection' | { role: Role; plan?: PlanFlag };

declare module 'fastify' {
  interface FastifyContextConfig {
    access?: Access;
  }
}

/** Short names for route configs: `{ config: access.admin }`. */
export const access = {
  public: { access: 'public' },
  connection: { access: 'connection' },
  user: { access: { role: 'user' } },
  admin: { access: { role: 'admin' } },
  supervisor: { access: { role: 'supervisor' } },
  super: { access: { role: 'super' } },
  plan: (plan: PlanFlag, role: Role = 'user') => ({ access: { role, plan } }),
} as const satisfies Record<string, { access: Access } | ((...a: never[]) => { access: Access })>;

export interface RouteAccess {
  method: string;
  url: string;
  access?: Access;
  /** The route's schema as declared (params, querystring, body, response...). */
  schema?: RouteOptions['schema'];
}

const tables = new WeakMap<FastifyInstance, RouteAccess[]>();

/** Every route registered on `app` (HEAD twins left out), with its declared access: for tests and docs. */
export const routeTable = (app: FastifyInstance): RouteAccess[] => tables.get(app) ?? [];

/** How the access of a route reads in one cell: `public`, `admin`, `user + useCampaigns`, `(none)`. */
export const describeAccess = (a: Access | undefined): string =>
  a === undefined ? '(none)' : typeof a === 'string' ? a : a.plan ? `${a.role} + ${a.plan}` : a.role;

/**
 * Plan flags that mean more than the plan's column. Campaign features also need the company's
 * `campaignsEnabled` setting not to be "false" (docs/campaigns.md).
 */
const planGates: Partial<Record<PlanFlag, (db: Db, companyId: number) => Promise<boolean>>> = {
  useCampaigns: campaignsAllowed,
};

/**
 * Installs the one access check: records every route (onRoute) and, before each handler (after validation,
 * like the module preHandlers it replaces), enforces the route's declared role and plan flag.
 * A route that declares nothing needs a signed-in user; the route-table test fails on it all the same.
 */
export function installAccess(app: FastifyInstance, db: Db): void {
  const table: RouteAccess[] = [];
  tables.set(app, table);
  app.addHook('onRoute', (route) => {
    // The API only: the web client's files (served when built) are public and carry no config.
    if (!route.url.startsWith('/api')) return;
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods) {
      if (method === 'HEAD') continue;
      // Read late: a plugin's own onRoute hook (markPublic) may still set the access after this one.
      table.push({
        method,
        url: route.url,
        get access() {
          return route.config?.access;
        },
        schema: route.schema,
      });
    }
  });
  app.addHook('preHandler', async (req: FastifyRequest) => {
    const url = req.routeOptions.url;
    if (!url?.startsWith('/api')) return;
    const declared = req.routeOptions.config?.access;
    if (declared === 'public' || declared === 'connection') return;
    const rule = declared ?? { role: 'user' };
    const t = req.tenant;
    if (!t) throw new AppError('ERR_SESSION_EXPIRED', 401, 'Missing token');
    if (rule.role === 'super' && !t.super) throw new AppError('ERR_NO_PERMISSION', 403);
    if (rule.role === 'admin' && t.profile !== 'admin' && !t.super)
      throw new AppError('ERR_NO_PERMISSION', 403);
    if (rule.role === 'supervisor' && t.profile !== 'admin' && t.profile !== 'supervisor' && !t.super)
      throw new AppError('ERR_NO_PERMISSION', 403);
    if (rule.plan) {
      const flag = rule.plan;
      const allowed = await (planGates[flag] ?? ((d: Db, c: number) => planHas(d, c, flag)))(db, t.companyId);
      if (!allowed) throw new AppError('ERR_NO_PERMISSION', 403, `The plan does not include ${flag}`);
    }
  });
}

/** onRoute hook for a plugin whose routes are all public (a documentation UI registered by a library). */
export const markPublic = (route: RouteOptions): void => {
  route.config = { ...(route.config as object), access: 'public' } as RouteOptions['config'];
};
