import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The server package's folder (the one holding `drizzle/`), found by walking up from this module: the same
 * answer from the TypeScript sources (server/src/lib) and from the compiled bundle (server/dist).
 */
export const SERVER_ROOT = ((): string => {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(join(dir, 'drizzle', 'meta', '_journal.json'))) return dir;
    const up = dirname(dir);
    if (up === dir) throw new Error('server folder with drizzle/ migrations not found');
    dir = up;
  }
})();
