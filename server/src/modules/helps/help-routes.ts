import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { HelpInput, IdParam } from '@recado/contracts';
import { patchSchema } from '../../http/patch-schema.js';
import type { HelpService } from './help-service.js';

const HelpPatch = patchSchema(HelpInput);

export const helpRoutes =
  (helps: HelpService): FastifyPluginAsyncZod =>
  async (app) => {
    app.get('/helps', () => helps.list());
    app.get('/helps/list', () => helps.list());
    app.get('/helps/:id', { schema: { params: IdParam } }, (req) => helps.get(req.params.id));
    app.post('/helps', { schema: { body: HelpInput } }, async (req, reply) =>
      reply.status(201).send(await helps.create(req.tenant, req.body)),
    );
    app.put('/helps/:id', { schema: { params: IdParam, body: HelpPatch } }, (req) =>
      helps.update(req.tenant, req.params.id, req.body),
    );
    app.delete('/helps/:id', { schema: { params: IdParam } }, (req) =>
      helps.remove(req.tenant, req.params.id),
    );
  };
