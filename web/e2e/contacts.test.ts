import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import type { Browser, Page } from 'playwright-core';
import { DEMO_ADMIN, launch, newPage, screenshot } from './browser.js';

let browser: Browser;
before(async () => {
  browser = await launch();
});
after(async () => {
  await browser.close();
});

/** Signs in as the demo admin through the API and stores the token as the client does. */
async function signIn(page: Page): Promise<string> {
  await page.goto('/login');
  const res = await page.request.post('/api/auth/login', { data: DEMO_ADMIN });
  assert.equal(res.status(), 200);
  const { token } = (await res.json()) as { token: string };
  await page.evaluate((tk) => localStorage.setItem('token', JSON.stringify(tk)), token);
  return token;
}

/** Let transitions finish and tooltips go before a screenshot. */
async function settle(page: Page) {
  await page.mouse.move(1, 1);
  await page.waitForTimeout(450);
}

const stamp = Date.now().toString(36);
/** Brazilian mobiles unique to this run: (DD) 9XXXX-XXXX. */
const suffix = String(Date.now() % 10_000).padStart(4, '0');
const mobile = (ddd: number, mid: number) => `(${ddd}) 98${String(mid).padStart(3, '0')}-${suffix}`;
const canonical = (typed: string) => `55${typed.replace(/\D/g, '')}`;

async function writeXlsx(dir: string, rows: (string | number)[][]): Promise<string> {
  const workbook = new ExcelJS.Workbook();
  const sheet = workbook.addWorksheet('Contatos');
  rows.forEach((r) => sheet.addRow(r));
  const file = join(dir, 'contatos-importar.xlsx');
  await workbook.xlsx.writeFile(file);
  return file;
}

