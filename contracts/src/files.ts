import { z } from 'zod';
import { Timestamp, type Wire } from './responses.js';
import { ListQuery } from './users.js';

const Id = z.coerce.number().int().positive().max(2_147_483_647);

/** POST /files/uploadList/{id}: one file per option, at most this size, of these kinds. */
export const MAX_FILE_LIST_UPLOAD_BYTES = 16 * 1024 * 1024;
export const MAX_FILE_LIST_OPTIONS = 20;
/**
 * Extension → MIME type: the product's one table of file kinds (what WhatsApp sends as media or documents).
 * Uploads are stored and served with the type their name gives here (server/src/http/uploads.ts).
 */
export const MIME_BY_EXTENSION: Record<string, string> = {
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.mp3': 'audio/mpeg',
  '.ogg': 'audio/ogg',
  '.opus': 'audio/ogg',
  '.m4a': 'audio/mp4',
  '.wav': 'audio/wav',
  '.mp4': 'video/mp4',
  '.3gp': 'video/3gpp',
  '.pdf': 'application/pdf',
  '.txt': 'text/plain',
  '.csv': 'text/csv',
  '.doc': 'application/msword',
  '.docx': 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  '.xls': 'application/vnd.ms-excel',
  '.xlsx': 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  '.ppt': 'application/vnd.ms-powerpoint',
  '.pptx': 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  '.zip': 'application/zip',
};
/** What a file list may hold: every kind of the table. */
export const FILE_LIST_TYPES = MIME_BY_EXTENSION;
/** The `accept` attribute of the upload input. */
export const FILE_LIST_ACCEPT = Object.keys(FILE_LIST_TYPES).join(',');

/** The kind a MIME type is sent as. */
export type FileMediaKind = 'image' | 'audio' | 'video' | 'document';
export const mediaKindOf = (mediaType: string): FileMediaKind =>
  mediaType.startsWith('image/')
    ? 'image'
    : mediaType.startsWith('audio/')
      ? 'audio'
      : mediaType.startsWith('video/')
        ? 'video'
        : 'document';

/** An option sent with the list: with an id it is kept (renamed), without one it is added; others go. */
export const FileOptionInput = z.object({
  id: Id.optional(),
  name: z.string().trim().min(1).max(100),
});
export type FileOptionInput = z.infer<typeof FileOptionInput>;

/** docs/campaigns.md: name required, at least 3 characters; message required. */
export const FileListInput = z.object({
  name: z.string().trim().min(3).max(100),
  message: z.string().trim().min(1).max(4000),
  options: z.array(FileOptionInput).max(MAX_FILE_LIST_OPTIONS).default([]),
});
export type FileListInput = z.input<typeof FileListInput>;
export type FileListInputParsed = z.infer<typeof FileListInput>;
/** PUT /files/{id}: what is sent changes; `options`, when sent, is the whole new list. */
export const FileListUpdate = FileListInput.partial();
export type FileListUpdate = z.infer<typeof FileListUpdate>;

export const FileListQuery = ListQuery;
export type FileListQuery = z.infer<typeof FileListQuery>;

export const FileOption = z
  .looseObject({
    id: z.number(),
    fileId: z.number(),
    name: z.string(),
    /** Media-store path of the uploaded file; '' until one is uploaded. */
    path: z.string(),
    /** MIME type of the uploaded file ('' until one is uploaded). */
    mediaType: z.string(),
    /** The file's own name as uploaded (the extension tells what it is). */
    file: z.string(),
  })
  .meta({ id: 'FileOption' });
export type FileOption = Wire<typeof FileOption>;

export const FileList = z
  .looseObject({
    id: z.number(),
    name: z.string(),
    message: z.string(),
    userId: z.number().nullable(),
    options: z.array(FileOption),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  })
  .meta({ id: 'FileList' });
export type FileList = Wire<typeof FileList>;

/** GET /files: { files, hasMore }. */
export const FileListPage = z
  .looseObject({
    files: z.array(FileList),
    hasMore: z.boolean(),
  })
  .meta({ id: 'FileListPage' });
export type FileListPage = Wire<typeof FileListPage>;

export type FileListEvent =
  { action: 'create' | 'update'; fileList: FileList } | { action: 'delete'; fileId: number };
