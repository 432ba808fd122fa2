import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Locator, Page } from 'playwright-core';
import { companyAdmin, fileBrowser, pageApi, screenshot, signInForm, until } from './browser.js';

// #33.1 and #33.2 (docs/connection-health.md): a connection that stays down past the company's threshold
// (1 minute here, the shortest it may be) shows in the admins' top bar, and the connections page shows its
// health: uptime, the 30-day bar, its outages and its states.
const browser = fileBrowser();
const stamp = Date.now().toString(36).slice(-6);

/** Waits until the element and its parents are fully drawn (a dialog's or popover's fade-in has ended). */
async function opaque(loc: Locator) {
  await loc.waitFor();
  // An anonymous async body: the test transpiler names inner functions with a helper the page lacks.
  await loc.evaluate(async (el) => {
    for (;;) {
      let drawn = true;
      for (let e: Element | null = el; e; e = e.parentElement)
        if (getComputedStyle(e).opacity !== '1') drawn = false;
      if (drawn) return;
      await new Promise((r) => requestAnimationFrame(r));
    }
  });
}

const row = (page: Page, name: string) => page.locator(`[data-testid="connection-row"][data-name="${name}"]`);

test('a connection down past the threshold: the top-bar alert, the health dialog, the "back" notice', async () => {
  const { email, admin } = await companyAdmin('Saude', 5, stamp, 'Sara Saúde');
  await admin.put('/settings/connectionAlertMinutes', { value: '1' });
  const w = await admin.post<{ id: number }>('/whatsapp', { name: 'Loja Centro', channel: 'simulator' });

  const page = await browser.newPage();
  const token = await signInForm(page, email);
  const http = pageApi(page, token);

  // The alert settings are on the settings screen: the threshold set above, and an e-mail list typed here.
  await page.goto('/settings');
  const minutes = page.locator('#setting-connectionAlertMinutes');
  await minutes.waitFor();
  assert.equal(await minutes.inputValue(), '1');
  await page.getByLabel('E-mails de alerta de conexão').fill('noc@saude.test; plantao@saude.test');
  await page.getByLabel('E-mails de alerta de conexão').press('Enter');
  await page.getByText('Configuração salva.').waitFor();
  await until(
    () => http.get<{ value: string }>('/settings/connectionAlertEmails'),
    (s) => s.value === 'noc@saude.test, plantao@saude.test',
    'the e-mail list saved',
  );
  await minutes.scrollIntoViewIfNeeded();
  await screenshot(page, 'connection-alert-settings');
  await page.goto('/connections');
  const loja = row(page, 'Loja Centro');
  await loja.locator('[data-testid="connection-status"][data-status="CONNECTED"]').waitFor();

  // The health dialog of a connection that has only been connected.
  await loja.getByTestId('health-button').click();
  const dialog = page.getByTestId('health-dialog');
  await dialog.getByRole('heading', { name: 'Saúde da conexão: Loja Centro' }).waitFor();
  assert.equal(await dialog.getByTestId('uptime-7d').innerText(), '100%');
  assert.equal(await dialog.getByTestId('uptime-30d').innerText(), '100%');
  await dialog.getByText('Nenhuma queda nos últimos 30 dias.').waitFor();
  await dialog.getByText(/avisados .* mais de 1 min fora do ar/).waitFor();
  await dialog.getByRole('button', { name: 'Fechar' }).click();
  await dialog.waitFor({ state: 'hidden' });

  // It drops; a minute later the admins' top bar says so.
  await http.delete(`/whatsappsession/${w.id}`);
  await loja.locator('[data-testid="connection-status"][data-status="DISCONNECTED"]').waitFor();
  const alerts = page.getByTestId('connection-alerts');
  await alerts.waitFor({ timeout: 120_000 });
  await alerts.click();
  const alert = page.getByTestId('connection-alert').filter({ hasText: 'Loja Centro' });
  await alert
    .locator('[data-state="down"]')
    .getByText(/^Fora do ar desde /)
    .waitFor();
  await opaque(alert);
  await screenshot(page, 'connection-alert-topbar');

  // The alert opens the connection's health: the outage is ongoing and was told.
  await alert.click();
  await page.waitForURL(`**/connections?health=${w.id}`);
  await dialog.getByTestId('health-outage').getByText('Em andamento').waitFor();
  await dialog.getByTestId('health-outage').getByText('Avisados').waitFor();
  const first = dialog.getByTestId('health-entry').first();
  assert.equal(await first.getAttribute('data-status'), 'DISCONNECTED');
  await dialog.getByTestId('health-bar').locator('[data-status="DISCONNECTED"]').waitFor();
  await opaque(dialog.getByTestId('health-timeline'));
  await screenshot(page, 'connection-health');

  // It comes back: the top bar's row says for how long it was down, live.
  await http.post(`/whatsappsession/${w.id}`);
  await dialog.getByRole('button', { name: 'Fechar' }).click();
  await page.getByTestId('connection-alerts').click();
  await alert
    .locator('[data-state="back"]')
    .getByText(/^Voltou após \d+ min fora do ar$/)
    .waitFor();
  await page.keyboard.press('Escape');
  await page.close();

  // Dark, and 500 px wide (the dialog takes the whole screen there).
  for (const [name, opts, dark] of [
    ['connection-health-dark', {}, true],
    ['connection-health-500', { width: 500, height: 900 }, false],
    ['connection-health-500-dark', { width: 500, height: 900 }, true],
  ] as const) {
    const p = await browser.newPage(opts);
    await signInForm(p, email, dark);
    await p.goto(`/connections?health=${w.id}`);
    const d = p.getByTestId('health-dialog');
    await d.getByTestId('health-outage').first().waitFor();
    await opaque(d.getByTestId('uptime-7d'));
    await screenshot(p, name);
    if (opts.width === 500) {
      await d.getByRole('button', { name: 'Fechar' }).click();
      await p.getByTestId('connection-alerts').click();
      await opaque(p.getByTestId('connection-alert').first());
      await screenshot(p, `${name}-topbar`);
    }
    await p.close();
  }
});
