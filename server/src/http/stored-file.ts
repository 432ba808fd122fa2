import type { FastifyReply } from 'fastify';

/** A file kept by Recado (media store or database), as a download route answers it. */
export interface StoredFile {
  filename: string;
  /** The content type it is served with (callers derive it with `mimeOf` or keep the stored one). */
  type: string;
  data: Buffer | Uint8Array | string;
}

/**
 * Answers a stored file for the browser to show in place (images, audio, PDF previews): its name in
 * `content-disposition: inline` (URL-encoded, so no header injection), a private cache for `maxAgeSeconds`
 * and nosniff (the type is ours, never the browser's guess). One place for the media routes of messages,
 * quick messages, schedules, files, announcements and the simulator.
 */
export function sendStoredFile(reply: FastifyReply, file: StoredFile, maxAgeSeconds: number) {
  return reply
    .header('content-disposition', `inline; filename="${encodeURIComponent(file.filename)}"`)
    .header('cache-control', `private, max-age=${maxAgeSeconds}`)
    .header('x-content-type-options', 'nosniff')
    .type(file.type)
    .send(file.data);
}
