import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  ContactDuplicatePage,
  ContactDuplicateQuery,
  ContactMergeInput,
  ContactMergePreview,
  ContactMergePreviewQuery,
  ContactMergeResult,
  IdParam,
} from '@recado/contracts';
import { access } from '../../http/access.js';
import type { ContactMergeService } from './merge-service.js';

export const contactMergeRoutes =
  (merge: ContactMergeService): FastifyPluginAsyncZod =>
  async (app) => {
    app.get(
      '/contacts/duplicates',
      {
        config: access.user,
        schema: { response: { 200: ContactDuplicatePage }, querystring: ContactDuplicateQuery },
      },
      (req) => merge.duplicates(req.tenant, req.query.pageNumber),
    );
    app.get(
      '/contacts/:id/merge-preview',
      {
        config: access.user,
        schema: {
          response: { 200: ContactMergePreview },
          params: IdParam,
          querystring: ContactMergePreviewQuery,
        },
      },
      (req) => merge.preview(req.tenant, req.params.id, req.query.otherId),
    );
    app.post(
      '/contacts/:id/merge',
      {
        config: access.user,
        schema: { response: { 200: ContactMergeResult }, params: IdParam, body: ContactMergeInput },
      },
      (req) =>
        merge.merge(req.tenant, req.params.id, req.body.otherId, {
          ip: req.ip,
          userAgent: req.headers['user-agent'] ?? null,
        }),
    );
  };
