import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import ExcelJS from 'exceljs';
import type { Browser, Page } from 'playwright-core';
import {
  COMPANY_ADMIN_PASSWORD,
  DEMO_ADMIN,
  apiLogin,
  createCompany,
  launch,
  newPage,
  screenshot,
} from './browser.js';

let browser: Browser;
before(async () => {
  browser = await launch();
});
after(async () => {
  await browser.close();
});

/** Signs in as the demo admin through the API and stores the token as the client does. */
async function signIn(page: Page, theme: 'light' | 'dark' = 'light'): Promise<string> {
  await page.goto('/login');
  const res = await page.request.post('/api/auth/login', { data: DEMO_ADMIN });
  assert.equal(res.status(), 200);
  const { token } = (await res.json()) as { token: string };
  await page.evaluate(
    ([tk, th]) => {
      localStorage.setItem('token', JSON.stringify(tk));
      localStorage.setItem('preferredTheme', th!);
    },
    [token, theme],
  );
  return token;
}

/** Let transitions finish and tooltips go before a screenshot. */
async function settle(page: Page) {
  await page.mouse.move(1, 1);
  await page.waitForTimeout(450);
}

const stamp = Date.now().toString(36);
/** Mobiles unique to this run: (DD) 97XXX-NNNN. */
const suffix = String(Date.now() % 10_000).padStart(4, '0');
const mobile = (ddd: number, mid: number) => `(${ddd}) 97${String(mid).padStart(3, '0')}-${suffix}`;

async function xlsx(rows: (string | number | null)[][]): Promise<Buffer> {
  const workbook = new ExcelJS.Workbook();
  const sheet = workbook.addWorksheet('Lista');
  rows.forEach((r) => sheet.addRow(r));
  return Buffer.from(await workbook.xlsx.writeBuffer());
}

