import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { createCompany, launch, newPage, screenshot } from './browser.js';
import { fakeOpenAi } from '../../server/test/fake-openai.js';

let browser: Browser;
// The server's OPENAI_BASE_URL points at this port (e2e/run.mjs): the dialog's test runs against it.
let openai: Awaited<ReturnType<typeof fakeOpenAi>>;
before(async () => {
  browser = await launch();
  openai = await fakeOpenAi(Number(process.env.E2E_OPENAI_PORT ?? 0));
});
after(async () => {
  await browser.close();
  await openai.close();
});

const stamp = Date.now().toString(36);
/** Generous: a loaded 2-core machine builds, serves and drives browsers at once. */
const LONG = { timeout: 30_000 };
/** Seed plans: 3 (Ouro) has useOpenAi, 1 (Bronze) does not. */
const PLAN_WITH_AI = 3;
const PLAN_WITHOUT_AI = 1;
const API_KEY = `sk-e2e-${stamp}-secret`;

/** A company of this test's own; answers its admin's e-mail. */
const company = (name: string, planId: number) => createCompany(name, planId, stamp);

/** Signs in through the login page (optionally in the dark theme); answers the token the client stored. */
async function signIn(page: Page, email: string, dark = false, password = 'Admin@123'): Promise<string> {
  await page.goto('/login');
  await page.evaluate((d) => localStorage.setItem('preferredTheme', d ? 'dark' : 'light'), dark);
  await page.locator('input[name="email"]').fill(email);
  await page.locator('input[name="password"]').fill(password);
  await page.getByTestId('login-submit').click();
  await page.getByTestId('greeting').waitFor(LONG);
  return page.evaluate(() => JSON.parse(localStorage.getItem('token') ?? '""') as string);
}

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

/** Let transitions finish and tooltips go before a screenshot. */
async function settle(page: Page) {
  await page.mouse.move(1, 1);
  await page.waitForTimeout(450);
}

