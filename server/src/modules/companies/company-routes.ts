import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  Company,
  CompanyInput,
  CompanyPlan,
  CompanySchedulesInput,
  CompanyUpdate,
  IdParam,
  ListQuery,
  MessageAnswer,
  hasMoreOf,
} from '@recado/contracts';
import { patchSchema } from '../../http/patch-schema.js';
import type { CompanyService } from './company-service.js';
import { access } from '../../http/access.js';

const CompanyPatch = patchSchema(CompanyUpdate);

export const companyRoutes =
  (companies: CompanyService): FastifyPluginAsyncZod =>
  async (app) => {
    app.get(
      '/companies',
      {
        config: access.super,
        schema: { response: { 200: hasMoreOf('companies', Company) }, querystring: ListQuery },
      },
      (req) => companies.page(req.tenant, req.query.searchParam, req.query.pageNumber),
    );
    app.get(
      '/companies/list',
      { config: access.super, schema: { response: { 200: z.array(Company) } } },
      (req) => companies.listAll(req.tenant),
    );
    app.get(
      '/companies/:id',
      { config: access.user, schema: { response: { 200: Company }, params: IdParam } },
      (req) => companies.get(req.tenant, req.params.id),
    );
    app.get(
      '/companies/listPlan/:companyId',
      {
        config: access.user,
        schema: { response: { 200: CompanyPlan }, params: z.object({ companyId: IdParam.shape.id }) },
      },
      (req) => companies.listPlan(req.tenant, req.params.companyId),
    );
    app.post(
      '/companies',
      { config: access.super, schema: { response: { 201: Company }, body: CompanyInput } },
      async (req, reply) => reply.status(201).send(await companies.create(req.tenant, req.body)),
    );
    app.put(
      '/companies/:id',
      {
        config: access.super,
        schema: { response: { 200: Company }, params: IdParam, body: CompanyPatch },
      },
      (req) => companies.update(req.tenant, req.params.id, req.body),
    );
    app.put(
      '/companies/:id/schedules',
      {
        config: access.admin,
        schema: { response: { 200: Company }, params: IdParam, body: CompanySchedulesInput },
      },
      (req) => companies.updateSchedules(req.tenant, req.params.id, req.body.schedules),
    );
    app.delete(
      '/companies/:id',
      { config: access.super, schema: { response: { 200: MessageAnswer }, params: IdParam } },
      (req) => companies.remove(req.tenant, req.params.id),
    );
  };
