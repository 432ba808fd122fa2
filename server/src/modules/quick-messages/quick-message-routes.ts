import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  FileAnswer,
  IdParam,
  QuickMessage,
  QuickMessageInput,
  QuickMessageListQuery,
  QuickMessageSuggestQuery,
  QuickMessageUpdate,
  hasMoreOf,
} from '@recado/contracts';
import type { QuickMessageService } from './quick-message-service.js';
import { MAX_UPLOAD_BYTES, MESSAGE_MEDIA, mimeOf, readOneFile } from '../../http/uploads.js';
import { access } from '../../http/access.js';
import { resourceRoutes } from '../../http/route-kit.js';
import { ONE_FILE_BODY } from '../../http/openapi.js';
import { sendStoredFile } from '../../http/stored-file.js';

export const quickMessageRoutes =
  (quick: QuickMessageService): FastifyPluginAsyncZod =>
  async (app) => {
    resourceRoutes(app, {
      base: '/quick-messages',
      view: QuickMessage,
      read: access.user,
      write: access.user,
      list: {
        query: QuickMessageListQuery,
        answer: hasMoreOf('records', QuickMessage),
        run: (req) => quick.list(req.tenant, req.query),
      },
      // companyId and userId are accepted for the spec's client; the signed-in user decides what is listed.
      all: {
        query: QuickMessageSuggestQuery,
        answer: z.array(QuickMessage),
        run: (req) => quick.suggestions(req.tenant),
      },
      show: { run: (req) => quick.get(req.tenant, req.params.id) },
      create: { body: QuickMessageInput, run: (req) => quick.create(req.tenant, req.body) },
      update: { body: QuickMessageUpdate, run: (req) => quick.update(req.tenant, req.params.id, req.body) },
      remove: { run: (req) => quick.remove(req.tenant, req.params.id) },
    });
    app.post(
      '/quick-messages/:id/media-upload',
      {
        config: access.user,
        schema: { documentedBody: ONE_FILE_BODY, response: { 200: QuickMessage }, params: IdParam },
      },
      async (req) => {
        // Read (and authorise) before the upload is stored.
        await quick.get(req.tenant, req.params.id);
        // Attachments of quick messages: what a message can carry.
        const { file } = await readOneFile(req, {
          maxBytes: MAX_UPLOAD_BYTES,
          accept: (f) => MESSAGE_MEDIA.test(f.mimetype),
        });
        return quick.setMedia(req.tenant, req.params.id, file);
      },
    );
    app.delete(
      '/quick-messages/:id/media-upload',
      { config: access.user, schema: { response: { 200: QuickMessage }, params: IdParam } },
      (req) => quick.removeMedia(req.tenant, req.params.id),
    );
    app.get(
      '/quick-messages/:id/media',
      { config: access.user, schema: { response: { 200: FileAnswer }, params: IdParam } },
      async (req, reply) => {
        const file = await quick.mediaFile(req.tenant, req.params.id);
        return sendStoredFile(reply, { ...file, type: mimeOf(file.filename) }, 60);
      },
    );
  };
