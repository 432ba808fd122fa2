import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { launch, newPage } from './browser.js';
import { LOGIN_JS_BUDGET, measureFirstLoad } from './first-load.js';

let browser: Browser;
before(async () => {
  browser = await launch();
});
after(async () => {
  await browser.close();
});

// A byte budget, not a timing: what the first visit to /login downloads (npm run bench:web prints the list).
test('/login downloads its JavaScript compressed and within the budget', async () => {
  const page = await newPage(browser);
  const load = await measureFirstLoad(page, '/login');
  assert.ok(load.files.length > 0, 'no JavaScript was seen');
  for (const f of load.files) assert.equal(f.encoding, 'br', `${f.name} was not sent with brotli`);
  assert.ok(
    load.transferred <= LOGIN_JS_BUDGET,
    `/login downloads ${load.transferred} bytes of compressed JavaScript (budget ${LOGIN_JS_BUDGET}): ` +
      load.files.map((f) => `${f.name} ${f.transferred}`).join(', '),
  );
  assert.ok(load.gzipped <= LOGIN_JS_BUDGET, `/login: ${load.gzipped} bytes of gzipped JavaScript`);
  // What only signed-in screens use stays out: the validation library and the chat/ticket screens.
  const names = load.files.map((f) => f.name).join(' ');
  assert.doesNotMatch(names, /MainLayout|TicketsPage|socket|exceljs/);
  const zod = load.files.filter((f) => f.source.includes('ZodError')).map((f) => f.name);
  assert.deepEqual(zod, [], 'zod (and the schemas of @recado/contracts) load on /login');
});
