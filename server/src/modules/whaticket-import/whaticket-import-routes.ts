import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { access } from '../../http/access.js';
import type { Database } from '../../db/client.js';
import { importWhaticket } from '../../scripts/whaticket-import.js';
import type { AppModule } from '../app-module.js';

/** What the super user sends: the Whaticket database and the company to import (docs/migration.md). */
const WhaticketImportInput = z.object({
  from: z.string().regex(/^postgres(ql)?:\/\//, 'a postgres:// URL'),
  companyId: z.number().int().positive(),
});

const TableReport = z.object({
  read: z.number(),
  imported: z.number(),
  updated: z.number(),
  skipped: z.number(),
  reasons: z.record(z.string(), z.number()),
});
/** The importer's report (WhaticketImportReport). */
const WhaticketImportReport = z.object({
  ok: z.boolean(),
  source: z.string(),
  whaticketCompanyId: z.number(),
  recadoCompanyId: z.number().nullable(),
  missingTables: z.array(z.string()),
  error: z.string().optional(),
  tables: z.record(z.string(), TableReport),
  notes: z.array(z.string()),
});

/**
 * #35.5 `POST /api/company-imports/whaticket` (super user): the same import as `npm run import:whaticket`, run
 * while the request waits; answers the report — 200 when it finished, 422 when it did not (`error`,
 * `missingTables`). Media are not copied from here (no server folder is named over HTTP): the command's
 * `--media` does that.
 */
export const whaticketImportModule = (database: Database): AppModule => ({
  name: 'whaticket-import',
  routes: [
    (async (app) => {
      app.post(
        '/company-imports/whaticket',
        {
          config: access.super,
          schema: {
            body: WhaticketImportInput,
            response: { 200: WhaticketImportReport, 422: WhaticketImportReport },
          },
        },
        async (req, reply) => {
          const report = await importWhaticket({
            from: req.body.from,
            companyId: req.body.companyId,
            target: database,
            log: (line) => req.log.debug({ whaticketImport: line }),
          });
          return reply.status(report.ok ? 200 : 422).send(report);
        },
      );
    }) as FastifyPluginAsyncZod,
  ],
});
