import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import type { FastifyPluginAsync } from 'fastify';
import { FileAnswer } from '@recado/contracts';
import { access } from '../../../http/access.js';
import { WIDGET_BUILD } from '../../../../scripts/widget-build.mjs';

/** The widget's source (a browser script, typechecked with the web client). */
const SOURCE = fileURLToPath(new URL('../../../../../web/src/widget/widget.ts', import.meta.url));
/** `npm run build -w server` writes it beside main.js (server/scripts/build.mjs). */
const BUILT = fileURLToPath(new URL('./widget.js', import.meta.url));

let cached: Promise<{ js: Buffer; gz: Buffer }> | undefined;

/** The script: the built file when there is one, else built now from the source (development, tests). */
export function widgetScript() {
  cached ??= (async () => {
    let js: Buffer;
    if (existsSync(BUILT)) js = await readFile(BUILT);
    else {
      const { build } = await import('esbuild');
      const out = await build({ ...WIDGET_BUILD, entryPoints: [SOURCE], write: false, logLevel: 'silent' });
      js = Buffer.from(out.outputFiles[0]!.contents);
    }
    return { js, gz: gzipSync(js, { level: 9 }) };
  })();
  cached.catch(() => {
    cached = undefined;
  });
  return cached;
}

/**
 * GET /widget.js (outside /api): loaded by other sites' pages, so Cross-Origin-Resource-Policy lets them
 * (helmet's default is same-origin); compressed when the browser accepts it; cached for an hour.
 */
export const widgetScriptRoute: FastifyPluginAsync = async (app) => {
  app.get(
    '/widget.js',
    { config: access.public, schema: { response: { 200: FileAnswer } } },
    async (req, reply) => {
      const s = await widgetScript();
      void reply
        .header('content-type', 'text/javascript; charset=utf-8')
        .header('cross-origin-resource-policy', 'cross-origin')
        .header('access-control-allow-origin', '*')
        .header('cache-control', 'public, max-age=3600')
        .header('vary', 'Accept-Encoding');
      if (/\bgzip\b/.test(String(req.headers['accept-encoding'] ?? '')))
        return reply.header('content-encoding', 'gzip').send(s.gz);
      return reply.send(s.js);
    },
  );
};
