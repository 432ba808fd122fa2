import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { JsonList, PlanInput, PlanUpdate, PlanView } from '@recado/contracts';
import { patchSchema } from '../../http/patch-schema.js';
import type { PlanService } from './plan-service.js';
import { access } from '../../http/access.js';
import { resourceRoutes } from '../../http/route-kit.js';

const PlanPatch = patchSchema(PlanUpdate);

/** GET /plans/list: public, for the signup page's plan choice. */
export const planPublicRoutes =
  (plans: PlanService): FastifyPluginAsyncZod =>
  async (api) => {
    api.get('/plans/list', { config: access.public, schema: { response: { 200: JsonList } } }, () =>
      plans.listPublic(),
    );
  };

/** Private plan routes (the public list: planPublicRoutes). */
export const planRoutes =
  (plans: PlanService): FastifyPluginAsyncZod =>
  async (app) => {
    resourceRoutes(app, {
      base: '/plans',
      view: PlanView,
      read: access.user,
      write: access.super,
      all: {
        path: '/all',
        access: access.super,
        answer: z.array(PlanView),
        run: (req) => plans.listAll(req.tenant),
      },
      show: { run: (req) => plans.get(req.params.id) },
      create: { body: PlanInput, run: (req) => plans.create(req.tenant, req.body) },
      update: { body: PlanPatch, run: (req) => plans.update(req.tenant, req.params.id, req.body) },
      remove: { run: (req) => plans.remove(req.tenant, req.params.id) },
    });
  };