test('contacts: add, search, edit, import a spreadsheet and the address book, export CSV, delete', async () => {
  const page = await newPage(browser);
  const dir = mkdtempSync(join(tmpdir(), 'recado-contacts-e2e-'));
  try {
    const token = await signIn(page);
    const auth = { authorization: `Bearer ${token}` };
    await page.goto('/contacts');
    await page.getByRole('heading', { name: 'Contatos' }).waitFor();
    const rows = page.getByTestId('contact-row');
    const rowOf = (name: string) => rows.filter({ hasText: name });

    // ---- add, with extra information ----
    const name = `Maria E2E ${stamp}`;
    const number = mobile(11, 101);
    await page.getByRole('button', { name: 'Adicionar contato' }).click();
    let dialog = page.getByRole('dialog');
    await dialog.getByRole('heading', { name: 'Novo contato' }).waitFor();
    // Validation first: a short name and a 7-digit number are refused in the form.
    await dialog.getByLabel('Nome').fill('M');
    await dialog.getByLabel('Número').fill('9888777');
    await dialog.getByLabel('E-mail').fill('maria@');
    await dialog.getByRole('button', { name: 'Salvar' }).click();
    await dialog.getByText('Número inválido: use só dígitos, com pelo menos 8.').waitFor();
    await dialog.getByText('E-mail inválido').waitFor();
    await settle(page);
    await screenshot(page, 'contacts-dialog-errors');
    await dialog.getByLabel('Nome').fill(name);
    await dialog.getByLabel('Número').fill(number);
    await dialog.getByLabel('E-mail').fill('Maria.E2E@Example.com');
    await dialog.getByRole('button', { name: 'Adicionar', exact: true }).click();
    await dialog.getByLabel('Campo').fill('CPF');
    await dialog.getByLabel('Valor').fill('123.456.789-09');
    await settle(page);
    await screenshot(page, 'contacts-dialog-new');
    await dialog.getByRole('button', { name: 'Salvar' }).click();
    await dialog.waitFor({ state: 'detached' });
    await page.getByText('Contato salvo com sucesso.').waitFor();
    const row = rowOf(name);
    await row.waitFor();
    assert.equal(await row.getByTestId('contact-number').innerText(), number);
    assert.match(await row.innerText(), /maria\.e2e@example\.com/);

    // The same person with another spelling of the number is refused on the number field.
    await page.getByRole('button', { name: 'Adicionar contato' }).click();
    dialog = page.getByRole('dialog');
    await dialog.getByLabel('Nome').fill('Maria de novo');
    await dialog.getByLabel('Número').fill(canonical(number).replace(/^(\d{4})9/, '$1'));
    await dialog.getByRole('button', { name: 'Salvar' }).click();
    await dialog.getByText('Já existe um contato com este número.').first().waitFor();
    await dialog.getByRole('button', { name: 'Cancelar' }).click();
    await dialog.waitFor({ state: 'detached' });

    // ---- search: from 3 characters, by name or by number ----
    const search = page.getByRole('searchbox', { name: 'Pesquisar' });
    await search.fill(stamp);
    await page.waitForFunction(
      (n) => document.querySelectorAll('[data-testid="contact-row"]').length === n,
      1,
      { timeout: 5000 },
    );
    assert.equal(await rows.count(), 1);
    await search.fill(number.slice(-9)); // "8101-xxxx": digits typed with punctuation
    await rowOf(name).waitFor();
    assert.equal(await rows.count(), 1);
    await settle(page);
    await screenshot(page, 'contacts-search');

    // ---- edit: the number shows without 55; extra info is there ----
    await rowOf(name).getByRole('button', { name: 'Editar' }).click();
    dialog = page.getByRole('dialog');
    await dialog.getByRole('heading', { name: 'Editar contato' }).waitFor();
    assert.equal(await dialog.getByLabel('Número').inputValue(), canonical(number).slice(2));
    await dialog.getByLabel('Campo').waitFor();
    assert.equal(await dialog.getByLabel('Valor').inputValue(), '123.456.789-09');
    const edited = `${name} Souza`;
    await dialog.getByLabel('Nome').fill(edited);
    await dialog.getByRole('button', { name: 'Remover informação' }).click();
    await settle(page);
    await screenshot(page, 'contacts-dialog-edit');
    await dialog.getByRole('button', { name: 'Salvar' }).click();
    await dialog.waitFor({ state: 'detached' });
    await rowOf(edited).waitFor();
    const stored = (await (
      await page.request.get(`/api/contacts/${await contactIdByName(page, auth, edited)}`, { headers: auth })
    ).json()) as { extraInfo: unknown[]; number: string };
    assert.deepEqual(stored.extraInfo, []);
    assert.equal(stored.number, canonical(number));
    await search.fill('');

    // ---- import a spreadsheet: good rows in, bad ones reported ----
    const good1 = `Planilha Um ${stamp}`;
    const good2 = `Planilha Dois ${stamp}`;
    const file = await writeXlsx(dir, [
      ['Nome', 'Número', 'E-mail'],
      [good1, mobile(21, 201), 'um@planilha.test'],
      [good2, Number(canonical(mobile(21, 202))), ''],
      ['Curto', '9888777', ''],
      ['Repetida', number, ''],
      ['Sem e-mail válido', mobile(21, 203), 'nao-e-email'],
    ]);
    await page.getByRole('button', { name: 'Importar' }).click();
    const chooser = page.waitForEvent('filechooser');
    await page.getByRole('menuitem', { name: /De uma planilha/ }).click();
    await (await chooser).setFiles(file);
    const report = page.getByTestId('upload-report');
    await report.getByText('2 contato(s) criado(s). 3 linha(s) não foram importadas:').waitFor();
    const errorRows = report.getByTestId('upload-error-row');
    assert.equal(await errorRows.count(), 3);
    assert.match(await errorRows.nth(0).innerText(), /4\s+Curto\s+9888777\s+Número ausente ou inválido/);
    assert.match(await errorRows.nth(1).innerText(), /Repetida.*Já existe um contato com este número/s);
    assert.match(await errorRows.nth(2).innerText(), /E-mail inválido/);
    await settle(page);
    await screenshot(page, 'contacts-upload-report');
    await report.getByRole('button', { name: 'Fechar' }).click();
    await report.waitFor({ state: 'detached' });
    await rowOf(good1).waitFor();
    await rowOf(good2).waitFor();
    assert.equal(await rowOf(good2).getByTestId('contact-number').innerText(), mobile(21, 202));

    // ---- import from the default connection's address book (the demo's simulator) ----
    const connections = (await (await page.request.get('/api/whatsapp', { headers: auth })).json()) as {
      id: number;
      isDefault: boolean;
    }[];
    const sim = connections.find((c) => c.isDefault)!;
    const customer = `Cliente Agenda ${stamp}`;
    const customerNumber = canonical(mobile(31, 301));
    const inbound = await page.request.post(`/api/simulator/${sim.id}/inbound`, {
      headers: auth,
      data: { from: customerNumber, name: customer, body: 'Oi, tudo bem?' },
    });
    assert.equal(inbound.status(), 202);
    // The message made its contact; remove it so the address book has someone to bring back.
    const customerId = await waitForContact(page, auth, customer);
    assert.equal((await page.request.delete(`/api/contacts/${customerId}`, { headers: auth })).status(), 200);
    await rowOf(customer).waitFor({ state: 'detached' });
    await page.getByRole('button', { name: 'Importar' }).click();
    await page.getByRole('menuitem', { name: /Da agenda do WhatsApp/ }).click();
    const confirm = page.getByRole('dialog');
    await confirm.getByText('Importar contatos da agenda?').waitFor();
    await settle(page);
    await screenshot(page, 'contacts-import-confirm');
    await confirm.getByRole('button', { name: 'Importar' }).click();
    await page.getByText(/Importação concluída: \d+ novo\(s\)/).waitFor();
    await rowOf(customer).waitFor();
    await settle(page);
    await screenshot(page, 'contacts-list');

    // ---- export: contatos.csv, ; separated, quoted where needed ----
    // #32.6 Built by the server, which records each export in the audit log with its actor.
    const exportsLogged = async () =>
      (
        (await (
          await page.request.get('/api/audit-log?action=export.contacts', { headers: auth })
        ).json()) as { entries: { actorEmail: string }[] }
      ).entries;
    const before = (await exportsLogged()).length;
    const downloading = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Exportar CSV' }).click();
    const download = await downloading;
    assert.equal(download.suggestedFilename(), 'contatos.csv');
    const csv = readFileSync((await download.path())!, 'utf8');
    const lines = csv.replace(/^\uFEFF/, '').split('\r\n');
    assert.equal(lines[0], 'Nome;Número;E-mail');
    assert.ok(lines.includes(`${edited};${canonical(number)};maria.e2e@example.com`), csv.slice(0, 500));
    assert.ok(lines.includes(`${good1};${canonical(mobile(21, 201))};um@planilha.test`));
    assert.ok(lines.some((l) => l.startsWith(`${customer};${customerNumber};`)));
    const logged = await exportsLogged();
    assert.equal(logged.length, before + 1);
    assert.equal(logged[0]!.actorEmail, DEMO_ADMIN.email);
    // A search that matches nobody: the server answers the header alone and the page says so.
    await search.fill(`ninguem ${stamp}`);
    await page.getByText('Nenhum registro encontrado.').waitFor();
    await page.getByRole('button', { name: 'Exportar CSV' }).click();
    await page.getByText('Não há contatos para exportar.').waitFor();
    assert.equal((await exportsLogged()).length, before + 2);
    await search.fill('');
    await rowOf(customer).waitFor();

    // ---- delete, after a confirmation ----
    await rowOf(good2).getByRole('button', { name: 'Excluir' }).click();
    const del = page.getByRole('dialog');
    await del.getByText(`Excluir ${good2}?`).waitFor();
    await settle(page);
    await screenshot(page, 'contacts-delete-confirm');
    await del.getByRole('button', { name: 'Excluir' }).click();
    await page.getByText('Contato excluído com sucesso.').waitFor();
    await rowOf(good2).waitFor({ state: 'detached' });

    // ---- a phone-sized screen ----
    await page.getByText('Contato excluído com sucesso.').waitFor({ state: 'detached', timeout: 8000 });
    await page.setViewportSize({ width: 390, height: 800 });
    await settle(page);
    await screenshot(page, 'contacts-mobile');
  } finally {
    await page.context().close();
  }
});

