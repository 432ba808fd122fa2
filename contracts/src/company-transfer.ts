import { z } from 'zod';

/** #35.4 Company export and import (docs/migration.md "Recado archive format"). */
export const CompanyExportStatus = z.enum(['queued', 'running', 'done', 'failed', 'expired']);

export const CompanyExportInput = z.object({
  /** The super user names the company; a company admin exports their own (absent or equal). */
  companyId: z.number().int().positive().optional(),
});

export const CompanyExport = z
  .object({
    id: z.number(),
    companyId: z.number(),
    status: CompanyExportStatus,
    /** tables → media → archive → done. */
    phase: z.enum(['tables', 'media', 'archive', 'done']).nullable(),
    tablesDone: z.number(),
    /** The table (or media column) being written now. */
    current: z.string().nullable(),
    /** How many times a restarted job continued this export where it stopped. */
    resumes: z.number(),
    tablesTotal: z.number(),
    rowsWritten: z.number(),
    /** The archive's bytes, once done. */
    size: z.number().nullable(),
    error: z.string().nullable(),
    createdAt: z.string(),
    finishedAt: z.string().nullable(),
    expiresAt: z.string().nullable(),
    /** `GET` it (signed in) for the archive, once done. */
    downloadUrl: z.string().nullable(),
  })
  .meta({ id: 'CompanyExport' });
export type CompanyExport = z.infer<typeof CompanyExport>;

export const CompanyImportReport = z
  .object({
    ok: z.boolean(),
    companyId: z.number(),
    companyName: z.string(),
    source: z.object({ install: z.string(), app: z.string(), companyId: z.number(), createdAt: z.string() }),
    /** Rows imported per table (the manifest's counts, checked). */
    tables: z.record(z.string(), z.number()),
    mediaFiles: z.number(),
    /** Users whose e-mail existed here: renamed (`old` → `new`). */
    renamedUsers: z.array(z.object({ old: z.string(), new: z.string() })),
    notes: z.array(z.string()),
    durationMs: z.number(),
  })
  .meta({ id: 'CompanyImportReport' });
export type CompanyImportReport = z.infer<typeof CompanyImportReport>;
