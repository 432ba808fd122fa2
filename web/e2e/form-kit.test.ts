import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { BASE_URL, COMPANY_ADMIN_PASSWORD, apiLogin, createCompany, launch, newPage } from './browser.js';

/** The form kit (docs/web-resource-kit.md "Add/edit dialogs"), walked on the tag and quick-message dialogs. */
let browser: Browser;
before(async () => {
  browser = await launch();
});
after(async () => {
  await browser.close();
});

const stamp = Date.now().toString(36);
const LONG = { timeout: 30_000 };

test('form kit: zod errors in words, a server ERR_* on its field, save closes with its toast', async () => {
  const token = await apiLogin(await createCompany('FormKit', 3, stamp), COMPANY_ADMIN_PASSWORD);
  const taken = `Existente ${stamp}`;
  const res = await fetch(`${BASE_URL}/api/tags`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: taken, color: '#E57373' }),
  });
  assert.equal(res.status, 201, await res.text());
  const page = await newPage(browser);
  try {
    await page.goto('/login');
    await page.evaluate((tk) => localStorage.setItem('token', JSON.stringify(tk)), token);

    // Tags: empty, too short, taken (the server's ERR_TAG_ALREADY_EXISTS on the name), then saved.
    await page.goto('/tags');
    await page.getByTestId('tag-row').first().waitFor(LONG);
    await page.getByTestId('tag-add').click();
    const dialog = page.getByRole('dialog');
    const name = dialog.locator('input[data-field="name"]');
    const save = dialog.getByRole('button', { name: 'Salvar' });
    await name.fill('');
    await save.click();
    await dialog.getByText('Obrigatório').waitFor(LONG);
    await name.fill('ab');
    await save.click();
    await dialog.getByText('Mensagem muito curta').waitFor(LONG);
    await name.fill(taken);
    await save.click();
    await dialog.getByText('Já existe uma tag com este nome.').waitFor(LONG);
    assert.equal(await dialog.count(), 1, 'the dialog stays open on a refusal');
    await name.fill(`Nova ${stamp}`);
    await save.click();
    await page.locator('#notistack-snackbar').filter({ hasText: 'Tag salva com sucesso.' }).waitFor(LONG);
    await dialog.waitFor({ state: 'detached', ...LONG });
    await page
      .getByTestId('tag-row')
      .filter({ hasText: `Nova ${stamp}` })
      .waitFor(LONG);

    // Quick messages: a field's own text for a format error, the hint back once it is right.
    await page.goto('/quick-messages');
    await page.getByRole('button', { name: /Adicionar/ }).click();
    await page.getByTestId('qm-shortcode').fill('com espaço');
    await page.getByTestId('qm-message').fill('Olá');
    await dialog.getByRole('button', { name: 'Salvar' }).click();
    await dialog.getByText('O atalho não pode ter espaços').waitFor(LONG);
    await page.getByTestId('qm-shortcode').fill(`kit${stamp}`);
    await dialog.getByRole('button', { name: 'Salvar' }).click();
    await page.locator('#notistack-snackbar').filter({ hasText: 'Resposta rápida salva.' }).waitFor(LONG);
    await page
      .getByTestId('quick-message-row')
      .filter({ hasText: `/kit${stamp}` })
      .waitFor(LONG);
  } finally {
    await page.context().close();
  }
});
