import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import type { Plugin } from 'vite';

const brotli = promisify(brotliCompress);
const gz = promisify(gzip);

/** Text formats worth compressing; images and fonts are compressed already. */
const COMPRESSIBLE = /\.(js|mjs|css|html|svg|json|txt|xml|map|wasm|ico|webmanifest)$/i;

/** Every compressible file under `dir` (recursively), skipping the compressed copies. */
async function files(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const nested = await Promise.all(
    entries.map((e) => {
      const p = join(dir, e.name);
      if (e.isDirectory()) return files(p);
      return Promise.resolve(COMPRESSIBLE.test(e.name) ? [p] : []);
    }),
  );
  return nested.flat();
}

/**
 * Writes `file.br` (brotli, best) and `file.gz` (gzip, best) beside every compressible file of the build,
 * when smaller than the original; the server sends them by Accept-Encoding (no compression per request).
 */
export async function precompressDir(dir: string): Promise<{ files: number; written: number }> {
  const list = await files(dir);
  let written = 0;
  await Promise.all(
    list.map(async (file) => {
      const raw = await readFile(file);
      const [br, gzipped] = await Promise.all([
        brotli(raw, {
          params: {
            // The best quality costs seconds on the rare very large chunks (lazy-loaded) for about 1% less.
            [constants.BROTLI_PARAM_QUALITY]: raw.length > 512 * 1024 ? 10 : constants.BROTLI_MAX_QUALITY,
            [constants.BROTLI_PARAM_SIZE_HINT]: raw.length,
          },
        }),
        gz(raw, { level: constants.Z_BEST_COMPRESSION }),
      ]);
      if (br.length < raw.length) {
        await writeFile(`${file}.br`, br);
        written++;
      }
      if (gzipped.length < raw.length) {
        await writeFile(`${file}.gz`, gzipped);
        written++;
      }
    }),
  );
  return { files: list.length, written };
}

/** Vite plugin: pre-compresses the finished build (output and public files) in place. */
export function precompress(): Plugin {
  let outDir = '';
  return {
    name: 'recado-precompress',
    apply: 'build',
    configResolved(config) {
      outDir = resolve(config.root, config.build.outDir);
    },
    async closeBundle(error?: Error) {
      if (error) return;
      const { files: n, written } = await precompressDir(outDir);
      this.info(`pre-compressed ${n} files (${written} .br/.gz written)`);
    },
  };
}
