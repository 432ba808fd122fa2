import { randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  CompanyExport,
  CompanyExportInput,
  CompanyImportReport,
  FileAnswer,
  IdParam,
} from '@recado/contracts';
import { access } from '../../http/access.js';
import { AppError } from '../../http/errors.js';
import { ONE_FILE_BODY } from '../../http/openapi.js';
import type { AppModule } from '../app-module.js';
import type { CompanyExportService } from './export-service.js';
import type { CompanyImportService } from './import-service.js';

/** The largest archive an import accepts (streamed to disk, never held in memory). */
export const MAX_IMPORT_BYTES = 50 * 1024 ** 3;

/** #35.4 Company export (company admin, or the super user for any company) and import (super user). */
export const companyTransferModule = (deps: {
  exports: CompanyExportService;
  imports: CompanyImportService;
  dataDir: string;
}): AppModule => ({
  name: 'company-transfer',
  jobs: Object.values(deps.exports.jobs),
  routes: [
    (async (app) => {
      app.post(
        '/company-exports',
        { config: access.admin, schema: { body: CompanyExportInput, response: { 202: CompanyExport } } },
        async (req, reply) => reply.status(202).send(await deps.exports.start(req.tenant, req.body ?? {})),
      );
      app.get(
        '/company-exports',
        { config: access.admin, schema: { response: { 200: z.array(CompanyExport) } } },
        (req) => deps.exports.list(req.tenant),
      );
      app.get(
        '/company-exports/:id',
        { config: access.admin, schema: { params: IdParam, response: { 200: CompanyExport } } },
        (req) => deps.exports.get(req.tenant, req.params.id),
      );
      // The archive itself, streamed from disk.
      app.get(
        '/company-exports/:id/archive',
        { config: access.admin, schema: { params: IdParam, response: { 200: FileAnswer } } },
        async (req, reply) => {
          const a = await deps.exports.archive(req.tenant, req.params.id);
          return reply
            .header('content-type', 'application/x-tar')
            .header('content-length', a.size)
            .header('content-disposition', `attachment; filename="${a.filename}"`)
            .header('cache-control', 'no-store')
            .send(createReadStream(a.path));
        },
      );
      // The archive uploaded (multipart, field "file"), streamed to disk, verified, imported as a new company.
      app.post(
        '/company-imports',
        {
          config: access.super,
          schema: { documentedBody: ONE_FILE_BODY, response: { 201: CompanyImportReport } },
        },
        async (req, reply) => {
          if (!req.isMultipart())
            throw new AppError('ERR_VALIDATION', 400, 'multipart/form-data with a file expected');
          const dir = join(deps.dataDir, 'company-imports');
          await mkdir(dir, { recursive: true });
          const path = join(dir, `${randomUUID()}.tar`);
          try {
            const part = await req.file({ limits: { fileSize: MAX_IMPORT_BYTES, files: 1 } });
            if (!part) throw new AppError('ERR_VALIDATION', 400, 'file expected');
            await pipeline(part.file, createWriteStream(path));
            if (part.file.truncated) throw new AppError('ERR_FILE_TOO_LARGE', 413, 'archive too large');
            const report = await deps.imports.importArchive(req.tenant, path);
            return reply.status(201).send(report);
          } finally {
            await rm(path, { force: true });
          }
        },
      );
    }) as FastifyPluginAsyncZod,
  ],
});
