import { extname } from 'node:path';
import type { FastifyRequest } from 'fastify';
import { MIME_BY_EXTENSION } from '@recado/contracts';
import { truncate } from '../lib/text.js';
import { AppError } from './errors.js';

/**
 * The one reader of multipart uploads (docs/uploads.md). Every upload route reads its body here, so every
 * one answers the same way: a body that is not multipart or cannot be parsed (no boundary, a part cut
 * short) is 400 ERR_UPLOAD_MALFORMED, a file past the route's size 413 ERR_FILE_TOO_LARGE, more files than
 * allowed or no file 400 ERR_VALIDATION, a refused kind 400 ERR_FILE_TYPE_NOT_ALLOWED.
 */

/** The largest upload any route takes (WhatsApp's media limit); the multipart plugin's global cap. */
export const MAX_UPLOAD_BYTES = 16 * 1024 * 1024;
/** Form fields: at most this many, each at most this long (longer is refused, never cut). */
const MAX_FIELDS = 20;
const MAX_FIELD_CHARS = 20_000;

export interface UploadedFile {
  /** The form field it came in. */
  field: string;
  /** Cleaned: no path separators, at most 200 characters, never empty. */
  filename: string;
  mimetype: string;
  data: Buffer;
}

export const extensionOf = (filename: string) => extname(filename).slice(1).toLowerCase();

/** The content type a stored file is served and sent with, from its name (one table: MIME_BY_EXTENSION). */
export const mimeOf = (filename: string, fallback = 'application/octet-stream') =>
  MIME_BY_EXTENSION[extname(filename).toLowerCase()] ?? fallback;

/** What a WhatsApp message can carry: images, audio, video, documents (application/*), plain text and CSV. */
export const MESSAGE_MEDIA = /^(image|audio|video)\/[\w.+-]+$|^application\/[\w.+-]+$|^text\/(plain|csv)$/;

export interface UploadOptions {
  /** Per file. */
  maxBytes: number;
  /** Default 1. */
  maxFiles?: number;
  /** At least one file (default true). */
  requireFile?: boolean;
  /** Decides on each file's kind (its declared type and cleaned name); false is ERR_FILE_TYPE_NOT_ALLOWED. */
  accept?: (file: { mimetype: string; filename: string }) => boolean;
}

export async function readUpload(
  req: FastifyRequest,
  opts: UploadOptions,
): Promise<{ files: UploadedFile[]; fields: Record<string, string> }> {
  if (!req.isMultipart())
    throw new AppError('ERR_VALIDATION', 400, 'multipart/form-data with a file expected');
  const maxFiles = opts.maxFiles ?? 1;
  const files: UploadedFile[] = [];
  const fields: Record<string, string> = {};
  try {
    const parts = req.parts({
      limits: {
        fileSize: Math.min(opts.maxBytes, MAX_UPLOAD_BYTES),
        files: maxFiles,
        fields: MAX_FIELDS,
        fieldSize: MAX_FIELD_CHARS * 4,
      },
    });
    for await (const part of parts) {
      if (part.type === 'file') {
        const data = await part.toBuffer();
        if (part.file.truncated) throw tooLarge(opts.maxBytes);
        const filename = truncate((part.filename || 'file').replace(/[\\/\0]/g, '_'), 200) || 'file';
        if (opts.accept && !opts.accept({ mimetype: part.mimetype, filename }))
          throw new AppError('ERR_FILE_TYPE_NOT_ALLOWED', 400, `${part.mimetype} (${filename}) not allowed`);
        files.push({ field: part.fieldname, filename, mimetype: part.mimetype, data });
      } else {
        const value = String(part.value);
        if (part.valueTruncated || value.length > MAX_FIELD_CHARS)
          throw new AppError('ERR_VALIDATION', 400, `${truncate(part.fieldname, 50)}: too long`);
        fields[part.fieldname] = value;
      }
    }
  } catch (err) {
    throw uploadError(err, opts.maxBytes);
  }
  if ((opts.requireFile ?? true) && !files.some((f) => f.data.length))
    throw new AppError('ERR_VALIDATION', 400, 'file expected');
  return { files, fields };
}

/** The one file of a single-file upload. */
export async function readOneFile(
  req: FastifyRequest,
  opts: Omit<UploadOptions, 'maxFiles' | 'requireFile'>,
) {
  const { files, fields } = await readUpload(req, { ...opts, maxFiles: 1 });
  return { file: files[0]!, fields };
}

const malformed = (why: string) => new AppError('ERR_UPLOAD_MALFORMED', 400, why);

const tooLarge = (maxBytes: number) =>
  new AppError('ERR_FILE_TOO_LARGE', 413, `Files up to ${Math.round(maxBytes / 1024 / 1024)} MB`);

/** Maps what the multipart parser throws; nothing the client sent becomes a 500. */
function uploadError(err: unknown, maxBytes: number): AppError {
  if (err instanceof AppError) return err;
  const code = (err as { code?: string }).code;
  if (code === 'FST_REQ_FILE_TOO_LARGE') return tooLarge(maxBytes);
  if (code === 'FST_FILES_LIMIT') return new AppError('ERR_VALIDATION', 400, 'too many files');
  if (code === 'FST_FIELDS_LIMIT' || code === 'FST_PARTS_LIMIT')
    return new AppError('ERR_VALIDATION', 400, 'too many fields');
  // busboy's "Boundary not found", "Unexpected end of form", "Part terminated early", "Malformed part
  // header", and the plugin's invalid content type: the body is not a readable multipart form.
  const message = err instanceof Error ? err.message : String(err);
  return malformed(truncate(message, 200));
}
