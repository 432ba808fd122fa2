import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { createCompany, fileBrowser, screenshot, signInForm } from './browser.js';

const browser = fileBrowser();

const stamp = Date.now().toString(36);
/** Generous: a loaded 2-core machine builds, serves and drives browsers at once. */
const LONG = { timeout: 30_000 };
/** Seed plans: 3 (Ouro) has useIntegrations, 1 (Bronze) does not. */
const PLAN_WITH_INTEGRATIONS = 3;
const PLAN_WITHOUT_INTEGRATIONS = 1;

/** A company of this test's own; answers its admin's e-mail. */
const company = (name: string, planId: number) => createCompany(name, planId, stamp);

// The browser's own token: a second login of the same user would end the browser's session.
const api =
  (page: Page, token: string) =>
  async <T>(method: string, path: string, data?: unknown) => {
    const res = await page.request.fetch(`/api${path}`, {
      method,
      data,
      headers: { authorization: `Bearer ${token}` },
    });
    assert.ok(res.ok(), `${method} ${path}: ${res.status()} ${await res.text()}`);
    return (await res.json()) as T;
  };

const toast = (page: Page, text: string) =>
  page.locator('#notistack-snackbar').filter({ hasText: text }).first();

/** Let transitions finish and tooltips go before a screenshot (not a synchronisation). */
async function settle(page: Page) {
  await page.mouse.move(1, 1);
  await page.waitForTimeout(450);
}

interface Integration {
  id: number;
  type: string;
  name: string;
  projectName: string;
  typebotSlug: string;
  typebotDelayMessage: number;
  typebotExpires: number;
}

