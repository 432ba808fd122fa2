import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { launch, newPage, screenshot } from './browser.js';

let browser: Browser;
before(async () => {
  browser = await launch();
});
after(async () => {
  await browser.close();
});

for (const path of ['/api/docs', '/api/docs/']) {
  test(`the API reference at ${path} renders its operations`, async () => {
    const page = await newPage(browser);
    try {
      // Every file the page loads is what it claims to be: a script answered with the SPA's HTML is refused.
      const refused: string[] = [];
      page.on('console', (m) => {
        if (m.type() === 'error') refused.push(m.text());
      });
      page.on('response', (r) => {
        const type = r.request().resourceType();
        const mime = r.headers()['content-type'] ?? '';
        if ((type === 'script' || type === 'stylesheet') && mime.startsWith('text/html'))
          refused.push(`${r.url()} answered ${mime}`);
      });
      await page.goto(path);
      await page.getByRole('heading', { name: /Recado API/ }).waitFor();
      // The external send is there, with its request body.
      const send = page.locator('#operations-messages-postMessagesSend');
      await send.waitFor();
      assert.ok((await page.locator('.opblock').count()) > 100, 'the operations are listed');
      await send.locator('.opblock-summary').click();
      await send.getByText('Request body').waitFor();
      assert.deepEqual(refused, []);
      if (path === '/api/docs') {
        await screenshot(page, 'api-docs');
        await page.setViewportSize({ width: 500, height: 900 });
        await screenshot(page, 'api-docs-500');
      }
    } finally {
      await page.context().close();
    }
  });
}
