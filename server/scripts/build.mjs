// npm run build -w server: the server (with @recado/contracts) compiled to JavaScript in server/dist, run by
// plain `node server/dist/main.js`. npm packages stay outside the bundle (node_modules at run time); the
// spreadsheet parser's worker thread is its own entry beside main.js (spreadsheet.ts starts ./spreadsheet-worker.js).
import { build } from 'esbuild';
import { WIDGET_BUILD } from './widget-build.mjs';
import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const server = fileURLToPath(new URL('..', import.meta.url));
const started = Date.now();
rmSync(`${server}/dist`, { recursive: true, force: true });

/** Every bare import is an npm package left to node_modules, except our own contracts, compiled in. */
const externalPackages = {
  name: 'external-packages',
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, (args) =>
      args.path === '@recado/contracts' || args.path.startsWith('@recado/contracts/')
        ? undefined
        : { path: args.path, external: true },
    );
  },
};

await build({
  absWorkingDir: server,
  entryPoints: {
    main: 'src/main.ts',
    'spreadsheet-worker': 'src/modules/contact-lists/spreadsheet-worker.ts',
  },
  outdir: 'dist',
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  sourcemap: true,
  legalComments: 'none',
  logLevel: 'warning',
  plugins: [externalPackages],
  // Bundled CommonJS helpers may call require(): give the ES module one.
  banner: {
    js: "import { createRequire as __recadoRequire } from 'node:module'; const require = __recadoRequire(import.meta.url);",
  },
});
// #34.1 The website chat widget (GET /widget.js), a browser script beside main.js (widget-script.ts).
await build({
  ...WIDGET_BUILD,
  absWorkingDir: server,
  entryPoints: ['../web/src/widget/widget.ts'],
  outfile: 'dist/widget.js',
  logLevel: 'warning',
});
console.log(`server/dist built in ${Date.now() - started} ms`);
