import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { HelpInput, HelpView, IdParam, MessageAnswer } from '@recado/contracts';
import { patchSchema } from '../../http/patch-schema.js';
import type { HelpService } from './help-service.js';
import { access } from '../../http/access.js';

const HelpPatch = patchSchema(HelpInput);

export const helpRoutes =
  (helps: HelpService): FastifyPluginAsyncZod =>
  async (app) => {
    app.get('/helps', { config: access.user, schema: { response: { 200: z.array(HelpView) } } }, () =>
      helps.list(),
    );
    app.get('/helps/list', { config: access.user, schema: { response: { 200: z.array(HelpView) } } }, () =>
      helps.list(),
    );
    app.get(
      '/helps/:id',
      { config: access.user, schema: { response: { 200: HelpView }, params: IdParam } },
      (req) => helps.get(req.params.id),
    );
    app.post(
      '/helps',
      { config: access.super, schema: { response: { 201: HelpView }, body: HelpInput } },
      async (req, reply) => reply.status(201).send(await helps.create(req.tenant, req.body)),
    );
    app.put(
      '/helps/:id',
      { config: access.super, schema: { response: { 200: HelpView }, params: IdParam, body: HelpPatch } },
      (req) => helps.update(req.tenant, req.params.id, req.body),
    );
    app.delete(
      '/helps/:id',
      { config: access.super, schema: { response: { 200: MessageAnswer }, params: IdParam } },
      (req) => helps.remove(req.tenant, req.params.id),
    );
  };
