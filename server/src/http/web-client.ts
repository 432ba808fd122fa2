import { join, resolve, sep } from 'node:path';
import type { FastifyStaticOptions } from '@fastify/static';

/** Vite writes content-hashed file names here: a new build gets new names, so a copy never goes stale. */
const HASHED_DIR = 'assets';
export const IMMUTABLE = 'public, max-age=31536000, immutable';

/**
 * How the built web client is served: the `.br`/`.gz` copies written at build time (web/build/precompress.ts)
 * are chosen by Accept-Encoding, hashed assets are cached for a year, and everything else (index.html,
 * favicon) is revalidated on every load so a new deploy is picked up at once.
 */
export function webClientOptions(root: string): FastifyStaticOptions {
  const hashed = join(resolve(root), HASHED_DIR) + sep;
  return {
    root,
    wildcard: false,
    preCompressed: true,
    // The compressed copies are not routes of their own; they are found beside the file they encode.
    globIgnore: ['**/*.br', '**/*.gz'],
    cacheControl: false,
    setHeaders(res, path) {
      res.setHeader('cache-control', path.startsWith(hashed) ? IMMUTABLE : 'no-cache');
      res.setHeader('vary', 'Accept-Encoding');
    },
  };
}
