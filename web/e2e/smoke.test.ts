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

test('the web client is served by the API process', async () => {
  const page = await newPage(browser);
  await page.goto('/');
  assert.equal(await page.title(), 'Recado');
  // The login screen renders (its chunk loads after the shell).
  await page.locator('#root').getByText('Recado').first().waitFor();
});

test('the app runs under its Content-Security-Policy: no violation, the socket upgrades to WebSocket', async () => {
  const page = await newPage(browser);
  const violations: string[] = [];
  page.on('console', (m) => {
    if (/Content Security Policy/i.test(m.text())) violations.push(m.text());
  });
  // Resolves on the first frame the server sends over a WebSocket (not long-polling).
  const socketFrame = new Promise<void>((resolve) => {
    page.on('websocket', (ws) => {
      if (ws.url().includes('/socket.io/')) ws.on('framereceived', () => resolve());
    });
  });
  const first = await page.goto('/login');
  const csp = first?.headers()['content-security-policy'] ?? '';
  assert.match(csp, /script-src 'self'/);
  assert.match(csp, /frame-ancestors 'none'/);
  // Signs in through the API and hands the token to the client (as tickets.test.ts does).
  const res = await page.request.post('/api/auth/login', { data: DEMO_ADMIN });
  assert.equal(res.status(), 200, await res.text());
  const { token, user } = (await res.json()) as { token: string; user: { id: number; companyId: number } };
  await page.evaluate(
    ({ token, user }) => {
      localStorage.setItem('token', JSON.stringify(token));
      localStorage.setItem('companyId', String(user.companyId));
      localStorage.setItem('userId', String(user.id));
    },
    { token, user },
  );
  await page.goto('/tickets');
  await page.waitForFunction(() => document.querySelectorAll('#root *').length > 20);
  await Promise.race([
    socketFrame,
    new Promise((_, reject) => setTimeout(() => reject(new Error('no frame over a WebSocket')), 15_000)),
  ]);
  assert.deepEqual(violations, []);
});
