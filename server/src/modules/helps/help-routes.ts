import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { HelpInput, HelpView } from '@recado/contracts';
import { patchSchema } from '../../http/patch-schema.js';
import type { HelpService } from './help-service.js';
import { access } from '../../http/access.js';
import { resourceRoutes } from '../../http/route-kit.js';

const HelpPatch = patchSchema(HelpInput);

export const helpRoutes =
  (helps: HelpService): FastifyPluginAsyncZod =>
  async (app) => {
    resourceRoutes(app, {
      base: '/helps',
      view: HelpView,
      read: access.user,
      write: access.super,
      list: { answer: z.array(HelpView), run: () => helps.list() },
      all: { answer: z.array(HelpView), run: () => helps.list() },
      show: { run: (req) => helps.get(req.params.id) },
      create: { body: HelpInput, run: (req) => helps.create(req.tenant, req.body) },
      update: { body: HelpPatch, run: (req) => helps.update(req.tenant, req.params.id, req.body) },
      remove: { run: (req) => helps.remove(req.tenant, req.params.id) },
    });
  };
