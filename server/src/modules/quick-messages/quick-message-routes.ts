import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  FileAnswer,
  IdParam,
  MessageAnswer,
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
import { sendStoredFile } from '../../http/stored-file.js';

export const quickMessageRoutes =
  (quick: QuickMessageService): FastifyPluginAsyncZod =>
  async (app) => {
    app.get(
      '/quick-messages',
      {
        config: access.user,
        schema: { response: { 200: hasMoreOf('records', QuickMessage) }, querystring: QuickMessageListQuery },
      },
      (req) => quick.list(req.tenant, req.query),
    );
    // companyId and userId are accepted for the spec's client; the signed-in user decides what is listed.
    app.get(
      '/quick-messages/list',
      {
        config: access.user,
        schema: { response: { 200: z.array(QuickMessage) }, querystring: QuickMessageSuggestQuery },
      },
      (req) => quick.suggestions(req.tenant),
    );
    app.get(
      '/quick-messages/:id',
      { config: access.user, schema: { response: { 200: QuickMessage }, params: IdParam } },
      (req) => quick.get(req.tenant, req.params.id),
    );
    app.post(
      '/quick-messages',
      { config: access.user, schema: { response: { 201: QuickMessage }, body: QuickMessageInput } },
      async (req, reply) => reply.status(201).send(await quick.create(req.tenant, req.body)),
    );
    app.put(
      '/quick-messages/:id',
      {
        config: access.user,
        schema: { response: { 200: QuickMessage }, params: IdParam, body: QuickMessageUpdate },
      },
      (req) => quick.update(req.tenant, req.params.id, req.body),
    );
    app.delete(
      '/quick-messages/:id',
      { config: access.user, schema: { response: { 200: MessageAnswer }, params: IdParam } },
      (req) => quick.remove(req.tenant, req.params.id),
    );
    app.post(
      '/quick-messages/:id/media-upload',
      { config: access.user, schema: { response: { 200: QuickMessage }, params: IdParam } },
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