test('contact lists: create a list, import an .xlsx, see the items and the rejected rows', async () => {
  const page = await newPage(browser);
  await signIn(page);
  await page.goto('/contact-lists');
  await page.getByRole('heading', { name: 'Listas de contatos' }).waitFor({ timeout: 30_000 });

  // ---- create a list (the form refuses a one-letter name first) ----
  const listName = `Clientes E2E ${stamp}`;
  await page.getByTestId('contact-list-add').click();
  const dialog = page.getByRole('dialog');
  await dialog.getByRole('heading', { name: 'Nova lista de contatos' }).waitFor();
  await dialog.getByLabel('Nome').fill('C');
  await dialog.getByRole('button', { name: 'Salvar' }).click();
  await dialog.getByText('Muito curto').waitFor();
  await dialog.getByLabel('Nome').fill(listName);
  await dialog.getByRole('button', { name: 'Salvar' }).click();
  await dialog.waitFor({ state: 'hidden', timeout: 15_000 });
  const row = page.getByTestId('contact-list-row').filter({ hasText: listName });
  await row.waitFor({ timeout: 15_000 });
  assert.equal(await row.getByTestId('contacts-count').innerText(), '0');

  // ---- open it and import a spreadsheet with good and bad rows ----
  await row.getByRole('link', { name: listName }).click();
  await page.getByTestId('contact-list-title').filter({ hasText: listName }).waitFor({ timeout: 15_000 });
  const file = await xlsx([
    ['Nome', 'Número', 'E-mail'],
    [`Ana Lista ${stamp}`, mobile(11, 201), 'ana@example.com'],
    [`Bruno Lista ${stamp}`, mobile(21, 202), ''],
    ['X', mobile(31, 203), ''],
    [`Carla Lista ${stamp}`, '123', ''],
    [`Davi Lista ${stamp}`, mobile(41, 204), 'davi@'],
    [`Ana Repetida ${stamp}`, mobile(11, 201), ''],
  ]);
  await page.getByTestId('contact-list-upload-input').setInputFiles({
    name: 'lista.xlsx',
    mimeType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
    buffer: file,
  });
  const report = page.getByTestId('list-upload-report');
  await report.waitFor({ timeout: 30_000 });
  await report
    .getByTestId('list-upload-summary')
    .getByText('2 adicionado(s), 0 atualizado(s), 0 sem alteração, 4 linha(s) recusada(s).')
    .waitFor();
  const bad = report.getByTestId('list-upload-error-row');
  assert.equal(await bad.count(), 4);
  const badText = await bad.allInnerTexts();
  assert.match(badText[0]!, /^4\s+X\s+.*Nome ausente ou inválido/s);
  assert.match(badText[1]!, /^5\s+Carla Lista.*123.*Número ausente ou inválido/s);
  assert.match(badText[2]!, /^6\s+Davi Lista.*E-mail inválido/s);
  assert.match(badText[3]!, /^7\s+Ana Repetida.*Número repetido na planilha/s);
  await settle(page);
  await screenshot(page, 'contact-list-upload-report');
  await report.getByRole('button', { name: 'Fechar' }).click();
  await report.waitFor({ state: 'hidden' });
  // The same sheet again changes nothing: its two good rows are reported unchanged, not updated.
  await page.getByTestId('contact-list-upload-input').setInputFiles({
    name: 'lista.xlsx',
    mimeType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
    buffer: file,
  });
  await report
    .getByTestId('list-upload-summary')
    .getByText('0 adicionado(s), 0 atualizado(s), 2 sem alteração, 4 linha(s) recusada(s).')
    .waitFor({ timeout: 30_000 });
  await report.getByRole('button', { name: 'Fechar' }).click();
  await report.waitFor({ state: 'hidden' });

  // ---- the items are listed; the demo's simulator connection checks their numbers in the background ----
  const items = page.getByTestId('contact-list-item-row');
  const ana = items.filter({ hasText: `Ana Lista ${stamp}` });
  const bruno = items.filter({ hasText: `Bruno Lista ${stamp}` });
  await ana.waitFor({ timeout: 15_000 });
  await bruno.waitFor();
  assert.equal(await items.count(), 2);
  assert.match(await ana.innerText(), new RegExp(`\\(11\\) 97201-${suffix}[\\s\\S]*ana@example.com`));
  await page.getByRole('heading', { level: 1 }).getByText('(2)').waitFor({ timeout: 15_000 });
  await ana.locator('[data-valid="true"]').waitFor({ timeout: 30_000 });
  await bruno.locator('[data-valid="true"]').waitFor({ timeout: 30_000 });

  // ---- add one by hand, search, then back to the lists with the new count ----
  await page.getByTestId('contact-list-item-add').click();
  await dialog.getByRole('heading', { name: 'Novo contato da lista' }).waitFor();
  await dialog.getByLabel('Nome').fill(`Eva Manual ${stamp}`);
  await dialog.getByLabel('Número').fill(mobile(51, 205));
  await dialog.getByRole('button', { name: 'Salvar' }).click();
  await dialog.waitFor({ state: 'hidden', timeout: 15_000 });
  await items.filter({ hasText: `Eva Manual ${stamp}` }).waitFor({ timeout: 15_000 });
  await page.getByRole('searchbox', { name: 'Pesquisar' }).fill('bruno');
  await page.waitForFunction(
    () => document.querySelectorAll('[data-testid="contact-list-item-row"]').length === 1,
    undefined,
    { timeout: 15_000 },
  );
  await page.getByRole('searchbox', { name: 'Pesquisar' }).fill('');
  await page.waitForFunction(
    () => document.querySelectorAll('[data-testid="contact-list-item-row"]').length === 3,
    undefined,
    { timeout: 15_000 },
  );
  await settle(page);
  await screenshot(page, 'contact-list-items');

  await page.evaluate(() => localStorage.setItem('preferredTheme', 'dark'));
  await page.reload();
  await items.filter({ hasText: `Ana Lista ${stamp}` }).waitFor({ timeout: 30_000 });
  await settle(page);
  await screenshot(page, 'contact-list-items-dark');

  await page.getByRole('link', { name: 'Voltar às listas' }).click();
  await row.getByTestId('contacts-count').filter({ hasText: '3' }).waitFor({ timeout: 15_000 });
  await settle(page);
  await screenshot(page, 'contact-lists-dark');
  await page.context().close();
});