test('queue integrations: add a typebot on the screen, search it, choose it in a queue, kept after a reload', async () => {
  const adminEmail = await company('Integracoes', PLAN_WITH_INTEGRATIONS);
  const page = await browser.newPage();
  const name = `Typebot vendas ${stamp}`;
  try {
    const token = await signInForm(page, adminEmail);
    const call = api(page, token);
    const queueName = `Vendas bot ${stamp}`;
    const queue = await call<{ id: number }>('POST', '/queue', { name: queueName, color: '#1976D2' });
    // A second integration, so the search has something to leave out.
    await call('POST', '/queueIntegration', {
      type: 'webhook',
      name: `Webhook outro ${stamp}`,
      urlN8N: 'https://hooks.example.com/x',
    });

    await page.goto('/queue-integration');
    await page.getByRole('heading', { name: 'Integrações' }).waitFor(LONG);
    await page.getByTestId('integration-row').first().waitFor(LONG);
    await page.getByTestId('integration-add').click();
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('heading', { name: 'Adicionar integração' }).waitFor(LONG);
    // Typebot is the default type, with the defaults of docs/automation.md.
    assert.equal(await dialog.locator('input[data-field="typebotDelayMessage"]').inputValue(), '1000');
    assert.equal(await dialog.locator('input[data-field="typebotExpires"]').inputValue(), '1');

    // docs/automation.md: name 2 or more; typebot needs a url and a slug.
    await dialog.locator('input[data-field="name"]').fill('A');
    await dialog.getByRole('button', { name: 'Salvar', exact: true }).click();
    await dialog.getByText('Muito curto').first().waitFor(LONG);
    await dialog.getByText('Obrigatório').first().waitFor(LONG);

    await dialog.locator('input[data-field="name"]').fill(name);
    await dialog.locator('input[data-field="urlN8N"]').fill('https://typebot.example.com');
    await dialog.locator('input[data-field="typebotSlug"]').fill('fluxo-vendas');
    await dialog.locator('input[data-field="typebotKeywordFinish"]').fill('#sair');
    await dialog.locator('input[data-field="typebotDelayMessage"]').fill('1500');
    await settle(page);
    await screenshot(page, 'queue-integrations-dialog-light');
    await dialog.getByRole('button', { name: 'Salvar', exact: true }).click();
    await toast(page, 'Integração adicionada com sucesso.').waitFor(LONG);
    await dialog.waitFor({ state: 'hidden', ...LONG });

    const row = page.locator('[data-testid="integration-row"]').filter({ hasText: name });
    await row.waitFor(LONG);
    assert.equal(await row.getByTestId('integration-logo').getAttribute('data-type'), 'typebot');
    const { queueIntegrations } = await call<{ queueIntegrations: Integration[] }>(
      'GET',
      '/queueIntegration/',
    );
    const saved = queueIntegrations.find((i) => i.name === name);
    assert.ok(saved, 'the integration is stored');
    assert.equal(saved.projectName, name);
    assert.equal(saved.typebotSlug, 'fluxo-vendas');
    assert.equal(saved.typebotDelayMessage, 1500);
    assert.equal((await row.getByTestId('integration-id').innerText()).trim(), String(saved.id));

    // ---- search ----
    const rows = page.getByTestId('integration-row');
    await page.getByRole('searchbox', { name: 'Pesquisar' }).fill(`vendas ${stamp}`);
    await page
      .locator('[data-testid="integration-row"]')
      .filter({ hasText: 'Webhook outro' })
      .waitFor({
        state: 'detached',
        ...LONG,
      });
    await row.waitFor(LONG);
    assert.equal(await rows.count(), 1);
    await settle(page);
    await screenshot(page, 'queue-integrations-light');

    // ---- choose it in the queue's dialog ----
    await page.goto('/queues');
    const queueRow = page.getByTestId('queue-row').filter({ hasText: queueName });
    await queueRow.waitFor(LONG);
    await queueRow.getByRole('button', { name: 'Editar' }).click();
    const qDialog = page.getByRole('dialog');
    await qDialog.getByRole('combobox', { name: 'Integração' }).click();
    await page.getByRole('option', { name }).click();
    await qDialog.getByRole('button', { name: 'Salvar', exact: true }).click();
    await qDialog.waitFor({ state: 'hidden', ...LONG });
    const stored = await call<{ integrationId: number | null }>('GET', `/queue/${queue.id}`);
    assert.equal(stored.integrationId, saved.id);

    // ---- reload: the choice is kept ----
    await page.reload();
    await queueRow.waitFor(LONG);
    await queueRow.getByRole('button', { name: 'Editar' }).click();
    const chosen = qDialog.getByRole('combobox', { name: 'Integração' }).filter({ hasText: name });
    await chosen.waitFor(LONG);
    await chosen.scrollIntoViewIfNeeded();
    await settle(page);
    await screenshot(page, 'queue-integrations-queue-dialog-light');
    await qDialog.getByRole('button', { name: 'Cancelar' }).click();
    await qDialog.waitFor({ state: 'hidden', ...LONG });
  } finally {
    await page.context().close();
  }

  // ---- dark theme: the list, the edit dialog (a Dialogflow form), delete with confirmation ----
  const dark = await browser.newPage();
  try {
    await signInForm(dark, adminEmail, true);
    await dark.goto('/queue-integration');
    const row = dark.locator('[data-testid="integration-row"]').filter({ hasText: name });
    await row.waitFor(LONG);
    await settle(dark);
    await screenshot(dark, 'queue-integrations-dark');
    await dark.getByTestId('integration-add').click();
    const dialog = dark.getByRole('dialog');
    await dialog.getByRole('heading', { name: 'Adicionar integração' }).waitFor(LONG);
    await dialog.getByRole('combobox', { name: 'Tipo' }).click();
    await dark.getByTestId('integration-type-dialogflow').click();
    await dialog.locator('textarea[data-field="jsonContent"]').waitFor(LONG);
    assert.equal(await dialog.locator('input[data-field="typebotSlug"]').count(), 0);
    await dialog.locator('input[data-field="name"]').fill(`Agente ${stamp}`);
    await dialog.locator('input[data-field="projectName"]').fill('recado-agent');
    await dialog.locator('textarea[data-field="jsonContent"]').fill('{"project_id": "x"}');
    await dialog.getByTestId('integration-test-session').click();
    await dialog.getByText('O JSON precisa ser uma conta de serviço').first().waitFor(LONG);
    await settle(dark);
    await screenshot(dark, 'queue-integrations-dialog-dark');
    await dialog.getByRole('button', { name: 'Cancelar' }).click();
    await dialog.waitFor({ state: 'hidden', ...LONG });

    await row.getByRole('button', { name: 'Excluir' }).click();
    const confirm = dark.getByRole('dialog');
    await confirm.getByText(`Excluir ${name}?`).waitFor(LONG);
    await confirm.getByRole('button', { name: 'Excluir', exact: true }).click();
    await toast(dark, 'Integração excluída com sucesso.').waitFor(LONG);
    await row.waitFor({ state: 'detached', ...LONG });
  } finally {
    await dark.context().close();
  }
});

test('queue integrations: a company whose plan has no integrations is told so and sent to /', async () => {
  const adminEmail = await company('SemIntegracoes', PLAN_WITHOUT_INTEGRATIONS);
  const page = await browser.newPage();
  try {
    const token = await signInForm(page, adminEmail);
    await page.goto('/queue-integration');
    await toast(page, 'Esta empresa não possui permissão para acessar essa página!').waitFor(LONG);
    await page.waitForURL((url) => url.pathname === '/', LONG);
    assert.equal(await page.getByTestId('integration-add').count(), 0);
    // The API refuses as well.
    const res = await page.request.get('/api/queueIntegration/', {
      headers: { authorization: `Bearer ${token}` },
    });
    assert.equal(res.status(), 403);
    assert.equal(((await res.json()) as { error: string }).error, 'ERR_NO_PERMISSION');
  } finally {
    await page.context().close();
  }
});
