import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  FileAnswer,
  FileList,
  FileListInput,
  FileListPage,
  FileListQuery,
  FileListUpdate,
  IdParam,
  MAX_FILE_LIST_UPLOAD_BYTES,
  MessageAnswer,
} from '@recado/contracts';
import { AppError } from '../../http/errors.js';
import { readOneFile } from '../../http/uploads.js';
import type { FileListService } from './file-list-service.js';
import { access } from '../../http/access.js';
import { sendStoredFile } from '../../http/stored-file.js';

const OptionTarget = z.object({
  optionId: z.coerce.number().int().positive().max(2_147_483_647).optional(),
  name: z.string().trim().max(100).optional(),
});

export const fileListRoutes =
  (fileLists: FileListService): FastifyPluginAsyncZod =>
  async (app) => {
    app.get(
      '/files',
      { config: access.user, schema: { response: { 200: FileListPage }, querystring: FileListQuery } },
      (req) => fileLists.list(req.tenant, req.query),
    );
    app.get('/files/list', { config: access.user, schema: { response: { 200: z.array(FileList) } } }, (req) =>
      fileLists.listAll(req.tenant),
    );
    app.get(
      '/files/:id',
      { config: access.user, schema: { response: { 200: FileList }, params: IdParam } },
      (req) => fileLists.get(req.tenant, req.params.id),
    );
    app.post(
      '/files',
      { config: access.admin, schema: { response: { 201: FileList }, body: FileListInput } },
      async (req, reply) => reply.status(201).send(await fileLists.create(req.tenant, req.body)),
    );
    app.put(
      '/files/:id',
      {
        config: access.admin,
        schema: { response: { 200: FileList }, params: IdParam, body: FileListUpdate },
      },
      (req) => fileLists.update(req.tenant, req.params.id, req.body),
    );
    app.delete(
      '/files/:id',
      { config: access.admin, schema: { response: { 200: MessageAnswer }, params: IdParam } },
      (req) => fileLists.remove(req.tenant, req.params.id),
    );
    // Multipart: the file (field `files` or `file`), and optionId (or the spec's `id`) or a new option's name.
    app.post(
      '/files/uploadList/:id',
      { config: access.admin, schema: { response: { 200: FileList }, params: IdParam } },
      async (req) => {
        const { file, fields } = await readOneFile(req, { maxBytes: MAX_FILE_LIST_UPLOAD_BYTES });
        const target = OptionTarget.safeParse({
          optionId: fields.optionId || fields.id || undefined,
          name: fields.name || undefined,
        });
        if (!target.success) throw new AppError('ERR_VALIDATION', 400, 'invalid optionId or name');
        return fileLists.upload(req.tenant, req.params.id, file, target.data);
      },
    );
    app.get(
      '/files/options/:id/file',
      { config: access.user, schema: { response: { 200: FileAnswer }, params: IdParam } },
      async (req, reply) => {
        const file = await fileLists.optionFile(req.tenant, req.params.id);
        const type = file.mediaType || 'application/octet-stream';
        return sendStoredFile(reply, { filename: file.fileName, type, data: file.data }, 3600);
      },
    );
  };
