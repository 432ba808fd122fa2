import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { companyAdmin, fileBrowser, screenshot, signInPage } from './browser.js';

/**
 * #30.2 / #30.8: the top-bar presence switch, and the supervisor's live view ("Ao vivo") following an
 * attendant who comes online in another browser, then goes away. Waits on what the page shows, never on time.
 */
const browser = fileBrowser();

const stamp = Date.now().toString(36);
const PASSWORD = 'User@1234';

/** A company of this file's own with a supervisor and an attendant in one queue. */
async function fixture() {
  const { admin } = await companyAdmin('Presenca', 5, stamp);
  const queue = await admin.post<{ id: number }>('/queue', { name: `Vendas ${stamp}`, color: '#2E7D32' });
  const supervisor = { email: `sup-${stamp}@e2e.local`, password: PASSWORD };
  const attendant = { email: `att-${stamp}@e2e.local`, password: PASSWORD };
  await admin.post('/users', { name: 'Sofia Supervisora', ...supervisor, profile: 'supervisor' });
  const att = await admin.post<{ id: number }>('/users', {
    name: 'Ana Atendente',
    ...attendant,
    profile: 'user',
    queueIds: [queue.id],
  });
  return { supervisor, attendant, attendantId: att.id, queueId: queue.id };
}

const presenceOf = (page: Page) => page.getByTestId('presence-switch').first().getAttribute('data-presence');
const waitPresence = (page: Page, value: string) =>
  page.locator(`[data-testid="presence-switch"][data-presence="${value}"]`).first().waitFor();

test('the switch, and the live view following an attendant who comes online elsewhere', async () => {
  const f = await fixture();
  const sup = await browser.newPage();
  let att: Page | undefined;
  try {
    await signInPage(sup, f.supervisor);
    await sup.goto('/tickets');
    // Opening the app brings the supervisor online; the switch shows it with its dot.
    await waitPresence(sup, 'online');

    // The switch: away, then online again, each confirmed by the server (the dot follows).
    await sup.getByTestId('presence-switch').click();
    await sup.getByTestId('presence-option-away').click();
    await waitPresence(sup, 'away');
    await sup.getByTestId('presence-switch').click();
    await sup.getByTestId('presence-option-online').click();
    await waitPresence(sup, 'online');

    // The supervisor's menu has the live view (under the dashboard's place); no settings, no users.
    await sup.getByTestId('menu-live').click();
    await sup.waitForURL('**/live');
    await sup.getByTestId(`live-queue-${f.queueId}`).waitFor();
    assert.equal(await sup.getByTestId('menu-settings').count(), 0);
    assert.equal(await sup.getByTestId('menu-users').count(), 0);
    const row = (presence: string) =>
      sup.locator(`[data-testid="live-attendant-${f.attendantId}"][data-presence="${presence}"]`);
    await row('offline').waitFor();

    // The attendant opens the app in another browser: the live view shows them online without a reload.
    att = await browser.newPage();
    await signInPage(att, f.attendant);
    await att.goto('/tickets');
    await waitPresence(att, 'online');
    await row('online').waitFor();
    assert.equal(await sup.getByTestId(`live-presence-${f.attendantId}`).innerText(), 'Online');
    assert.match(await sup.getByTestId(`live-load-${f.attendantId}`).innerText(), /0/);
    // What routing gave them and what they skipped in the last 24 hours (GET /routing/stats, supervisors too).
    await sup.getByTestId(`live-routed-${f.attendantId}`).filter({ hasText: '0 · 0' }).waitFor();

    // They step away on their switch: the supervisor sees it.
    await att.getByTestId('presence-switch').click();
    await att.getByTestId('presence-option-away').click();
    await row('away').waitFor();
    assert.equal(await sup.getByTestId(`live-presence-${f.attendantId}`).innerText(), 'Ausente');

    // A plain attendant has no live view: not in the menu, and the address leads to the tickets.
    assert.equal(await att.getByTestId('menu-live').count(), 0);
    await att.goto('/live');
    await att.waitForURL('**/tickets');

    await screenshot(sup, 'live-light');
    assert.equal(await presenceOf(sup), 'online');
  } finally {
    await sup.context().close();
    await att?.context().close();
  }
});

test('the live page in dark and at 500 px', async () => {
  // The first test's supervisor and company.
  const who = { email: `sup-${stamp}@e2e.local`, password: PASSWORD };
  for (const [name, opts, prefs] of [
    ['live-dark', {}, { preferredTheme: 'dark' }],
    ['live-500', { width: 500, height: 900 }, {}],
    ['live-500-dark', { width: 500, height: 900 }, { preferredTheme: 'dark' }],
  ] as const) {
    const page = await browser.newPage(opts);
    try {
      await signInPage(page, who, prefs);
      await page.goto('/live');
      await page.getByTestId('live-attendants').waitFor();
      await page.locator('[data-testid^="live-queue-"]').first().waitFor();
      await waitPresence(page, 'online');
      await screenshot(page, name);
    } finally {
      await page.context().close();
    }
  }
});
