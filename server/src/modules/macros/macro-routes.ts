import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  IdParam,
  Macro,
  MacroInput,
  MacroListQuery,
  MacroRunInput,
  MacroRunResult,
  MacroUpdate,
  hasMoreOf,
} from '@recado/contracts';
import { access } from '../../http/access.js';
import { resourceRoutes } from '../../http/route-kit.js';
import type { MacroService } from './macro-service.js';

/** #32.1 Macros: the five standard routes, the full list (pickers) and the run. */
export const macroRoutes =
  (macros: MacroService): FastifyPluginAsyncZod =>
  async (app) => {
    resourceRoutes(app, {
      base: '/macros',
      view: Macro,
      read: access.user,
      write: access.user,
      list: {
        query: MacroListQuery,
        answer: hasMoreOf('records', Macro),
        run: (req) => macros.list(req.tenant, req.query),
      },
      all: { answer: z.array(Macro), run: (req) => macros.all(req.tenant) },
      show: { run: (req) => macros.get(req.tenant, req.params.id) },
      create: { body: MacroInput, run: (req) => macros.create(req.tenant, req.body) },
      update: { body: MacroUpdate, run: (req) => macros.update(req.tenant, req.params.id, req.body) },
      remove: { run: (req) => macros.remove(req.tenant, req.params.id) },
    });
    app.post(
      '/macros/:id/run',
      {
        config: access.user,
        schema: { params: IdParam, body: MacroRunInput, response: { 200: MacroRunResult } },
      },
      (req) => macros.run(req.tenant, req.params.id, req.body),
    );
  };
