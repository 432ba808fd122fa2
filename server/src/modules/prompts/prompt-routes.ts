import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { IdParam, PromptInput, PromptUpdate } from '@recado/contracts';
import type { PromptService } from './prompt-service.js';

/** AI prompts (operations §7 "Prompts"): reads for the company's users, writes for admins. */
export const promptRoutes =
  (prompts: PromptService): FastifyPluginAsyncZod =>
  async (app) => {
    // Plan flag useOpenAi: a company without it gets ERR_NO_PERMISSION from every route here.
    app.addHook('preHandler', async (req) => {
      await prompts.requirePlan(req.tenant.companyId);
    });
    app.get('/prompt', (req) => prompts.list(req.tenant));
    app.get('/prompt/:id', { schema: { params: IdParam } }, (req) => prompts.get(req.tenant, req.params.id));
    app.post('/prompt', { schema: { body: PromptInput } }, async (req, reply) =>
      reply.status(201).send(await prompts.create(req.tenant, req.body)),
    );
    app.put('/prompt/:id', { schema: { params: IdParam, body: PromptUpdate } }, (req) =>
      prompts.update(req.tenant, req.params.id, req.body),
    );
    app.delete('/prompt/:id', { schema: { params: IdParam } }, (req) =>
      prompts.remove(req.tenant, req.params.id),
    );
  };
