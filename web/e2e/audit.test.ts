import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { COMPANY_ADMIN_PASSWORD, createCompany, launch, newPage, screenshot, signInPage } from './browser.js';

/**
 * #32.6 The audit log: an admin changes a setting on the settings screen, opens "Auditoria" from the admin
 * menu and finds the change with who, when, origin and its before/after; the CSV export downloads; the screen
 * holds at 500 px in the dark theme.
 */
let browser: Browser;
before(async () => {
  browser = await launch();
});
after(async () => {
  await browser.close();
});

const stamp = Date.now().toString(36);

async function choose(page: Page, label: RegExp, option: string) {
  await page.getByRole('combobox', { name: label }).click();
  await page.getByRole('option', { name: option, exact: true }).click();
  await page.getByRole('listbox').waitFor({ state: 'detached' });
}

test('an admin changes a setting and sees it in the audit log with before and after', async () => {
  const adminEmail = await createCompany('Auditada', 5, stamp);
  const page = await newPage(browser);
  page.on('pageerror', (err) => console.log('pageerror:', err.message));
  try {
    await signInPage(page, { email: adminEmail, password: COMPANY_ADMIN_PASSWORD });
    await page.goto('/settings');
    const saved = page.waitForResponse(
      (r) => r.url().endsWith('/api/settings/userRating') && r.request().method() === 'PUT',
    );
    await choose(page, /Avaliações/, 'Habilitadas');
    assert.equal((await saved).status(), 200);

    // The admin menu leads to the screen.
    await page.getByRole('link', { name: 'Auditoria' }).click();
    await page.waitForURL(/\/audit-log$/);
    const row = page.locator('[data-testid="audit-row"][data-action="settings.updated"]').first();
    await row.waitFor();
    assert.match((await row.textContent()) ?? '', new RegExp(adminEmail.replace(/[.@-]/g, '\\$&')));
    await row.getByTestId('audit-expand').click();
    const changes = page.getByTestId('audit-changes').first();
    await changes.locator('[data-key="userRating"]').waitFor();
    assert.equal(await changes.getByTestId('audit-before').first().textContent(), 'disabled');
    assert.equal(await changes.getByTestId('audit-after').first().textContent(), 'enabled');
    await screenshot(page, 'audit-log');

    // The action filter narrows the list to sign-ins (the admin's own), and back.
    await choose(page, /Ação/, 'Acessos');
    // The sign-in was listed before the filter too: the filtered list is the one without the setting's row.
    await page
      .locator('[data-testid="audit-row"][data-action="settings.updated"]')
      .first()
      .waitFor({ state: 'detached' });
    await page.locator('[data-testid="audit-row"][data-action="auth.login"]').first().waitFor();
    assert.equal(await page.locator('[data-testid="audit-row"][data-action="settings.updated"]').count(), 0);
    await choose(page, /Ação/, 'Todas as ações');

    // CSV export: a file named audit-<day>.csv whose header names the columns.
    const download = page.waitForEvent('download');
    await page.getByTestId('audit-export').click();
    const file = await download;
    assert.match(file.suggestedFilename(), /^audit-\d{4}-\d{2}-\d{2}\.csv$/);
  } catch (err) {
    await screenshot(page, `audit-failed-${Date.now()}`);
    console.log('url:', page.url(), (await page.locator('body').innerText()).slice(0, 600));
    throw err;
  } finally {
    await page.context().close();
  }
});

test('the audit log at 500 px in the dark theme', async () => {
  const adminEmail = await createCompany('Auditada2', 5, stamp);
  const page = await newPage(browser, { width: 500, height: 800 });
  page.on('pageerror', (err) => console.log('pageerror:', err.message));
  try {
    await signInPage(
      page,
      { email: adminEmail, password: COMPANY_ADMIN_PASSWORD },
      { preferredTheme: 'dark' },
    );
    await page.goto('/audit-log');
    await page.locator('[data-testid="audit-row"][data-action="auth.login"]').first().waitFor();
    // Nothing sticks out sideways.
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 1, `horizontal overflow ${overflow}px`);
    const bg = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    const [r, g, b] = (bg.match(/\d+/g) ?? []).map(Number);
    assert.ok((r ?? 255) + (g ?? 255) + (b ?? 255) < 200, `dark background, got ${bg}`);
    await screenshot(page, 'audit-log-500-dark');
  } catch (err) {
    await screenshot(page, `audit-failed-${Date.now()}`);
    console.log('url:', page.url(), (await page.locator('body').innerText()).slice(0, 600));
    throw err;
  } finally {
    await page.context().close();
  }
});