test('contacts: the attendant cannot delete', async () => {
  const page = await newPage(browser);
  try {
    await page.goto('/login');
    const res = await page.request.post('/api/auth/login', {
      data: { email: 'atendente@demo.local', password: 'Demo@1234' },
    });
    const { token } = (await res.json()) as { token: string };
    await page.evaluate((tk) => localStorage.setItem('token', JSON.stringify(tk)), token);
    await page.goto('/contacts');
    await page.getByTestId('contact-row').first().waitFor();
    assert.equal(
      await page.getByTestId('contact-row').first().getByRole('button', { name: 'Excluir' }).count(),
      0,
    );
    assert.equal(
      await page.getByTestId('contact-row').first().getByRole('button', { name: 'Editar' }).count(),
      1,
    );
  } finally {
    await page.context().close();
  }
});

async function contactIdByName(page: Page, auth: Record<string, string>, name: string): Promise<number> {
  const list = (await (await page.request.get('/api/contacts/list', { headers: auth })).json()) as {
    id: number;
    name: string;
  }[];
  const hit = list.find((c) => c.name === name);
  assert.ok(hit, `contact ${name}`);
  return hit.id;
}

async function waitForContact(page: Page, auth: Record<string, string>, name: string): Promise<number> {
  const end = Date.now() + 5000;
  for (;;) {
    const list = (await (await page.request.get('/api/contacts/list', { headers: auth })).json()) as {
      id: number;
      name: string;
    }[];
    const hit = list.find((c) => c.name === name);
    if (hit) return hit.id;
    if (Date.now() > end) throw new Error(`no contact ${name}`);
    await page.waitForTimeout(100);
  }
}
