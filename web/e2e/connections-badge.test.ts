import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { DEMO_ADMIN, launch, newPage } from './browser.js';

let browser: Browser;
before(async () => {
  browser = await launch();
});
after(async () => {
  await browser.close();
});

test('the connections menu entry warns while a connection is down (evaluated 2 s after the change)', async () => {
  const page = await newPage(browser);
  try {
    await page.goto('/login');
    await page.locator('input[name="email"]').fill(DEMO_ADMIN.email);
    await page.locator('input[name="password"]').fill(DEMO_ADMIN.password);
    await page.getByTestId('login-submit').click();
    await page.getByTestId('greeting').waitFor();
    const token = await page.evaluate(() => JSON.parse(localStorage.getItem('token') ?? '""') as string);
    const headers = { authorization: `Bearer ${token}` };
    const created = await page.request.post('/api/whatsapp', {
      headers,
      data: { name: `Badge ${Date.now().toString(36)}`, channel: 'simulator' },
    });
    assert.equal(created.status(), 201);
    const { id } = (await created.json()) as { id: number };
    const badge = page.getByTestId('menu-connections-warning');
    await page.waitForTimeout(2500);
    assert.equal(await badge.count(), 0, 'no warning while every connection is CONNECTED');

    assert.ok((await page.request.delete(`/api/whatsappsession/${id}`, { headers })).ok());
    const changedAt = Date.now();
    await badge.waitFor({ timeout: 6000 });
    assert.ok(Date.now() - changedAt >= 1500, 'the badge waits about 2 s after the change');

    assert.ok((await page.request.post(`/api/whatsappsession/${id}`, { headers })).ok());
    await badge.waitFor({ state: 'detached', timeout: 6000 });
    await page.request.delete(`/api/whatsapp/${id}`, { headers });
  } finally {
    await page.context().close();
  }
});
