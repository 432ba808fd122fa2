import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { COMPANY_ADMIN_PASSWORD, companyAdmin, fileBrowser, screenshot, signInPage } from './browser.js';

/**
 * #34.4 One inbox: each ticket row shows its channel's icon; the channel filter asks the server for the
 * tickets of the channels picked (WhatsApp simulator and website chat here); the dashboard's "Tickets per
 * channel" lists both and its channel filter narrows the figures. Light, dark and 500 px.
 */
const browser = fileBrowser();
const stamp = Date.now().toString(36);
let adminEmail = '';
let phone = 0;
let site = 0;

async function fixture() {
  const made = await companyAdmin('Canais', 5, stamp);
  adminEmail = made.email;
  const admin = made.admin;
  const sim = await admin.post<{ id: number }>('/whatsapp', { name: 'WhatsApp loja', channel: 'simulator' });
  const chat = await admin.post<{ id: number }>('/whatsapp', { name: 'Chat do site', channel: 'webchat' });
  const digits = stamp.replace(/\D/g, '7').slice(-6).padStart(6, '7');
  const c1 = await admin.post<{ id: number }>('/contacts', {
    name: 'Paula Telefone',
    number: `5511981${digits}`,
  });
  const c2 = await admin.post<{ id: number }>('/contacts', {
    name: 'Sérgio Site',
    number: `5511982${digits}`,
  });
  phone = (
    await admin.post<{ id: number }>('/tickets', { contactId: c1.id, whatsappId: sim.id, status: 'pending' })
  ).id;
  site = (
    await admin.post<{ id: number }>('/tickets', { contactId: c2.id, whatsappId: chat.id, status: 'pending' })
  ).id;
}

/** A screenshot, with the page checked for horizontal scroll (500 px included). */
async function shoot(page: Page, name: string) {
  await page.mouse.move(0, 0);
  await screenshot(page, name);
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, `${name}: no horizontal scroll (${overflow} px)`);
}

const row = (page: Page, id: number) => page.locator(`[data-testid="ticket-row"][data-id="${id}"]`);

test('the tickets list shows each channel and filters by channel', async () => {
  await fixture();
  const page = await browser.newPage();
  try {
    await signInPage(page, { email: adminEmail, password: COMPANY_ADMIN_PASSWORD });
    await page.goto('/tickets');
    await page.getByTestId('tab-pending').click();
    await row(page, phone).waitFor();
    await row(page, site).waitFor();
    // Each row names its channel by its icon (a tooltip and an accessible name).
    assert.equal(
      await row(page, site).locator('[data-testid="channel-icon"]').getAttribute('data-channel'),
      'webchat',
    );
    assert.equal(
      await row(page, phone).locator('[data-testid="channel-icon"]').getAttribute('data-channel'),
      'simulator',
    );
    assert.equal(
      await row(page, site).locator('[data-testid="channel-icon"]').getAttribute('aria-label'),
      'Chat do site',
    );

    // The filter: website chat only — the phone ticket leaves the list (the server answered without it).
    const asked = page.waitForRequest(
      (r) => r.url().includes('/api/tickets?') && r.url().includes('channels='),
    );
    await page.getByTestId('channel-filter').click();
    await page.getByTestId('channel-filter-webchat').click();
    await page.keyboard.press('Escape');
    const url = decodeURIComponent((await asked).url());
    assert.match(url, /channels=\["webchat"\]/);
    await row(page, phone).waitFor({ state: 'detached' });
    await row(page, site).waitFor();
    await page.mouse.move(0, 0);
    await screenshot(page, 'channel-filter-list-light');

    // Both channels picked: both tickets again.
    await page.getByTestId('channel-filter').click();
    await page.getByTestId('channel-filter-simulator').click();
    await page.keyboard.press('Escape');
    await row(page, phone).waitFor();
    await row(page, site).waitFor();
  } finally {
    await page.context().close();
  }
});

test('the list and the dashboard by channel in dark and at 500 px', async () => {
  for (const [name, opts, prefs] of [
    ['channel-filter-list-dark', {}, { preferredTheme: 'dark' }],
    ['channel-filter-list-500', { width: 500, height: 900 }, {}],
    ['channel-filter-list-500-dark', { width: 500, height: 900 }, { preferredTheme: 'dark' }],
  ] as const) {
    const page = await browser.newPage(opts);
    try {
      await signInPage(page, { email: adminEmail, password: COMPANY_ADMIN_PASSWORD }, prefs);
      await page.goto('/tickets');
      await page.getByTestId('tab-pending').click();
      await page.getByTestId('channel-filter').click();
      await page.getByTestId('channel-filter-webchat').click();
      await page.keyboard.press('Escape');
      await row(page, phone).waitFor({ state: 'detached' });
      await row(page, site).waitFor();
      await shoot(page, name);
    } finally {
      await page.context().close();
    }
  }
  for (const [name, opts, prefs] of [
    ['channel-dashboard-light', {}, {}],
    ['channel-dashboard-dark', {}, { preferredTheme: 'dark' }],
    ['channel-dashboard-500', { width: 500, height: 900 }, {}],
    ['channel-dashboard-500-dark', { width: 500, height: 900 }, { preferredTheme: 'dark' }],
  ] as const) {
    const page = await browser.newPage(opts);
    try {
      await signInPage(page, { email: adminEmail, password: COMPANY_ADMIN_PASSWORD }, prefs);
      await page.goto('/');
      const table = page.getByTestId('chart-channels');
      await table.getByTestId('channel-row-webchat').waitFor();
      await table.getByTestId('channel-row-simulator').waitFor();
      // The channel filter narrows the figures: website chat only.
      if (name === 'channel-dashboard-light') {
        await page.getByRole('combobox', { name: 'Canal' }).click();
        await page.getByTestId('filter-channel-webchat').click();
        await page.getByTestId('filter-apply').click();
        await table.getByTestId('channel-row-simulator').waitFor({ state: 'detached' });
        await table.getByTestId('channel-row-webchat').waitFor();
      }
      await page.getByTestId('tickets-channel').scrollIntoViewIfNeeded();
      await shoot(page, name);
    } finally {
      await page.context().close();
    }
  }
});
