import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { APIRequestContext, Browser, Page } from 'playwright-core';
import { COMPANY_ADMIN_PASSWORD, apiLogin, createCompany, launch, newPage, screenshot } from './browser.js';

let browser: Browser;
before(async () => {
  browser = await launch();
});
after(async () => {
  await browser.close();
});

const stamp = Date.now().toString(36);
const suffix = String(Date.now() % 10_000).padStart(4, '0');

/** Let transitions finish and tooltips go before a screenshot. */
async function settle(page: Page) {
  await page.mouse.move(1, 1);
  await page.waitForTimeout(450);
}

async function json<T>(res: Awaited<ReturnType<APIRequestContext['get']>>, status: number): Promise<T> {
  assert.equal(res.status(), status, await res.text());
  return (await res.json()) as T;
}

/** A company of this test's own (so nothing another test file does changes its settings or data). */
async function ownCompany() {
  const email = await createCompany('Campanhas', 5, stamp, 'Camila Campanhas');
  const token = await apiLogin(email, COMPANY_ADMIN_PASSWORD);
  return { token, headers: { authorization: `Bearer ${token}` } };
}

async function signIn(page: Page, token: string, theme: 'light' | 'dark') {
  await page.goto('/login');
  await page.evaluate(
    ([tk, th]) => {
      localStorage.setItem('token', JSON.stringify(tk));
      localStorage.setItem('preferredTheme', th!);
    },
    [token, theme],
  );
}