test('prompts: create one on the screen, see it in the table, choose it in a queue, kept after a reload', async () => {
  // A second admin follows the dark-theme part live (a second login of one user would end the first's session).
  const secondEmail = `prompts-b-${stamp}@e2e.local`;
  const adminEmail = await createCompany('Prompts', PLAN_WITH_AI, stamp, undefined, [
    { name: 'Beto Prompts', email: secondEmail, password: 'User@1234', profile: 'admin' },
  ]);
  const page = await newPage(browser);
  try {
    const token = await signIn(page, adminEmail);
    const call = api(page, token);
    const queueName = `Vendas IA ${stamp}`;
    const queue = await call<{ id: number }>('POST', '/queue', { name: queueName, color: '#1976D2' });

    await page.goto('/prompts');
    await page.getByRole('heading', { name: 'Prompts' }).waitFor(LONG);
    await page.getByTestId('prompt-add').click();
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('heading', { name: 'Adicionar prompt' }).waitFor(LONG);
    // docs/automation.md defaults.
    assert.equal(await dialog.locator('input[data-field="model"]').inputValue(), 'gpt-3.5-turbo-1106');
    assert.equal(await dialog.locator('input[data-field="maxTokens"]').inputValue(), '100');
    assert.equal(await dialog.locator('input[data-field="temperature"]').inputValue(), '1');
    assert.equal(await dialog.locator('input[data-field="maxMessages"]').inputValue(), '10');

    // docs/automation.md: a short name, a short prompt and no queue are refused on the form.
    await dialog.locator('input[data-field="name"]').fill('Abc');
    await dialog.locator('textarea[data-field="prompt"]').fill('Curto');
    await dialog.locator('input[data-field="apiKey"]').fill(API_KEY);
    await dialog.getByRole('button', { name: 'Salvar', exact: true }).click();
    await dialog.getByText('Muito curto').first().waitFor(LONG);
    await dialog.getByText('Escolha uma fila.').waitFor(LONG);
    assert.equal(await dialog.getByText('Muito curto').count(), 2);

    const promptName = `Assistente ${stamp}`;
    await dialog.locator('input[data-field="name"]').fill(promptName);
    await dialog
      .locator('textarea[data-field="prompt"]')
      .fill(
        'Você é o assistente de vendas da empresa. Responda com educação, sempre em português e de forma breve.',
      );
    await dialog.getByRole('combobox', { name: 'Fila' }).click();
    await page.getByRole('option', { name: queueName }).click();
    await dialog.getByRole('combobox', { name: 'Modelo' }).click();
    await page.getByRole('option', { name: 'gpt-4o-mini' }).click();
    await dialog.locator('input[data-field="maxTokens"]').fill('250');
    await dialog.locator('input[data-field="temperature"]').fill('0.7');
    await settle(page);
    await screenshot(page, 'prompts-dialog-light');
    await dialog.getByRole('button', { name: 'Salvar', exact: true }).click();
    await toast(page, 'Prompt salvo com sucesso.').waitFor(LONG);
    await dialog.waitFor({ state: 'hidden', ...LONG });

    const row = page.getByTestId('prompt-row').filter({ hasText: promptName });
    await row.waitFor(LONG);
    assert.equal((await row.getByTestId('prompt-queue').innerText()).trim(), queueName);
    assert.ok((await row.innerText()).includes('250'));
    await settle(page);
    await screenshot(page, 'prompts-light');

    // The key went to the server and never comes back in clear.
    const { prompts } = await call<{
      prompts: { id: number; name: string; apiKey: string; temperature: number }[];
    }>('GET', '/prompt');
    const saved = prompts.find((p) => p.name === promptName);
    assert.ok(saved, 'the prompt is stored');
    assert.notEqual(saved.apiKey, API_KEY);
    assert.ok(Math.abs(saved.temperature - 0.7) < 1e-6);

    // ---- choose it in the queue's dialog ----
    await page.goto('/queues');
    const queueRow = page.getByTestId('queue-row').filter({ hasText: queueName });
    await queueRow.waitFor(LONG);
    await queueRow.getByRole('button', { name: 'Editar' }).click();
    const qDialog = page.getByRole('dialog');
    await qDialog.getByRole('combobox', { name: 'Prompt' }).click();
    await page.getByRole('option', { name: promptName }).click();
    await qDialog.getByRole('button', { name: 'Salvar', exact: true }).click();
    await qDialog.waitFor({ state: 'hidden', ...LONG });
    const stored = await call<{ promptId: number | null }>('GET', `/queue/${queue.id}`);
    assert.equal(stored.promptId, saved.id);

    // ---- reload: the choice is kept ----
    await page.reload();
    await queueRow.waitFor(LONG);
    await queueRow.getByRole('button', { name: 'Editar' }).click();
    await qDialog.getByRole('combobox', { name: 'Prompt' }).filter({ hasText: promptName }).waitFor(LONG);
    await qDialog.getByRole('combobox', { name: 'Prompt' }).scrollIntoViewIfNeeded();
    await settle(page);
    await screenshot(page, 'prompts-queue-dialog-light');
    await qDialog.getByRole('button', { name: 'Cancelar' }).click();
    await qDialog.waitFor({ state: 'hidden', ...LONG });

    // ---- the edit dialog shows the key masked; saving keeps it ----
    await page.goto('/prompts');
    await row.waitFor(LONG);
    await row.getByRole('button', { name: 'Editar' }).click();
    await dialog.getByRole('heading', { name: 'Editar prompt' }).waitFor(LONG);
    assert.notEqual(await dialog.locator('input[data-field="apiKey"]').inputValue(), API_KEY);
    assert.equal(await dialog.locator('input[data-field="maxTokens"]').inputValue(), '250');
  } finally {
    await page.context().close();
  }

  // ---- the dark theme, on a page of its own; a second page follows live ----
  const dark = await newPage(browser);
  const second = await newPage(browser);
  try {
    const token = await signIn(dark, adminEmail, true);
    await signIn(second, secondEmail, false, 'User@1234');
    await dark.goto('/prompts');
    await second.goto('/prompts');
    const row = (p: Page) => p.getByTestId('prompt-row').filter({ hasText: `Assistente ${stamp}` });
    await row(dark).waitFor(LONG);
    await row(second).waitFor(LONG);
    await settle(dark);
    await screenshot(dark, 'prompts-dark');
    await row(dark).getByRole('button', { name: 'Editar' }).click();
    const dialog = dark.getByRole('dialog');
    await dialog.getByRole('heading', { name: 'Editar prompt' }).waitFor(LONG);
    const renamed = `Assistente renomeado ${stamp}`;
    await dialog.locator('input[data-field="name"]').fill(renamed);
    await settle(dark);
    await screenshot(dark, 'prompts-dialog-dark');
    await dialog.getByRole('button', { name: 'Salvar', exact: true }).click();
    await dialog.waitFor({ state: 'hidden', ...LONG });
    // The other page hears the change without reloading.
    await second.getByTestId('prompt-row').filter({ hasText: renamed }).waitFor(LONG);
    // The key was kept (the mask was sent back): the stored prompt still has one.
    const call = api(dark, token);
    const { prompts } = await call<{ prompts: { name: string; apiKey: string }[] }>('GET', '/prompt');
    assert.ok(prompts.some((p) => p.name === renamed && p.apiKey.length > 0));

    // Delete with confirmation; the second page follows.
    await dark
      .getByTestId('prompt-row')
      .filter({ hasText: renamed })
      .getByRole('button', { name: 'Excluir' })
      .click();
    await dark.getByRole('dialog').getByRole('button', { name: 'Excluir' }).click();
    await toast(dark, 'Prompt excluído.').waitFor(LONG);
    await second
      .getByTestId('prompt-row')
      .filter({ hasText: renamed })
      .waitFor({ state: 'detached', ...LONG });
  } finally {
    await dark.context().close();
    await second.context().close();
  }
});

