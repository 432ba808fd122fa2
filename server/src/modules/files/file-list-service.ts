import { extname } from 'node:path';
import { and, asc, eq, inArray, notInArray, sql } from 'drizzle-orm';
import {
  FILE_LIST_TYPES,
  MAX_FILE_LIST_OPTIONS,
  PAGE_SIZE,
  type FileList,
  type FileListEvent,
  type FileListInputParsed,
  type FileListPage,
  type FileListQuery,
  type FileListUpdate,
  type FileOption,
} from '@recado/contracts';
import type { Db, Tx } from '../../db/client.js';
import { files, filesOptions } from '../../db/schema/index.js';
import { AppError } from '../../http/errors.js';
import type { Tenant } from '../../http/tenant.js';
import { containsText } from '../../lib/sql.js';
import type { MediaStore } from '../../messaging/media-store.js';
import type { Events } from '../../realtime/events.js';
import { truncate } from '../../lib/text.js';

type FileRow = typeof files.$inferSelect;
type OptionRow = typeof filesOptions.$inferSelect;

const optionView = (r: OptionRow): FileOption => ({
  id: r.id,
  fileId: r.fileId,
  name: r.name,
  path: r.path,
  mediaType: r.mediaType,
  file: r.fileName,
});

const view = (r: FileRow, options: OptionRow[]): FileList => ({
  id: r.id,
  name: r.name,
  message: r.message,
  userId: r.userId,
  options: options.map(optionView),
  createdAt: r.createdAt.toISOString(),
  updatedAt: r.updatedAt.toISOString(),
});

/** The MIME type a file list stores for this file name, or null when the kind is not allowed. */
export const fileListType = (filename: string): string | null =>
  FILE_LIST_TYPES[extname(filename).toLowerCase()] ?? null;

/**
 * File lists (docs/campaigns.md): a message and named options, each holding one uploaded file in the media
 * store (DATA_DIR/media/{companyId}/file-lists/…). Files of removed options are deleted after the commit.
 */
