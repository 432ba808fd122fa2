import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, open, rename, rm, stat, truncate } from 'node:fs/promises';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { z } from 'zod';
import { APP_VERSION, type CompanyExport } from '@recado/contracts';
import type { Db } from '../../db/client.js';
import { executeRows } from '../../db/rows.js';
import { companyExports } from '../../db/schema/company-exports.js';
import { AppError } from '../../http/errors.js';
import type { Tenant } from '../../http/tenant.js';
import { defineJob, type JobQueue } from '../../jobs/job-queue.js';
import type { Clock } from '../../lib/clock.js';
import { heapPacer } from '../../lib/heap-pacer.js';
import type { MediaStore } from '../../messaging/media-store.js';
import { and, eq, lt, inArray } from 'drizzle-orm';
import {
  ARCHIVE_FORMAT,
  ARCHIVE_VERSION,
  MANIFEST,
  MEDIA_INDEX,
  TABLES,
  tableFile,
  type Manifest,
  type TableSpec,
} from './archive-spec.js';
import { TAR_END, linesOf, tarHeader, tarPadding } from './tar.js';

/** Rows read per query (keyset pagination) and appended to the table's file at once. */
export const EXPORT_BATCH = 1000;
/** How long a finished archive stays on disk. */
export const ARCHIVE_TTL_MS = 7 * 24 * 3600_000;

/** Where one table (or the media index) stands: the last key written and the file's committed size. */
interface Cursor {
  part: string;
  key: unknown[] | null;
  bytes: number;
  rows: number;
}
/** company_exports.progress: finished parts, the one being written, the phase, and how often it resumed. */
export interface ExportProgress {
  phase?: 'tables' | 'media' | 'archive' | 'done';
  done?: Record<string, number>;
  current?: Cursor | null;
  resumes?: number;
  rowsWritten?: number;
  tablesTotal?: number;
}

export interface CompanyExportDeps {
  db: Db;
  dataDir: string;
  media: MediaStore;
  clock: Clock;
  jobs: JobQueue;
  /** This install's name in the manifest (its public URL). */
  install: string;
  log: { warn(o: object, m: string): void; info(o: object, m: string): void };
  /** Tests: called after a batch is written to disk and before its progress is recorded (a crash there). */
  afterWrite?: (part: string, rowsInPart: number) => void | Promise<void>;
  /** Rows per page (EXPORT_BATCH; tests make it small to cross pages). */
  batch?: number;
}

const q = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** The SQL that reads one page of a table, as JSON text per row. */
function pageQuery(spec: TableSpec, companyId: number, key: unknown[] | null, limit: number) {
  const omit = spec.omit?.length ? ` - array[${spec.omit.map((c) => `'${c}'`).join(',')}]::text[]` : '';
  const keys = spec.key.map((k) => `t.${q(k)}`).join(', ');
  const scope = spec.scope.replaceAll('$company', String(Math.trunc(companyId)));
  const after = key
    ? sql` and (${sql.raw(keys)}) > (${sql.join(
        key.map((v) => sql`${v}`),
        sql`, `,
      )})`
    : sql``;
  return sql`select (to_jsonb(t)${sql.raw(omit)})::text as j, ${sql.raw(
    spec.key.map((k, i) => `t.${q(k)} as k${i}`).join(', '),
  )} from ${sql.raw(q(spec.name))} t where ${sql.raw(scope)}${after} order by ${sql.raw(keys)} limit ${limit}`;
}

/** SHA-256 (hex) and size of a file, streamed. */
export async function hashFile(path: string): Promise<{ sha256: string; bytes: number }> {
  const h = createHash('sha256');
  let bytes = 0;
  for await (const c of createReadStream(path, { highWaterMark: 256 * 1024 })) {
    h.update(c as Buffer);
    bytes += (c as Buffer).length;
  }
  return { sha256: h.digest('hex'), bytes };
}