test('file lists and campaign settings: save, reload, see them kept (light and dark)', async () => {
  const page = await newPage(browser);
  await signIn(page);

  // ---- a file list with one option holding an image ----
  await page.goto('/files');
  await page.getByRole('heading', { name: 'Listas de arquivos' }).waitFor({ timeout: 30_000 });
  const name = `Catálogo E2E ${stamp}`;
  await page.getByTestId('file-list-add').click();
  const dialog = page.getByRole('dialog');
  await dialog.locator('[data-field="name"]').fill(name);
  await dialog.getByLabel('Mensagem').fill('Confira nosso catálogo');
  await dialog.getByTestId('file-option-add').click();
  await dialog.getByLabel('Nome do arquivo 1').fill('Foto do produto');
  await dialog.getByRole('button', { name: 'Escolher arquivo' }).click();
  const png = Buffer.from(
    'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
    'base64',
  );
  await dialog
    .getByTestId('file-option-input')
    .setInputFiles({ name: 'produto.png', mimeType: 'image/png', buffer: png });
  await dialog.getByTestId('file-option-file').filter({ hasText: 'produto.png · imagem' }).waitFor();
  await settle(page);
  await screenshot(page, 'file-list-dialog');
  await dialog.getByRole('button', { name: 'Salvar' }).click();
  await dialog.waitFor({ state: 'hidden', timeout: 15_000 });
  const row = page.getByTestId('file-list-row').filter({ hasText: name });
  await row.waitFor({ timeout: 15_000 });
  await row.getByText('Foto do produto').waitFor();
  await page.reload();
  await row.waitFor({ timeout: 30_000 });
  await row.getByRole('button', { name: 'Editar' }).click();
  await dialog
    .getByTestId('file-option-file')
    .filter({ hasText: 'produto.png · imagem' })
    .waitFor({ timeout: 15_000 });
  await dialog.getByRole('button', { name: 'Cancelar' }).click();
  await dialog.waitFor({ state: 'hidden' });
  await settle(page);
  await screenshot(page, 'files');

  // ---- campaign settings: an interval and a variable ----
  await page.goto('/campaigns-config');
  await page.getByRole('heading', { name: 'Configurações de campanhas' }).waitFor({ timeout: 30_000 });
  await page.getByLabel('Intervalo aleatório de disparo').click();
  await page.getByRole('option', { name: '10 segundos' }).click();
  const shortcut = `loja${stamp}`;
  await page.getByLabel('Atalho').fill(shortcut);
  await page.getByLabel('Conteúdo').fill('Loja do Centro');
  await page.getByRole('button', { name: 'Adicionar', exact: true }).click();
  await page
    .getByTestId('campaign-variable-row')
    .filter({ hasText: `{${shortcut}}` })
    .waitFor();
  // The same shortcut again is not added.
  await page.getByLabel('Atalho').fill(shortcut.toUpperCase());
  await page.getByLabel('Conteúdo').fill('Outra');
  await page.getByRole('button', { name: 'Adicionar', exact: true }).click();
  await page.getByText('Este atalho já existe').waitFor();
  await page.getByTestId('campaign-settings-save').click();
  await page.getByText('Configurações de campanhas salvas.').waitFor({ timeout: 15_000 });
  await page.evaluate(() => localStorage.setItem('preferredTheme', 'dark'));
  await page.reload();
  await page
    .getByTestId('campaign-variable-row')
    .filter({ hasText: 'Loja do Centro' })
    .waitFor({ timeout: 30_000 });
  assert.equal(await page.getByLabel('Intervalo aleatório de disparo').innerText(), '10 segundos');
  await settle(page);
  await screenshot(page, 'campaign-settings-dark');
  await page.goto('/files');
  await page.getByTestId('file-list-row').filter({ hasText: name }).waitFor({ timeout: 30_000 });
  await settle(page);
  await screenshot(page, 'files-dark');
  await page.context().close();
});

test('a company whose plan has no campaigns sees neither the menu entries nor the pages', async () => {
  const page = await newPage(browser);
  await page.goto('/login');
  // Plan 1 (Bronze) has no campaigns.
  const email = await createCompany('Bronze', 1, stamp, 'Bruna Bronze');
  const token = await apiLogin(email, COMPANY_ADMIN_PASSWORD);
  await page.evaluate((tk) => localStorage.setItem('token', JSON.stringify(tk)), token);
  const api = await page.request.get('/api/contact-lists', { headers: { authorization: `Bearer ${token}` } });
  assert.equal(api.status(), 403);
  assert.equal(((await api.json()) as { error: string }).error, 'ERR_NO_PERMISSION');
  for (const path of ['/contact-lists', '/contact-lists/1/contacts', '/campaigns-config']) {
    await page.goto(path);
    await page.waitForURL((url) => url.pathname === '/', { timeout: 30_000 });
  }
  await page.getByTestId('menu-files').waitFor({ timeout: 30_000 });
  assert.equal(await page.getByTestId('menu-campaigns').count(), 0);
  await page.context().close();
});
