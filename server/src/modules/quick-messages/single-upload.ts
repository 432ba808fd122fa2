import type { FastifyRequest } from 'fastify';
import { AppError } from '../../http/errors.js';
import { MAX_UPLOAD_BYTES } from '../messages/message-routes.js';
import type { UploadedFile } from './quick-message-service.js';

const TYPES: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  mp3: 'audio/mpeg',
  ogg: 'audio/ogg',
  opus: 'audio/ogg',
  m4a: 'audio/mp4',
  wav: 'audio/wav',
  mp4: 'video/mp4',
  pdf: 'application/pdf',
  txt: 'text/plain',
  csv: 'text/csv',
};

export const extensionOf = (filename: string) => filename.split('.').pop()?.toLowerCase() ?? '';

/** The content type a stored attachment is served and sent with, from its name. */
export const mimeOf = (filename: string) => TYPES[extensionOf(filename)] ?? 'application/octet-stream';

/**
 * Reads the one file of a multipart upload (field `file`; other fields such as typeArch are ignored).
 * `accept` decides on the type and name; a missing file, a refused type or an oversized file is a 400/413.
 */
export async function readSingleUpload(
  req: FastifyRequest,
  accept: (mimetype: string, filename: string) => boolean,
): Promise<UploadedFile> {
  if (!req.isMultipart())
    throw new AppError('ERR_VALIDATION', 400, 'multipart/form-data with a file expected');
  let file: UploadedFile | undefined;
  for await (const part of req.parts({ limits: { fileSize: MAX_UPLOAD_BYTES, files: 1 } })) {
    if (part.type !== 'file') continue;
    const data = await part.toBuffer();
    if (part.file.truncated) throw new AppError('ERR_VALIDATION', 413, 'file too large');
    const filename = (part.filename || 'file').replace(/[\\/]/g, '_').slice(0, 200);
    if (!accept(part.mimetype, filename))
      throw new AppError('ERR_VALIDATION', 400, `file type ${part.mimetype} not allowed`);
    file = { mimetype: part.mimetype, filename, data };
  }
  if (!file || !file.data.length) throw new AppError('ERR_VALIDATION', 400, 'no file');
  return file;
}
