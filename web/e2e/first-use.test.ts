// A newcomer's first steps (issue 29, points 10 and 15), each checked in the browser, light and dark, at 500 px.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import {
  COMPANY_ADMIN_PASSWORD,
  DEMO_ADMIN,
  apiClient,
  companyAdmin,
  fileBrowser,
  screenshot,
  signInPage,
} from './browser.js';

const browser = fileBrowser();

const stamp = Date.now().toString(36);
const LONG = { timeout: 30_000 };

const narrowPage = (): Promise<Page> => browser.newPage({ width: 500, height: 900 });
const themePrefs = (theme: 'light' | 'dark') => ({ preferredTheme: theme });

test("the demo's simulator: the customer's first message gets the greeting and the menu of departments", async () => {
  for (const theme of ['light', 'dark'] as const) {
    const page = await narrowPage();
    try {
      const token = await signInPage(page, DEMO_ADMIN, themePrefs(theme));
      const list = (await apiClient(token).get<{ id: number; name: string }[]>('/whatsapp')).find(
        (w) => w.name === 'Simulador',
      )!;
      await page.goto(`/connections/${list.id}/simulator`);
      const form = page.getByTestId('sim-new-customer');
      await form.getByRole('textbox', { name: 'Nome' }).fill(`Primeiro ${theme}`);
      const suffix = String(Date.now() % 1e4).padStart(4, '0');
      await form
        .getByRole('textbox', { name: 'Número' })
        .pressSequentially(`1197${theme === 'dark' ? 1 : 2}21${suffix}`);
      await form.getByRole('button', { name: 'Iniciar conversa' }).click();
      const phone = page.getByTestId('sim-phone');
      const input = phone.getByRole('textbox', { name: 'Mensagem' });
      await input.fill('Oi, boa tarde');
      await input.press('Enter');
      const menu = phone
        .locator('[data-testid="sim-message"][data-from="company"]')
        .filter({ hasText: 'Bem-vindo à Empresa Demo' });
      await menu.waitFor(LONG);
      const text = await menu.innerText();
      for (const queue of ['Suporte', 'Vendas', 'Financeiro']) assert.match(text, new RegExp(queue));
      await input.fill('3');
      await input.press('Enter');
      await phone
        .locator('[data-testid="sim-message"][data-from="company"]')
        .filter({ hasText: 'Segunda via de boleto' })
        .waitFor(LONG);
      await page.mouse.move(0, 0);
      await screenshot(page, `first-use-demo-simulator-${theme}`);
    } finally {
      await page.context().close();
    }
  }
});

test('tickets: a waiting ticket opens read-only from the list, as from the bell; a search shows the matching message highlighted', async () => {
  const { email: adminEmail, admin: api } = await companyAdmin('Primeiro', 5, stamp, 'Olívia Primeira');
  const sim = await api.post<{ id: number }>('/whatsapp', { name: 'Balcão', channel: 'simulator' });
  const from = `5511977${String(Date.now() % 1e6).padStart(6, '0')}`;
  await api.post(`/simulator/${sim.id}/inbound`, {
    from,
    name: 'Carla Cliente',
    body: 'Quero o reembolso do pedido 88',
  });
  await api.post(`/simulator/${sim.id}/inbound`, { from, name: 'Carla Cliente', body: 'Obrigada!' });

  for (const theme of ['light', 'dark'] as const) {
    const page = await narrowPage();
    try {
      await signInPage(page, { email: adminEmail, password: COMPANY_ADMIN_PASSWORD }, themePrefs(theme));
      await page.goto('/tickets');
      await page.getByTestId('tab-pending').click();
      const row = page
        .getByTestId('ticket-list-pending')
        .getByTestId('ticket-row')
        .filter({ hasText: 'Carla Cliente' });
      await row.getByTestId('ticket-last-message').filter({ hasText: 'Obrigada!' }).waitFor(LONG);
      // A click on the waiting ticket opens it read-only: the messages, and "accept first" instead of a composer.
      await row.getByTestId('ticket-open').click();
      await page.waitForURL(/\/tickets\/[0-9a-f-]{36}$/);
      const chat = page.getByTestId('ticket-chat');
      await chat.locator('[data-testid="chat-status"][data-status="pending"]').waitFor(LONG);
      await chat.getByText('Quero o reembolso do pedido 88').waitFor(LONG);
      await chat.getByTestId('input-locked').getByText('Aceite este atendimento para responder.').waitFor();
      assert.equal(await chat.getByTestId('message-input').count(), 0);
      await page.mouse.move(0, 0);
      await screenshot(page, `first-use-pending-preview-${theme}`);

      // Search: the result shows the message that matched, highlighted, not the last one.
      await page.goto('/tickets');
      await page.getByRole('tab', { name: /Busca/ }).click();
      await page.getByPlaceholder('Nome, número ou mensagem').fill('REEMBOLSO');
      const hit = page
        .getByTestId('ticket-list-search')
        .getByTestId('ticket-row')
        .filter({ hasText: 'Carla' });
      await hit.getByTestId('search-highlight').filter({ hasText: 'reembolso' }).waitFor(LONG);
      assert.match(await hit.getByTestId('search-snippet').innerText(), /Quero o reembolso do pedido 88/);
      await page.mouse.move(0, 0);
      await screenshot(page, `first-use-search-snippet-${theme}`);
    } finally {
      await page.context().close();
    }
  }
});
