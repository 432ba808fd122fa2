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
} from '@recado/contracts';
import { AppError } from '../../http/errors.js';
import { readOneFile } from '../../http/uploads.js';
import type { FileListService } from './file-list-service.js';
import { access } from '../../http/access.js';
import { resourceRoutes } from '../../http/route-kit.js';
import { multipartBody } from '../../http/openapi.js';
import { sendStoredFile } from '../../http/stored-file.js';

const OptionTarget = z.object({
  optionId: z.coerce.number().int().positive().max(2_147_483_647).optional(),
  name: z.string().trim().max(100).optional(),
});

export const fileListRoutes =
  (fileLists: FileListService): FastifyPluginAsyncZod =>
  async (app) => {
    resourceRoutes(app, {
      base: '/files',
      view: FileList,
      read: access.user,
      write: access.admin,
      list: {
        query: FileListQuery,
        answer: FileListPage,
        run: (req) => fileLists.list(req.tenant, req.query),
      },
      all: { answer: z.array(FileList), run: (req) => fileLists.listAll(req.tenant) },
      show: { run: (req) => fileLists.get(req.tenant, req.params.id) },
      create: { body: FileListInput, run: (req) => fileLists.create(req.tenant, req.body) },
      update: { body: FileListUpdate, run: (req) => fileLists.update(req.tenant, req.params.id, req.body) },
      remove: { run: (req) => fileLists.remove(req.tenant, req.params.id) },
    });
    // Multipart: the file (field `files` or `file`), and optionId (or the spec's `id`) or a new option's name.
    app.post(
      '/files/uploadList/:id',
      {
        config: access.admin,
        schema: {
          documentedBody: { 'multipart/form-data': multipartBody(OptionTarget.shape, { file: 'one' }) },
          response: { 200: FileList },
          params: IdParam,
        },
      },
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
