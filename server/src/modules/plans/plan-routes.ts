import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { IdParam, JsonList, MessageAnswer, PlanInput, PlanUpdate, PlanView } from '@recado/contracts';
import { patchSchema } from '../../http/patch-schema.js';
import type { PlanService } from './plan-service.js';
import { access } from '../../http/access.js';

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
    app.get('/plans/all', { config: access.super, schema: { response: { 200: z.array(PlanView) } } }, (req) =>
      plans.listAll(req.tenant),
    );
    app.get(
      '/plans/:id',
      { config: access.user, schema: { response: { 200: PlanView }, params: IdParam } },
      (req) => plans.get(req.params.id),
    );
    app.post(
      '/plans',
      { config: access.super, schema: { response: { 201: PlanView }, body: PlanInput } },
      async (req, reply) => reply.status(201).send(await plans.create(req.tenant, req.body)),
    );
    app.put(
      '/plans/:id',
      { config: access.super, schema: { response: { 200: PlanView }, params: IdParam, body: PlanPatch } },
      (req) => plans.update(req.tenant, req.params.id, req.body),
    );
    app.delete(
      '/plans/:id',
      { config: access.super, schema: { response: { 200: MessageAnswer }, params: IdParam } },
      (req) => plans.remove(req.tenant, req.params.id),
    );
  };