export function companyExportService(deps: CompanyExportDeps) {
  const { db, clock } = deps;
  const root = join(deps.dataDir, 'company-exports');
  const workDir = (id: number) => join(root, String(id));
  const archiveOf = (id: number) => join(root, `${id}.tar`);
  const mediaPartFile = (id: number, part: string) =>
    join(workDir(id), `${part.replace(/[^\w.-]/g, '_')}.jsonl`);
  // The pages' garbage collected as it goes (lib/heap-pacer.ts): the RSS stays near the live size.
  const pace = heapPacer();

  const toAnswer = (r: typeof companyExports.$inferSelect): CompanyExport => {
    const p = (r.progress ?? {}) as ExportProgress;
    const tablesDone = Object.keys(p.done ?? {}).filter((k) => !k.startsWith('media:')).length;
    return {
      id: r.id,
      companyId: r.companyId,
      status: r.status as CompanyExport['status'],
      phase: p.phase ?? null,
      tablesDone,
      current: p.current?.part ?? null,
      resumes: p.resumes ?? 0,
      tablesTotal: TABLES.length,
      rowsWritten: p.rowsWritten ?? 0,
      size: r.size ?? null,
      error: r.error ?? null,
      createdAt: r.createdAt.toISOString(),
      finishedAt: r.finishedAt?.toISOString() ?? null,
      expiresAt: r.expiresAt?.toISOString() ?? null,
      downloadUrl: r.status === 'done' ? `/api/company-exports/${r.id}/archive` : null,
    };
  };

  /** The export, when the caller may see it: its company's admin, or the super user. */
  async function load(t: Tenant, id: number) {
    const [r] = await db.select().from(companyExports).where(eq(companyExports.id, id));
    if (!r || (!t.super && r.companyId !== t.companyId)) throw new AppError('ERR_NOT_FOUND', 404);
    return r;
  }

  async function setProgress(id: number, progress: ExportProgress) {
    await db
      .update(companyExports)
      .set({ progress, updatedAt: clock.now() })
      .where(and(eq(companyExports.id, id), eq(companyExports.status, 'running')));
  }

  /** Appends rows page after page from the cursor; records the cursor after each page. */
  async function writePart(
    id: number,
    progress: ExportProgress,
    part: string,
    file: string,
    next: (key: unknown[] | null) => Promise<{ lines: string[]; key: unknown[] | null }>,
  ) {
    const cur: Cursor =
      progress.current?.part === part ? progress.current : { part, key: null, bytes: 0, rows: 0 };
    if (progress.current?.part === part) {
      progress.resumes = (progress.resumes ?? 0) + 1;
      deps.log.info({ exportId: id, part, rows: cur.rows }, 'company export resumes');
    }
    // Anything written after the last recorded page (the process died in between) is cut off.
    const fh = await open(file, 'a');
    try {
      await fh.close();
      await truncate(file, cur.bytes);
      const out = await open(file, 'a');
      try {
        for (;;) {
          const page = await next(cur.key);
          if (!page.lines.length) break;
          const text = page.lines.join('\n') + '\n';
          await out.write(text);
          await deps.afterWrite?.(part, cur.rows + page.lines.length);
          cur.key = page.key;
          cur.bytes += Buffer.byteLength(text);
          cur.rows += page.lines.length;
          progress.current = cur;
          progress.rowsWritten = (progress.rowsWritten ?? 0) + page.lines.length;
          await setProgress(id, progress);
          await pace();
        }
      } finally {
        await out.close();
      }
    } catch (err) {
      await fh.close().catch(() => undefined);
      throw err;
    }
    progress.done = { ...progress.done, [part]: cur.rows };
    progress.current = null;
    await setProgress(id, progress);
  }

  async function tablesPhase(id: number, companyId: number, progress: ExportProgress) {
    for (const spec of TABLES) {
      if (progress.done?.[spec.name] !== undefined) continue;
      await writePart(id, progress, spec.name, join(workDir(id), `${spec.name}.jsonl`), async (key) => {
        const rows = await executeRows<Record<string, unknown>>(
          db,
          pageQuery(spec, companyId, key, deps.batch ?? EXPORT_BATCH),
        );
        const last = rows.at(-1);
        return {
          lines: rows.map((r) => String(r.j)),
          key: last ? spec.key.map((_, i) => last[`k${i}`]) : key,
        };
      });
    }
  }

  /** The media files the rows name: one index line each (path, bytes, SHA-256), written like a table. */
  async function mediaPhase(id: number, companyId: number, progress: ExportProgress) {
    for (const spec of TABLES)
      for (const column of spec.media ?? []) {
        const part = `media:${spec.name}.${column}`;
        if (progress.done?.[part] !== undefined) continue;
        await writePart(id, progress, part, mediaPartFile(id, part), async (key) => {
          const scope = spec.scope.replaceAll('$company', String(Math.trunc(companyId)));
          const rows = await executeRows<{ id: string | number; p: string }>(
            db,
            sql`select t.id, t.${sql.raw(q(column))} as p from ${sql.raw(q(spec.name))} t
              where ${sql.raw(scope)} and t.${sql.raw(q(column))} is not null
              ${key ? sql`and t.id > ${key[0]}` : sql``} order by t.id limit ${deps.batch ?? EXPORT_BATCH}`,
          );
          const lines: string[] = [];
          const seen = new Set<string>();
          for (const r of rows) {
            if (seen.has(r.p) || !deps.media.belongsTo(r.p, companyId)) continue;
            seen.add(r.p);
            const file = deps.media.fullPath(r.p);
            if (!(await stat(file).catch(() => null))?.isFile()) continue;
            lines.push(JSON.stringify({ path: r.p, ...(await hashFile(file)) }));
          }
          // A page of rows without files still moves the cursor on (an empty page would end the part).
          if (!lines.length && rows.length) lines.push('');
          return { lines, key: rows.length ? [rows.at(-1)!.id] : key };
        });
      }
  }

  /** The archive: manifest, tables, media index, media files; written to .part, then renamed. */
  async function archivePhase(id: number, companyId: number) {
    const tables: Manifest['tables'] = {};
    for (const spec of TABLES) {
      const file = join(workDir(id), `${spec.name}.jsonl`);
      const h = await hashFile(file);
      tables[spec.name] = { file: tableFile(spec.name), rows: await countLines(file), ...h };
    }
    // One index of the parts' (a table's media column each); blank lines (pages without files) left out.
    const cleanIndex = join(workDir(id), 'media-index.clean.jsonl');
    let mediaFiles = 0;
    let mediaBytes = 0;
    {
      const out = await open(cleanIndex, 'w');
      try {
        for (const spec of TABLES)
          for (const column of spec.media ?? [])
            for await (const line of readLines(mediaPartFile(id, `media:${spec.name}.${column}`))) {
              if (!line) continue;
              const entry = JSON.parse(line) as { bytes: number };
              mediaFiles++;
              mediaBytes += entry.bytes;
              await out.write(line + '\n');
            }
      } finally {
        await out.close();
      }
    }
    const [company] = await executeRows<{ name: string }>(
      db,
      sql`select name from companies where id = ${companyId}`,
    );
    const manifest: Manifest = {
      format: ARCHIVE_FORMAT,
      version: ARCHIVE_VERSION,
      source: { install: deps.install, app: APP_VERSION },
      company: { id: companyId, name: company?.name ?? '' },
      createdAt: clock.now().toISOString(),
      tables,
      media: { file: MEDIA_INDEX, files: mediaFiles, mediaBytes, ...(await hashFile(cleanIndex)) },
    };
    const partPath = `${archiveOf(id)}.part`;
    const out = await open(partPath, 'w');
    const at = clock.now();
    let size = 0;
    const write = async (b: Buffer | string) => {
      const buf = typeof b === 'string' ? Buffer.from(b) : b;
      await out.write(buf);
      size += buf.length;
    };
    const copy = async (name: string, file: string, bytes: number) => {
      await write(tarHeader(name, bytes, at));
      let copied = 0;
      for await (const c of createReadStream(file, { highWaterMark: 256 * 1024 })) {
        await write(c as Buffer);
        copied += (c as Buffer).length;
        await pace();
      }
      if (copied !== bytes) throw new Error(`${file} changed while it was archived`);
      await write(tarPadding(bytes));
    };
    try {
      const m = Buffer.from(JSON.stringify(manifest, null, 2));
      await write(tarHeader(MANIFEST, m.length, at));
      await write(m);
      await write(tarPadding(m.length));
      for (const spec of TABLES)
        await copy(tableFile(spec.name), join(workDir(id), `${spec.name}.jsonl`), tables[spec.name]!.bytes);
      await copy(MEDIA_INDEX, cleanIndex, manifest.media.bytes);
      for await (const line of readLines(cleanIndex)) {
        if (!line) continue;
        const e = JSON.parse(line) as { path: string; bytes: number };
        await copy(`media/files/${e.path}`, deps.media.fullPath(e.path), e.bytes);
      }
      await write(TAR_END);
    } finally {
      await out.close();
    }
    await rename(partPath, archiveOf(id));
    return size;
  }

  async function run(exportId: number, lastAttempt = false) {
    const [row] = await db
      .update(companyExports)
      .set({ status: 'running', updatedAt: clock.now() })
      .where(and(eq(companyExports.id, exportId), inArray(companyExports.status, ['queued', 'running'])))
      .returning();
    if (!row) return; // done, failed or expired: nothing to do
    const progress = (row.progress ?? {}) as ExportProgress;
    try {
      await mkdir(workDir(exportId), { recursive: true });
      progress.phase = 'tables';
      await tablesPhase(exportId, row.companyId, progress);
      progress.phase = 'media';
      await mediaPhase(exportId, row.companyId, progress);
      progress.phase = 'archive';
      await setProgress(exportId, progress);
      const size = await archivePhase(exportId, row.companyId);
      progress.phase = 'done';
      const now = clock.now();
      await db
        .update(companyExports)
        .set({
          status: 'done',
          progress,
          size,
          finishedAt: now,
          expiresAt: new Date(now.getTime() + ARCHIVE_TTL_MS),
          updatedAt: now,
        })
        .where(eq(companyExports.id, exportId));
      await rm(workDir(exportId), { recursive: true, force: true });
    } catch (err) {
      if (lastAttempt) {
        await db
          .update(companyExports)
          .set({ status: 'failed', error: (err as Error).message.slice(0, 500), updatedAt: clock.now() })
          .where(eq(companyExports.id, exportId));
        await rm(workDir(exportId), { recursive: true, force: true });
      }
      throw err;
    }
  }

  const MAX_ATTEMPTS = 5;
  const exportJob = defineJob({
    kind: 'company-export.run',
    payload: z.object({ exportId: z.number().int() }),
    handler: (job) => run(job.payload.exportId, job.attempts >= MAX_ATTEMPTS),
    // A lane of its own: a long export never holds back the other jobs.
    // A short lease: after a crash another process (or the restarted one) takes the export over within 15 s.
    options: { concurrency: 1, maxAttempts: MAX_ATTEMPTS, retryDelayMs: 2000, leaseMs: 15_000 },
  });

  /** Removes archives past their expiry (the rows stay, marked expired). */
  const sweepJob = defineJob({
    kind: 'company-export.sweep',
    payload: z.object({}),
    handler: async () => {
      const old = await db
        .update(companyExports)
        .set({ status: 'expired', updatedAt: clock.now() })
        .where(and(eq(companyExports.status, 'done'), lt(companyExports.expiresAt, clock.now())))
        .returning({ id: companyExports.id });
      for (const r of old) await rm(archiveOf(r.id), { force: true });
    },
    options: { every: 3600_000 },
  });

  return {
    jobs: { exportJob, sweepJob },
    run,

    /** Starts an export of the caller's company (the super user names any company). */
    async start(t: Tenant, input: { companyId?: number }) {
      const companyId = input.companyId ?? t.companyId;
      if (companyId !== t.companyId && !t.super) throw new AppError('ERR_NO_PERMISSION', 403);
      const [c] = await executeRows(db, sql`select id from companies where id = ${companyId}`);
      if (!c) throw new AppError('ERR_NO_COMPANY_FOUND', 404);
      const row = await db.transaction(async (tx) => {
        const [r] = await tx
          .insert(companyExports)
          .values({ companyId, requestedBy: t.userId, progress: { tablesTotal: TABLES.length } })
          .returning();
        await deps.jobs.schedule(
          exportJob,
          { key: `export:${r!.id}`, payload: { exportId: r!.id }, companyId },
          tx,
        );
        return r!;
      });
      return toAnswer(row);
    },

    async get(t: Tenant, id: number) {
      return toAnswer(await load(t, id));
    },

    async list(t: Tenant) {
      const rows = await db
        .select()
        .from(companyExports)
        .where(eq(companyExports.companyId, t.companyId))
        .orderBy(sql`${companyExports.id} desc`)
        .limit(20);
      return rows.map(toAnswer);
    },

    /** The finished archive's file (404 until done and after expiry). */
    async archive(t: Tenant, id: number) {
      const r = await load(t, id);
      if (r.status !== 'done') throw new AppError('ERR_NOT_FOUND', 404, 'the archive is not ready');
      const path = archiveOf(id);
      const s = await stat(path).catch(() => null);
      if (!s) throw new AppError('ERR_NOT_FOUND', 404);
      const day = r.createdAt.toISOString().slice(0, 10);
      return { path, size: s.size, filename: `recado-company-${r.companyId}-${day}-${id}.tar` };
    },
  };
}
export type CompanyExportService = ReturnType<typeof companyExportService>;

/** Lines of a text file, streamed. */
async function* readLines(path: string) {
  for await (const { line } of linesOf(createReadStream(path, { highWaterMark: 256 * 1024 }))) yield line;
}

async function countLines(path: string) {
  let n = 0;
  for await (const c of createReadStream(path, { highWaterMark: 256 * 1024 })) {
    const b = c as Buffer;
    for (let i = b.indexOf(10); i >= 0; i = b.indexOf(10, i + 1)) n++;
  }
  return n;
}
