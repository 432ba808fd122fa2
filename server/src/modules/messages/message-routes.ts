import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  FileAnswer,
  IdParam,
  MessageEdit,
  MessagePage,
  MessageSend,
  MessageView,
  TicketView,
} from '@recado/contracts';
import { AppError } from '../../http/errors.js';
import type { MessageService, OutboundFile } from './message-service.js';
import { isRecording } from './voice-note.js';
import { MAX_UPLOAD_BYTES, MESSAGE_MEDIA, mimeOf, readUpload } from '../../http/uploads.js';
import { access } from '../../http/access.js';
import { multipartBody } from '../../http/openapi.js';
import { sendStoredFile } from '../../http/stored-file.js';

const TicketParam = z.object({ ticketId: z.coerce.number().int().positive().max(2147483647) });
const PageQuery = z.object({ pageNumber: z.coerce.number().int().min(1).max(100000).optional().default(1) });

export const messageRoutes =
  (messages: MessageService): FastifyPluginAsyncZod =>
  async (app) => {
    app.get(
      '/messages/:ticketId',
      {
        config: access.user,
        schema: { response: { 200: MessagePage }, params: TicketParam, querystring: PageQuery },
      },
      (req) => messages.list(req.tenant, req.params.ticketId, req.query.pageNumber),
    );
    app.post(
      '/messages/:ticketId',
      {
        config: access.user,
        schema: {
          // Parsed below: JSON, or form data with the files (a text, a template, or files with a caption).
          documentedBody: {
            'application/json': MessageSend,
            'multipart/form-data': multipartBody(MessageSend.pick({ body: true }).shape, { medias: 'many' }),
          },
          response: { 200: MessageView },
          params: TicketParam,
        },
      },
      async (req) => {
        if (req.isMultipart()) {
          // Form data: medias (several files), body, fromMe.
          const { files: parts, fields } = await readUpload(req, {
            maxBytes: MAX_UPLOAD_BYTES,
            maxFiles: 10,
            requireFile: false,
            accept: (f) => MESSAGE_MEDIA.test(f.mimetype),
          });
          // The web recorder names its recordings audio-record-*: they go as voice notes.
          const files: OutboundFile[] = parts.map(({ mimetype, filename, data }) => {
            const file = { mimetype, filename, data };
            return { ...file, recording: isRecording(file) };
          });
          const input = MessageSend.safeParse({ body: fields.body ?? '' });
          if (!input.success) throw new AppError('ERR_VALIDATION', 400, 'invalid body');
          return messages.send(req.tenant, req.params.ticketId, input.data, files);
        }
        const input = MessageSend.safeParse(req.body ?? {});
        if (!input.success)
          throw new AppError(
            'ERR_VALIDATION',
            400,
            input.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '),
          );
        return messages.send(req.tenant, req.params.ticketId, input.data);
      },
    );
    app.delete(
      '/messages/:id',
      { config: access.user, schema: { response: { 200: MessageView }, params: IdParam } },
      (req) => messages.remove(req.tenant, req.params.id),
    );
    app.put(
      '/messages/:id',
      { config: access.user, schema: { response: { 200: MessageView }, params: IdParam, body: MessageEdit } },
      (req) => messages.edit(req.tenant, req.params.id, req.body.body),
    );
    app.post(
      '/messages/:ticketId/read',
      { config: access.user, schema: { noBody: true, response: { 200: TicketView }, params: TicketParam } },
      (req) => messages.markRead(req.tenant, req.params.ticketId),
    );
    app.get(
      '/messages/:id/media',
      { config: access.user, schema: { response: { 200: FileAnswer }, params: IdParam } },
      async (req, reply) => {
        const file = await messages.mediaFile(req.tenant, req.params.id);
        const type = mimeOf(file.filename, file.mediaType === 'image' ? 'image/jpeg' : undefined);
        return sendStoredFile(reply, { filename: file.filename, type, data: file.data }, 3600);
      },
    );
  };
