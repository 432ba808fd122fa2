import type { FastifyRequest } from 'fastify';
import { AppError } from '../../http/errors.js';

export interface UploadedFile {
  filename: string;
  mimetype: string;
  data: Buffer;
}

/**
 * The files and fields of a multipart request, each file at most `maxBytes`. A request that is not
 * multipart, or a file past the limit, is refused (ERR_VALIDATION 400, ERR_FILE_TOO_LARGE 413).
 */
export async function readMultipart(
  req: FastifyRequest,
  opts: { maxBytes: number; maxFiles?: number },
): Promise<{ files: (UploadedFile & { field: string })[]; fields: Record<string, string> }> {
  if (!req.isMultipart()) throw new AppError('ERR_VALIDATION', 400, 'multipart/form-data expected');
  const files: (UploadedFile & { field: string })[] = [];
  const fields: Record<string, string> = {};
  try {
    for await (const part of req.parts({ limits: { fileSize: opts.maxBytes, files: opts.maxFiles ?? 1 } })) {
      if (part.type === 'file') {
        const data = await part.toBuffer();
        if (part.file.truncated) throw tooLarge(opts.maxBytes);
        files.push({
          field: part.fieldname,
          filename: part.filename.slice(0, 200) || 'file',
          mimetype: part.mimetype,
          data,
        });
      } else fields[part.fieldname] = String(part.value).slice(0, 2000);
    }
  } catch (err) {
    if (err instanceof AppError) throw err;
    const code = (err as { code?: string }).code;
    if (code === 'FST_REQ_FILE_TOO_LARGE') throw tooLarge(opts.maxBytes);
    if (code === 'FST_FILES_LIMIT') throw new AppError('ERR_VALIDATION', 400, 'too many files');
    throw err;
  }
  return { files, fields };
}

const tooLarge = (maxBytes: number) =>
  new AppError('ERR_FILE_TOO_LARGE', 413, `Files up to ${Math.round(maxBytes / 1024 / 1024)} MB`);
