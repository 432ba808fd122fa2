import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { IdParam, MessageEdit, MessageSend } from '@recado/contracts';
import { AppError } from '../../http/errors.js';
import type { MessageService, OutboundFile } from './message-service.js';
import { isRecording } from './voice-note.js';

const TicketParam = z.object({ ticketId: z.coerce.number().int().positive().max(2147483647) });
const PageQuery = z.object({ pageNumber: z.coerce.number().int().min(1).max(100000).optional().default(1) });

export const MAX_UPLOAD_BYTES = 16 * 1024 * 1024;
const ALLOWED_MIME = /^(image|audio|video)\/[\w.+-]+$|^application\/[\w.+-]+$|^text\/(plain|csv)$/;

export const messageRoutes =
  (messages: MessageService): FastifyPluginAsyncZod =>
  async (app) => {
    app.get('/messages/:ticketId', { schema: { params: TicketParam, querystring: PageQuery } }, (req) =>
      messages.list(req.tenant, req.params.ticketId, req.query.pageNumber),
    );
    app.post('/messages/:ticketId', { schema: { params: TicketParam } }, async (req) => {
      if (req.isMultipart()) {
        // Form data: medias (several files), body, fromMe.
        const files: OutboundFile[] = [];
        const fields: Record<string, string> = {};
        for await (const part of req.parts({ limits: { fileSize: MAX_UPLOAD_BYTES, files: 10 } })) {
          if (part.type === 'file') {
            const data = await part.toBuffer();
            if (part.file.truncated) throw new AppError('ERR_VALIDATION', 413, 'file too large');
            if (!ALLOWED_MIME.test(part.mimetype))
              throw new AppError('ERR_VALIDATION', 400, `file type ${part.mimetype} not allowed`);
            const file = { mimetype: part.mimetype, filename: part.filename.slice(0, 200) || 'file', data };
            // The web recorder names its recordings audio-record-*: they go as voice notes.
            files.push({ ...file, recording: isRecording(file) });
          } else fields[part.fieldname] = String(part.value);
        }
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
    });
    app.delete('/messages/:id', { schema: { params: IdParam } }, (req) =>
      messages.remove(req.tenant, req.params.id),
    );
    app.put('/messages/:id', { schema: { params: IdParam, body: MessageEdit } }, (req) =>
      messages.edit(req.tenant, req.params.id, req.body.body),
    );
    app.post('/messages/:ticketId/read', { schema: { params: TicketParam } }, (req) =>
      messages.markRead(req.tenant, req.params.ticketId),
    );
    app.get('/messages/:id/media', { schema: { params: IdParam } }, async (req, reply) => {
      const file = await messages.mediaFile(req.tenant, req.params.id);
      return reply
        .header('content-disposition', `inline; filename="${encodeURIComponent(file.filename)}"`)
        .header('cache-control', 'private, max-age=3600')
        .type(guessType(file.filename, file.mediaType))
        .send(file.data);
    });
  };

function guessType(filename: string, mediaType: string | null): string {
  const ext = filename.split('.').pop()?.toLowerCase() ?? '';
  const known: Record<string, string> = {
    png: 'image/png',
    jpg: 'image/jpeg',
    jpeg: 'image/jpeg',
    gif: 'image/gif',
    webp: 'image/webp',
    mp3: 'audio/mpeg',
    ogg: 'audio/ogg',
    opus: 'audio/ogg',
    m4a: 'audio/mp4',
    mp4: 'video/mp4',
    pdf: 'application/pdf',
    txt: 'text/plain',
  };
  return known[ext] ?? (mediaType === 'image' ? 'image/jpeg' : 'application/octet-stream');
}
