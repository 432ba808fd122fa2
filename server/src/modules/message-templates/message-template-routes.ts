import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { IdParam, MessageTemplate } from '@recado/contracts';
import { access } from '../../http/access.js';
import type { MessageTemplateService } from './message-template-service.js';

const ListQuery = z.object({ usable: z.enum(['true', 'false']).optional() });

export const messageTemplateRoutes =
  (templates: MessageTemplateService): FastifyPluginAsyncZod =>
  async (app) => {
    // Any user of the company (the composer's picker); `usable=true` keeps approved templates only.
    app.get(
      '/whatsapp/:id/templates',
      {
        config: access.user,
        schema: { response: { 200: z.array(MessageTemplate) }, params: IdParam, querystring: ListQuery },
      },
      (req) => templates.list(req.tenant, req.params.id, req.query.usable === 'true'),
    );
    // Admins: read the business account's templates from Meta now.
    app.post(
      '/whatsapp/:id/templates/sync',
      {
        config: access.admin,
        schema: { noBody: true, response: { 200: z.array(MessageTemplate) }, params: IdParam },
      },
      (req) => templates.sync(req.tenant, req.params.id),
    );
  };