test('campaigns: a campaign for now, created on the screen, reaches 100% while the customers receive it', async () => {
  // A browser set to American English with the app in Portuguese: the schedule follows the app (#29.16).
  const page = await newPage(browser, { locale: 'en-US' });
  await page.goto('/login');
  const { token, headers } = await ownCompany();
  const api = page.request;

  // The connection, no wait between sends, and a contact list of three customers, through the API.
  const conn = await json<{ id: number }>(
    await api.post('/api/whatsapp', { headers, data: { name: `Simulador ${stamp}`, channel: 'simulator' } }),
    201,
  );
  await json(
    await api.post('/api/campaign-settings', {
      headers,
      data: { settings: { messageInterval: 0, longerIntervalAfter: 0 } },
    }),
    200,
  );
  const list = await json<{ id: number }>(
    await api.post('/api/contact-lists', { headers, data: { name: `Clientes ${stamp}` } }),
    201,
  );
  const customers = [
    { name: 'Ana Campanha', number: `55119710${suffix}1`.slice(0, 13) },
    { name: 'Bruno Campanha', number: `55219720${suffix}2`.slice(0, 13) },
    { name: 'Carla Campanha', number: `55319730${suffix}3`.slice(0, 13) },
  ];
  for (const c of customers)
    await json(
      await api.post('/api/contact-list-items', { headers, data: { ...c, contactListId: list.id } }),
      201,
    );

  // ---- the list screen, then the dialog ----
  await signIn(page, token, 'light');
  await page.goto('/campaigns');
  await page.getByRole('heading', { name: 'Campanhas' }).waitFor({ timeout: 30_000 });
  await page.getByTestId('campaign-add').click();
  const dialog = page.getByRole('dialog');
  await dialog.getByRole('heading', { name: 'Nova campanha' }).waitFor();
  // A one-letter name and no message are refused.
  await dialog.getByLabel('Nome').fill('X');
  await dialog.getByRole('button', { name: 'Salvar' }).click();
  await dialog.getByText('O nome deve ter de 2 a 50 caracteres.').waitFor();
  await dialog.getByText('Escreva pelo menos uma mensagem.').waitFor();

  const name = `Oferta ${stamp}`;
  await dialog.getByLabel('Nome').fill(name);
  // The connection is preselected (the company's only one); the list is chosen.
  await dialog
    .getByRole('combobox', { name: 'Conexão' })
    .filter({ hasText: `Simulador ${stamp}` })
    .waitFor();
  await dialog.getByRole('combobox', { name: 'Lista de contatos' }).click();
  await page.getByRole('option', { name: new RegExp(`Clientes ${stamp}`) }).click();
  await dialog.getByLabel('Mensagem 1').fill('Olá {nome}, temos uma oferta para você!');
  await dialog.getByTestId('campaign-variant-tab-2').click();
  await dialog.getByLabel('Mensagem 2').fill('Oi {primeiro-nome}! Oferta especial hoje.');
  await dialog.getByTestId('campaign-schedule-now').click();
  // The app's order and clock (27/11/2026 14:30), not the browser's (11/27/2026, 02:30 PM).
  const scheduled = (
    await dialog.getByTestId('campaign-scheduled-at').getByRole('group').innerText()
  ).replace(/[\u2066-\u2069\u200e\u200f\s]+/g, ' ');
  const now = new Date();
  const dd = String(now.getDate()).padStart(2, '0');
  const mm = String(now.getMonth() + 1).padStart(2, '0');
  assert.match(
    scheduled.trim(),
    new RegExp(`^${dd} ?/ ?${mm} ?/ ?${now.getFullYear()} \\d{2} ?: ?\\d{2}\\b`),
  );
  assert.doesNotMatch(scheduled, /AM|PM/);
  await settle(page);
  await screenshot(page, 'campaigns-dialog-light');
  await dialog.getByRole('button', { name: 'Salvar' }).click();
  await dialog.waitFor({ state: 'hidden', timeout: 15_000 });

  const row = page.getByTestId('campaign-row').filter({ hasText: name });
  await row.waitFor({ timeout: 15_000 });
  assert.match(await row.innerText(), new RegExp(`Clientes ${stamp}`));

  // ---- the report fills up live ----
  await row.getByRole('link', { name: 'Relatório' }).click();
  await page.getByRole('heading', { name: `Relatório da campanha ${name}` }).waitFor({ timeout: 15_000 });
  await page.getByTestId('campaign-percent').filter({ hasText: '100%' }).waitFor({ timeout: 90_000 });
  await page.getByTestId('campaign-delivered-of-valid').filter({ hasText: '3 de 3' }).waitFor();
  await page
    .locator('[data-testid="campaign-status"][data-status="FINALIZADA"]')
    .waitFor({ timeout: 30_000 });
  assert.equal(await page.getByTestId('card-valid').innerText(), '3');
  assert.equal(await page.getByTestId('card-whatsapp').innerText(), `Simulador ${stamp}`);
  assert.notEqual(await page.getByTestId('card-completed').innerText(), 'Não concluída');
  await settle(page);
  await screenshot(page, 'campaigns-report-light');

  // ---- every simulated customer got exactly one message, with their name filled in ----
  for (const c of customers) {
    const convo = await json<{ fromMe: boolean; body: string }[]>(
      await api.get(`/api/simulator/${conn.id}/conversations/${c.number}`, { headers }),
      200,
    );
    const received = convo.filter((m) => m.fromMe);
    assert.equal(received.length, 1, `${c.number}: ${JSON.stringify(received)}`);
    const first = c.name.split(' ')[0];
    assert.ok(
      received[0]!.body === `Olá ${c.name}, temos uma oferta para você!` ||
        received[0]!.body === `Oi ${first}! Oferta especial hoje.`,
      received[0]!.body,
    );
  }

  // ---- the list shows the finished campaign; dark theme ----
  const dark = await newPage(browser);
  await signIn(dark, token, 'dark');
  await dark.goto('/campaigns');
  const darkRow = dark.getByTestId('campaign-row').filter({ hasText: name });
  await darkRow.locator('[data-status="FINALIZADA"]').waitFor({ timeout: 30_000 });
  await settle(dark);
  await screenshot(dark, 'campaigns-list-dark');
  await darkRow.getByRole('link', { name: 'Relatório' }).click();
  await dark.getByTestId('campaign-percent').filter({ hasText: '100%' }).waitFor({ timeout: 30_000 });
  await settle(dark);
  await screenshot(dark, 'campaigns-report-dark');
  // A finished campaign opens read-only.
  await dark.goto('/campaigns');
  await darkRow.getByRole('button', { name: 'Visualizar' }).click();
  // Issue 21 §7: it says why (finished), and offers one way out: Fechar, no Cancelar.
  await dark.getByRole('dialog').getByText('Esta campanha foi finalizada').waitFor();
  assert.equal(await dark.getByRole('dialog').getByRole('button', { name: 'Cancelar' }).count(), 0);
  assert.equal(await dark.getByRole('dialog').getByRole('button', { name: 'Fechar' }).count(), 1);
  // The connection is shown once its option arrived.
  await dark.getByRole('dialog').getByText(`Simulador ${stamp}`).waitFor();
  await settle(dark);
  await screenshot(dark, 'campaigns-dialog-readonly-dark');
  await dark.close();
  await page.close();
});