test('prompts: a company whose plan has no useOpenAi is sent back to / with an error', async () => {
  const adminEmail = await company('NoPrompts', PLAN_WITHOUT_AI);
  const page = await newPage(browser);
  try {
    await signIn(page, adminEmail);
    await page.goto('/prompts');
    await toast(page, 'Esta empresa não possui permissão para acessar essa página!').waitFor(LONG);
    await page.waitForURL((url) => url.pathname === '/', LONG);
    assert.equal(await page.getByTestId('prompt-add').count(), 0);
  } finally {
    await page.context().close();
  }
});

test('prompts: the dialog explains the hand-off line, takes a free model name with a base URL, and its test button runs one exchange', async () => {
  const adminEmail = await company('PromptTest', PLAN_WITH_AI);
  for (const dark of [false, true]) {
    const page = await newPage(browser, { width: 500, height: 900 });
    try {
      const token = await signIn(page, adminEmail, dark);
      const call = api(page, token);
      const queueName = `Teste IA ${dark ? 'escuro' : 'claro'} ${stamp}`;
      await call('POST', '/queue', { name: queueName, color: dark ? '#00897B' : '#5E35B1' });
      await page.goto('/prompts');
      await page.getByTestId('prompt-add').click();
      const dialog = page.getByRole('dialog');
      await dialog.getByRole('heading', { name: 'Adicionar prompt' }).waitFor(LONG);
      // The hand-off line is explained with the exact text to use.
      const help = dialog.getByTestId('prompt-handoff-help');
      await help.getByText('Ação: Transferir para o setor de atendimento').waitFor(LONG);
      assert.match(await help.innerText(), /não é enviada ao cliente/);

      const promptName = `Assistente teste ${dark ? 'b' : 'a'} ${stamp}`;
      await dialog.locator('input[data-field="name"]').fill(promptName);
      await dialog
        .locator('textarea[data-field="prompt"]')
        .fill('Você é o assistente da loja. Responda em português, com educação, em no máximo duas frases.');
      const revoked = `sk-e2e-revoked-${stamp}`;
      openai.state.invalidKeys.add(revoked);
      await dialog.locator('input[data-field="apiKey"]').fill(revoked);

      // A refused key: a clear error with the provider's status, in the dialog.
      await dialog.getByTestId('prompt-test-button').click();
      const error = dialog.getByTestId('prompt-test-error');
      await error.waitFor(LONG);
      assert.match(await error.innerText(), /recusou o teste.*401 invalid_api_key/s);

      // A good key: the model's answer to the test message.
      await dialog.locator('input[data-field="apiKey"]').fill(`sk-e2e-good-${stamp}`);
      await dialog.locator('input[data-field="testMessage"]').fill('Vocês entregam no sábado?');
      const before = openai.completions.length;
      await dialog.getByTestId('prompt-test-button').click();
      const reply = dialog.getByTestId('prompt-test-reply');
      await reply.getByText('Eco: Vocês entregam no sábado?').waitFor(LONG);
      assert.equal(openai.completions.length, before + 1);
      assert.equal(openai.completions.at(-1)!.body.messages[0]!.role, 'system');
      await reply.scrollIntoViewIfNeeded();
      await settle(page);
      await screenshot(page, `prompts-test-${dark ? 'dark' : 'light'}-500`);

      // A model of another server: refused without a base URL, kept with one.
      await dialog.getByRole('combobox', { name: 'Fila' }).click();
      await page.getByRole('option', { name: queueName }).click();
      await dialog.locator('input[data-field="model"]').fill('llama3.1:8b');
      await dialog.getByRole('button', { name: 'Salvar', exact: true }).click();
      await dialog.getByText('Este modelo não é da OpenAI').waitFor(LONG);
      await dialog.locator('input[data-field="baseUrl"]').fill('https://openrouter.ai/api/v1');
      await dialog.getByRole('button', { name: 'Salvar', exact: true }).click();
      await toast(page, 'Prompt salvo com sucesso.').waitFor(LONG);
      const { prompts } = await call<{ prompts: { name: string; model: string; baseUrl: string }[] }>(
        'GET',
        '/prompt',
      );
      assert.deepEqual(
        prompts.filter((p) => p.name === promptName).map((p) => [p.model, p.baseUrl]),
        [['llama3.1:8b', 'https://openrouter.ai/api/v1']],
      );
    } finally {
      await page.context().close();
    }
  }
});
