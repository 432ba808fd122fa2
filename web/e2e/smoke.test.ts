import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { launch, newPage } from './browser.js';

let browser: Browser;
before(async () => {
  browser = await launch();
});
after(async () => {
  await browser.close();
});

test('the web client is served by the API process', async () => {
  const page = await newPage(browser);
  await page.goto('/');
  assert.equal(await page.title(), 'Recado');
  // The login screen renders (its chunk loads after the shell).
  await page.locator('#root').getByText('Recado').first().waitFor();
});
