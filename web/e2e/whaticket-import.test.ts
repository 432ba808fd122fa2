import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { launch, newPage, screenshot, signInPage, SUPER_USER } from './browser.js';
import { whaticketFixture } from '../../server/test/whaticket-fixture.js';

// #35.5 The super user imports a Whaticket company from Settings and reads the report; a source without a
// table says which. Needs the local PostgreSQL (the Whaticket database lives there): skipped without one.
const PG = process.env.WHATICKET_TEST_PG ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const reachable = await (async () => {
  try {
    const { default: pg } = await import('pg');
    const c = new pg.Client({ connectionString: PG, connectionTimeoutMillis: 2000 });
    await c.connect();
    await c.end();
    return true;
  } catch {
    return false;
  }
})();

let browser: Browser;
const sources: { url: string; drop(): Promise<void> }[] = [];
before(async () => {
  browser = await launch();
});
after(async () => {
  await browser.close();
  for (const s of sources) await s.drop();
});

for (const dark of [false, true]) {
  test(
    `Settings → Import from Whaticket: report, then a source lacking a table (${dark ? 'dark' : 'light'})`,
    { skip: reachable ? false : 'no PostgreSQL on 127.0.0.1:5432 for the Whaticket database' },
    async () => {
      const source = await whaticketFixture(PG);
      sources.push(source);
      const broken = await whaticketFixture(PG, { omit: ['Messages'] });
      sources.push(broken);
      const page = await newPage(browser, { width: 1200, height: 900 });
      try {
        await signInPage(page, SUPER_USER, { preferredTheme: dark ? 'dark' : 'light' });
        await page.goto('/settings?tab=whaticket');
        await page.getByTestId('whaticket-from').fill(source.url);
        await page.getByTestId('whaticket-company').fill('1');
        await page.getByTestId('whaticket-run').click();
        const row = page.getByTestId('whaticket-row-Messages');
        await row.waitFor({ timeout: 60_000 });
        assert.match((await row.textContent()) ?? '', /Messages\s*55\s*0\s*0/);
        await page
          .getByTestId('whaticket-report')
          .getByText(/Importado na empresa|Imported into|Importado en la/)
          .waitFor();
        await screenshot(page, `whaticket-import-${dark ? 'dark' : 'light'}`);

        await page.getByTestId('whaticket-from').fill(broken.url);
        await page.getByTestId('whaticket-run').click();
        await page.getByTestId('whaticket-report').getByText('"Messages"', { exact: false }).waitFor();
      } finally {
        await page.close();
      }
    },
  );
}
