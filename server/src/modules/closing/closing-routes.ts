import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { ClosingReason, ClosingReasonInput, ClosingReasonUpdate } from '@recado/contracts';
import type { ClosingReasonService } from './closing-service.js';
import { access } from '../../http/access.js';
import { resourceRoutes } from '../../http/route-kit.js';

/** #32.3 Closing reasons (docs/productivity.md "Closing reasons"): every user reads them, admins change them. */
export const closingReasonRoutes =
  (reasons: ClosingReasonService): FastifyPluginAsyncZod =>
  async (app) => {
    resourceRoutes(app, {
      base: '/closing-reasons',
      view: ClosingReason,
      read: access.user,
      write: access.admin,
      list: { answer: z.array(ClosingReason), run: (req) => reasons.list(req.tenant) },
      show: { run: (req) => reasons.get(req.tenant, req.params.id) },
      create: { body: ClosingReasonInput, run: (req) => reasons.create(req.tenant, req.body) },
      update: {
        body: ClosingReasonUpdate,
        run: (req) => reasons.update(req.tenant, req.params.id, req.body),
      },
      remove: { run: (req) => reasons.remove(req.tenant, req.params.id) },
    });
  };
