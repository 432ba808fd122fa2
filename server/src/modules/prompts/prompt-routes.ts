import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  IdParam,
  MessageAnswer,
  Prompt,
  PromptInput,
  PromptList,
  PromptTestAnswer,
  PromptTestInput,
  PromptUpdate,
} from '@recado/contracts';
import type { PromptService } from './prompt-service.js';
import { access } from '../../http/access.js';

/** AI prompts (docs/automation.md "Prompts"): reads for the company's users, writes for admins. */
export const promptRoutes =
  (prompts: PromptService): FastifyPluginAsyncZod =>
  async (app) => {
    app.get(
      '/prompt',
      { config: access.plan('useOpenAi'), schema: { response: { 200: PromptList } } },
      (req) => prompts.list(req.tenant),
    );
    app.get(
      '/prompt/:id',
      { config: access.plan('useOpenAi'), schema: { response: { 200: Prompt }, params: IdParam } },
      (req) => prompts.get(req.tenant, req.params.id),
    );
    app.post(
      '/prompt',
      {
        config: access.plan('useOpenAi', 'admin'),
        schema: { response: { 201: Prompt }, body: PromptInput },
      },
      async (req, reply) => reply.status(201).send(await prompts.create(req.tenant, req.body)),
    );
    app.post(
      '/prompt/test',
      {
        config: access.plan('useOpenAi', 'admin'),
        schema: { response: { 200: PromptTestAnswer }, body: PromptTestInput },
      },
      (req) => prompts.test(req.tenant, req.body),
    );
    app.put(
      '/prompt/:id',
      {
        config: access.plan('useOpenAi', 'admin'),
        schema: { response: { 200: Prompt }, params: IdParam, body: PromptUpdate },
      },
      (req) => prompts.update(req.tenant, req.params.id, req.body),
    );
    app.delete(
      '/prompt/:id',
      {
        config: access.plan('useOpenAi', 'admin'),
        schema: { response: { 200: MessageAnswer }, params: IdParam },
      },
      (req) => prompts.remove(req.tenant, req.params.id),
    );
  };
