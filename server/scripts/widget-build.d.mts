// Types of server/scripts/widget-build.mjs for widget-script.ts.
export const WIDGET_BUILD: {
  bundle: true;
  minify: true;
  format: 'iife';
  target: 'es2018';
  platform: 'browser';
  legalComments: 'none';
};