export function fileListService({ db, events, media }: { db: Db; events: Events; media: MediaStore }) {
  const emit = (companyId: number, payload: FileListEvent) => events.toCompany(companyId, 'file', payload);

  async function optionsOf(fileIds: number[]): Promise<Map<number, OptionRow[]>> {
    const out = new Map<number, OptionRow[]>();
    if (!fileIds.length) return out;
    const rows = await db
      .select()
      .from(filesOptions)
      .where(inArray(filesOptions.fileId, fileIds))
      .orderBy(asc(filesOptions.id));
    for (const r of rows) out.set(r.fileId, [...(out.get(r.fileId) ?? []), r]);
    return out;
  }

  async function load(companyId: number, id: number): Promise<FileList> {
    const [r] = await db
      .select()
      .from(files)
      .where(and(eq(files.id, id), eq(files.companyId, companyId)));
    if (!r) throw new AppError('ERR_NO_FILE_FOUND', 404);
    return view(r, (await optionsOf([id])).get(id) ?? []);
  }

  /** Makes the list's options what was sent: kept by id (renamed), added without one, the rest removed. */
  async function syncOptions(
    tx: Tx,
    companyId: number,
    fileId: number,
    wanted: FileListInputParsed['options'],
  ): Promise<string[]> {
    const current = await tx.select().from(filesOptions).where(eq(filesOptions.fileId, fileId));
    const known = new Set(current.map((o) => o.id));
    for (const o of wanted)
      if (o.id !== undefined && !known.has(o.id))
        throw new AppError('ERR_VALIDATION', 400, `option ${o.id} is not in this list`);
    const keep = wanted.flatMap((o) => (o.id !== undefined ? [o.id] : []));
    const removed = await tx
      .delete(filesOptions)
      .where(
        and(eq(filesOptions.fileId, fileId), keep.length ? notInArray(filesOptions.id, keep) : undefined),
      )
      .returning({ path: filesOptions.path });
    for (const o of wanted)
      if (o.id !== undefined)
        await tx
          .update(filesOptions)
          .set({ name: o.name, updatedAt: new Date() })
          .where(and(eq(filesOptions.id, o.id), eq(filesOptions.fileId, fileId)));
    const added = wanted.filter((o) => o.id === undefined);
    if (added.length)
      await tx.insert(filesOptions).values(added.map((o) => ({ companyId, fileId, name: o.name })));
    return removed.map((r) => r.path).filter(Boolean);
  }

  return {
    /** GET /files: by name, searched by name; { files, hasMore }. */
    async list(t: Tenant, q: FileListQuery): Promise<FileListPage> {
      const rows = await db
        .select()
        .from(files)
        .where(
          and(
            eq(files.companyId, t.companyId),
            q.searchParam ? containsText(files.name, q.searchParam) : undefined,
          ),
        )
        .orderBy(sql`lower(${files.name})`, asc(files.id))
        .limit(PAGE_SIZE + 1)
        .offset((q.pageNumber - 1) * PAGE_SIZE);
      const page = rows.slice(0, PAGE_SIZE);
      const options = await optionsOf(page.map((r) => r.id));
      return { files: page.map((r) => view(r, options.get(r.id) ?? [])), hasMore: rows.length > PAGE_SIZE };
    },

    /** GET /files/list: every list of the company by name (the campaign dialog's picker). */
    async listAll(t: Tenant): Promise<FileList[]> {
      const rows = await db
        .select()
        .from(files)
        .where(eq(files.companyId, t.companyId))
        .orderBy(sql`lower(${files.name})`, asc(files.id));
      const options = await optionsOf(rows.map((r) => r.id));
      return rows.map((r) => view(r, options.get(r.id) ?? []));
    },

    get: (t: Tenant, id: number) => load(t.companyId, id),

    async create(t: Tenant, input: FileListInputParsed): Promise<FileList> {
      const id = await db.transaction(async (tx) => {
        const [r] = await tx
          .insert(files)
          .values({ companyId: t.companyId, name: input.name, message: input.message, userId: t.userId })
          .returning({ id: files.id });
        await syncOptions(tx, t.companyId, r!.id, input.options);
        return r!.id;
      });
      const fileList = await load(t.companyId, id);
      emit(t.companyId, { action: 'create', fileList });
      return fileList;
    },

    async update(t: Tenant, id: number, input: FileListUpdate): Promise<FileList> {
      const removedPaths = await db.transaction(async (tx) => {
        const [r] = await tx
          .update(files)
          .set({ name: input.name, message: input.message, updatedAt: new Date() })
          .where(and(eq(files.id, id), eq(files.companyId, t.companyId)))
          .returning({ id: files.id });
        if (!r) throw new AppError('ERR_NO_FILE_FOUND', 404);
        return input.options ? syncOptions(tx, t.companyId, id, input.options) : [];
      });
      for (const p of removedPaths) await media.remove(p);
      const fileList = await load(t.companyId, id);
      emit(t.companyId, { action: 'update', fileList });
      return fileList;
    },

    async remove(t: Tenant, id: number) {
      const paths = await db.transaction(async (tx) => {
        const opts = await tx
          .select({ path: filesOptions.path })
          .from(filesOptions)
          .where(and(eq(filesOptions.fileId, id), eq(filesOptions.companyId, t.companyId)));
        const [gone] = await tx
          .delete(files)
          .where(and(eq(files.id, id), eq(files.companyId, t.companyId)))
          .returning({ id: files.id });
        if (!gone) throw new AppError('ERR_NO_FILE_FOUND', 404);
        return opts.map((o) => o.path).filter(Boolean);
      });
      for (const p of paths) await media.remove(p);
      emit(t.companyId, { action: 'delete', fileId: id });
      return { message: 'File list deleted' };
    },

    /**
     * POST /files/uploadList/{id}: stores one file in an option of the list (`optionId`, or the spec's
     * `id`), or in a new option named `name` when none is named. The kind comes from the file's extension
     * (FILE_LIST_TYPES); the option's previous file is deleted.
     */
    async upload(
      t: Tenant,
      id: number,
      file: { filename: string; data: Buffer },
      target: { optionId?: number; name?: string },
    ): Promise<FileList> {
      const list = await load(t.companyId, id);
      const mediaType = fileListType(file.filename);
      if (!mediaType)
        throw new AppError('ERR_FILE_TYPE_NOT_ALLOWED', 400, `${file.filename}: type not allowed`);
      const option = target.optionId ? list.options.find((o) => o.id === target.optionId) : undefined;
      if (target.optionId && !option) throw new AppError('ERR_VALIDATION', 400, 'option not in this list');
      if (!option && list.options.length >= MAX_FILE_LIST_OPTIONS)
        throw new AppError('ERR_VALIDATION', 400, `At most ${MAX_FILE_LIST_OPTIONS} options`);
      const path = await media.save(t.companyId, file.data, file.filename, 'file-lists');
      const fileName = truncate(file.filename.replace(/[\\/]/g, '_'), 200);
      try {
        if (option)
          await db
            .update(filesOptions)
            .set({ path, mediaType, fileName, updatedAt: new Date() })
            .where(and(eq(filesOptions.id, option.id), eq(filesOptions.companyId, t.companyId)));
        else
          await db.insert(filesOptions).values({
            companyId: t.companyId,
            fileId: id,
            name: truncate(target.name?.trim() || fileName, 100),
            path,
            mediaType,
            fileName,
          });
      } catch (err) {
        await media.remove(path);
        throw err;
      }
      if (option?.path) await media.remove(option.path);
      await db.update(files).set({ updatedAt: new Date() }).where(eq(files.id, id));
      const fileList = await load(t.companyId, id);
      emit(t.companyId, { action: 'update', fileList });
      return fileList;
    },

    /** The stored file of one option of the company (for viewing and download). */
    async optionFile(t: Tenant, optionId: number) {
      const [o] = await db
        .select()
        .from(filesOptions)
        .where(and(eq(filesOptions.id, optionId), eq(filesOptions.companyId, t.companyId)));
      if (!o || !o.path || !media.belongsTo(o.path, t.companyId))
        throw new AppError('ERR_NO_FILE_FOUND', 404);
      return { data: await media.read(o.path), mediaType: o.mediaType, fileName: o.fileName || 'file' };
    },
  };
}
export type FileListService = ReturnType<typeof fileListService>;
