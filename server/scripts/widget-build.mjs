// #34.1 How the website chat widget (GET /widget.js) is built: by `npm run build -w server` into
// server/dist/widget.js (build.mjs), and at the first request in development (widget-script.ts).
export const WIDGET_BUILD = {
  bundle: true,
  minify: true,
  format: 'iife',
  target: 'es2018',
  platform: 'browser',
  legalComments: 'none',
};
