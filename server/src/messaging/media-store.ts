import { randomUUID } from 'node:crypto';
import { mkdir, readFile, unlink, writeFile } from 'node:fs/promises';
import { dirname, extname, join, normalize, sep } from 'node:path';

/**
 * Media files on disk under DATA_DIR/media/{companyId}/…; the database keeps the relative path. Paths
 * always start with the company id, so serving a file checks its company before anything else.
 */
export function mediaStore(dataDir: string) {
  const root = join(dataDir, 'media');
  const resolve = (relative: string) => {
    const full = normalize(join(root, relative));
    if (!full.startsWith(root + sep)) throw new Error('path escapes the media store');
    return full;
  };
  return {
    root,
    async save(companyId: number, data: Buffer, filename: string, folder = 'messages'): Promise<string> {
      const ext = extname(filename)
        .replace(/[^.\w]/g, '')
        .slice(0, 10);
      const relative = `${companyId}/${folder}/${new Date().toISOString().slice(0, 7)}/${randomUUID()}${ext}`;
      const full = resolve(relative);
      await mkdir(dirname(full), { recursive: true });
      await writeFile(full, data);
      return relative;
    },
    read: (relative: string) => readFile(resolve(relative)),
    fullPath: resolve,
    /** True when the stored path belongs to the company. */
    belongsTo: (relative: string, companyId: number) => relative.split('/')[0] === String(companyId),
    async remove(relative: string) {
      await unlink(resolve(relative)).catch(() => undefined);
    },
  };
}
export type MediaStore = ReturnType<typeof mediaStore>;
