import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  CustomFieldInput,
  CustomFieldListQuery,
  CustomFieldUpdate,
  CustomFieldView,
} from '@recado/contracts';
import type { CustomFieldService } from './custom-field-service.js';
import { access } from '../../http/access.js';
import { resourceRoutes } from '../../http/route-kit.js';

/** Custom field definitions (#32.7, docs/productivity.md "Custom fields"): everyone reads, admins write. */
export const customFieldRoutes =
  (fields: CustomFieldService): FastifyPluginAsyncZod =>
  async (app) => {
    resourceRoutes(app, {
      base: '/custom-fields',
      view: CustomFieldView,
      read: access.user,
      write: access.admin,
      list: {
        query: CustomFieldListQuery,
        answer: z.array(CustomFieldView),
        run: (req) => fields.list(req.tenant, req.query),
      },
      show: { run: (req) => fields.get(req.tenant, req.params.id) },
      create: { body: CustomFieldInput, run: (req) => fields.create(req.tenant, req.body) },
      update: { body: CustomFieldUpdate, run: (req) => fields.update(req.tenant, req.params.id, req.body) },
      remove: { run: (req) => fields.remove(req.tenant, req.params.id) },
    });
  };
