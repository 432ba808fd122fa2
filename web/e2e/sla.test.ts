import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import {
  COMPANY_ADMIN_PASSWORD,
  companyAdmin,
  fileBrowser,
  pageApi,
  screenshot,
  signInPage,
} from './browser.js';

/**
 * #30.5 SLA: an admin creates a policy on the SLA page (form kit); a ticket in its queue shows the time-left
 * chip; a ticket under a one-minute target turns red when its due time passes (the wait is on the red chip,
 * never a fixed sleep), the "breached" filter finds it, the chat header and the top bar say so.
 */
const browser = fileBrowser();

const stamp = Date.now().toString(36);
let adminEmail = '';
let calm = { id: 0, uuid: '' };
let late = { id: 0, uuid: '' };

async function fixture() {
  const made = await companyAdmin('Prazo', 5, stamp);
  adminEmail = made.email;
  const admin = made.admin;
  const support = await admin.post<{ id: number }>('/queue', { name: `Suporte ${stamp}`, color: '#1565C0' });
  const urgent = await admin.post<{ id: number }>('/queue', { name: `Plantão ${stamp}`, color: '#C62828' });
  const w = await admin.post<{ id: number }>('/whatsapp', { name: 'Simulador SLA', channel: 'simulator' });
  const contact = (name: string, number: string) => admin.post<{ id: number }>('/contacts', { name, number });
  const c1 = await contact('Carla Calma', `5511977${stamp.slice(-6).replace(/\D/g, '1').padStart(6, '1')}`);
  const c2 = await contact('Tiago Tarde', `5511966${stamp.slice(-6).replace(/\D/g, '2').padStart(6, '2')}`);
  return { admin, support: support.id, urgent: urgent.id, whatsappId: w.id, c1: c1.id, c2: c2.id };
}

const chipOf = (page: Page, ticketId: number) =>
  page.locator(`[data-testid="ticket-row"][data-id="${ticketId}"] [data-testid="sla-chip"]`);

test('a policy, its chip, a breach in red and the "breached" filter', async () => {
  const f = await fixture();
  const page = await browser.newPage();
  try {
    // One session per user: after the page's sign-in, set-up calls go through the page's session.
    const http = pageApi(
      page,
      await signInPage(page, { email: adminEmail, password: COMPANY_ADMIN_PASSWORD }),
    );

    // The SLA page (admin menu): a policy of 30 minutes to the first response for the support queue.
    await page.goto('/sla');
    await page.getByTestId('sla-add').click();
    await page.getByTestId('sla-name').fill('Suporte padrão');
    await page.getByTestId('sla-firstResponseMinutes').fill('30');
    await page.getByTestId('sla-queues').locator('input').click();
    await page.keyboard.type('Suporte');
    await page.getByRole('option', { name: `Suporte ${stamp}` }).click();
    await page.getByRole('button', { name: 'Salvar' }).click();
    await page.locator('[data-testid="sla-policy-row"][data-name="Suporte padrão"]').waitFor();
    // Zero is refused on the field, in words.
    await page.getByTestId('sla-add').click();
    await page.getByTestId('sla-name').fill('Zero');
    await page.getByTestId('sla-firstResponseMinutes').fill('0');
    await page.getByRole('button', { name: 'Salvar' }).click();
    await page.locator('.Mui-error').first().waitFor();
    await page.keyboard.press('Escape');

    // A one-minute target on the other queue (through the API: the page was shown above).
    await http.post('/sla-policies', { name: 'Plantão', firstResponseMinutes: 1, queueIds: [f.urgent] });
    calm = await http.post('/tickets', {
      contactId: f.c1,
      whatsappId: f.whatsappId,
      queueId: f.support,
      status: 'pending',
    });
    late = await http.post('/tickets', {
      contactId: f.c2,
      whatsappId: f.whatsappId,
      queueId: f.urgent,
      status: 'pending',
    });

    await page.goto('/tickets');
    await page.getByTestId('tab-pending').click();
    // Green with its time left.
    await page.locator(`[data-testid="ticket-row"][data-id="${calm.id}"] [data-sla="ok"]`).waitFor();
    assert.match(await chipOf(page, calm.id).innerText(), /faltam (29|30) min/);
    // The one-minute ticket: red once its due time passes, without a reload.
    await page
      .locator(`[data-testid="ticket-row"][data-id="${late.id}"] [data-sla="breached"]`)
      .waitFor({ timeout: 120_000 });

    // The filter asks the server for breached tickets: only the late one.
    await page.getByTestId('sla-filter').click();
    await page.getByTestId('sla-filter-breached').click();
    await page.locator(`[data-testid="ticket-row"][data-id="${late.id}"]`).waitFor();
    await page.locator(`[data-testid="ticket-row"][data-id="${calm.id}"]`).waitFor({ state: 'detached' });

    // The chat header shows it too; the top bar lists the breach once the server recorded it.
    await page.locator(`[data-testid="ticket-row"][data-id="${late.id}"]`).click();
    await page.locator('[data-testid="chat-header"] [data-sla="breached"]').waitFor();
    await page.getByTestId('sla-breaches').waitFor();
    await screenshot(page, 'sla-breached-light');
  } finally {
    await page.context().close();
  }
});

test('the SLA screens in dark and at 500 px', async () => {
  for (const [name, opts, prefs] of [
    ['sla-tickets-dark', {}, { preferredTheme: 'dark' }],
    ['sla-tickets-500', { width: 500, height: 900 }, {}],
    ['sla-tickets-500-dark', { width: 500, height: 900 }, { preferredTheme: 'dark' }],
  ] as const) {
    const page = await browser.newPage(opts);
    try {
      await signInPage(page, { email: adminEmail, password: COMPANY_ADMIN_PASSWORD }, prefs);
      await page.goto('/tickets');
      await page.getByTestId('tab-pending').click();
      await page.locator(`[data-testid="ticket-row"][data-id="${late.id}"] [data-sla="breached"]`).waitFor();
      await page.locator(`[data-testid="ticket-row"][data-id="${calm.id}"] [data-sla]`).waitFor();
      await screenshot(page, name);
      await page.goto('/sla');
      await page.locator('[data-testid="sla-policy-row"]').first().waitFor();
      await screenshot(page, name.replace('tickets', 'policies'));
      await page.goto(`/tickets/${late.uuid}`);
      await page.locator('[data-testid="chat-header"] [data-sla="breached"]').waitFor();
      await screenshot(page, name.replace('tickets', 'chat'));
    } finally {
      await page.context().close();
    }
  }
});
