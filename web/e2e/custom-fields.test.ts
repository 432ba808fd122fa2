import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  COMPANY_ADMIN_PASSWORD,
  companyAdmin,
  fileBrowser,
  pageApi,
  screenshot,
  signInPage,
} from './browser.js';

/**
 * #32.7 Custom fields: an admin defines a field on the custom fields screen (form kit), edits a contact's
 * fields in the contact dialog (typed inputs), and after a reload the values are still there; the contacts
 * list filters by a field. Light and dark themes, and a 500 px wide screen.
 */
const browser = fileBrowser();

const stamp = Date.now().toString(36);
const digits = String(Date.now() % 1_000_000).padStart(6, '0');

test('define a field, edit it on a contact, see it after a reload, filter the list by it', async () => {
  const { email: adminEmail, admin } = await companyAdmin('Campos', 5, stamp);
  await admin.post('/custom-fields', {
    entity: 'contact',
    key: 'plano',
    label: 'Plano',
    type: 'list',
    options: ['ouro', 'prata'],
  });
  const ana = await admin.post<{ id: number }>('/contacts', {
    name: 'Ana Campos',
    number: `55119${digits}01`,
  });
  await admin.post('/contacts', { name: 'Beto Campos', number: `55119${digits}02` });

  const page = await browser.newPage();
  // One session per user: after the page's sign-in, API reads go through the page's session.
  const http = pageApi(page, await signInPage(page, { email: adminEmail, password: COMPANY_ADMIN_PASSWORD }));

  // ---- the definitions screen: a text field through the form kit ----
  await page.goto('/custom-fields');
  await page.getByRole('heading', { name: 'Campos personalizados' }).waitFor({ timeout: 30_000 });
  await page.getByTestId('custom-field-add').click();
  const dialog = page.getByRole('dialog');
  await dialog.getByTestId('cf-label').fill('Código do cliente');
  await dialog.getByTestId('cf-key').fill('codigo');
  await dialog.getByRole('button', { name: 'Salvar' }).click();
  await dialog.waitFor({ state: 'hidden', timeout: 15_000 });
  await page.locator('[data-testid="custom-field-row"][data-key="codigo"]').waitFor({ timeout: 15_000 });
  await screenshot(page, 'custom-fields-light');

  // ---- the contact dialog: typed inputs, saved ----
  await page.goto('/contacts');
  const row = page.getByTestId('contact-row').filter({ hasText: 'Ana Campos' });
  await row.waitFor({ timeout: 30_000 });
  await row.getByRole('button', { name: 'Editar' }).click();
  const edit = page.getByRole('dialog');
  const fields = edit.getByTestId('contact-custom-fields');
  await fields.waitFor({ timeout: 15_000 });
  await fields.getByTestId('cf-input-codigo').fill('C-123');
  await fields.getByRole('combobox').click();
  await page.getByRole('option', { name: 'ouro' }).click();
  await edit.getByRole('button', { name: 'Salvar' }).click();
  await edit.waitFor({ state: 'hidden', timeout: 15_000 });

  // ---- after a reload the values are there (read back from the server) ----
  await page.reload();
  await row.waitFor({ timeout: 30_000 });
  await row.getByRole('button', { name: 'Editar' }).click();
  const again = page.getByRole('dialog').getByTestId('contact-custom-fields');
  await again.waitFor({ timeout: 15_000 });
  await page.waitForFunction(
    () =>
      (document.querySelector('[data-testid="cf-input-codigo"]') as HTMLInputElement | null)?.value ===
      'C-123',
    undefined,
    { timeout: 15_000 },
  );
  assert.equal(await again.getByTestId('cf-input-plano').inputValue(), 'ouro');
  const stored = await http.get<{ customFields: Record<string, unknown> }>(`/contacts/${ana.id}`);
  assert.deepEqual(stored.customFields, { codigo: 'C-123', plano: 'ouro' });
  await page.keyboard.press('Escape');
  await page.getByRole('dialog').waitFor({ state: 'hidden' });

  // ---- the list's filter: Plano = ouro leaves Ana only ----
  await page.getByTestId('contact-cf-filter').click();
  const pop = page.getByRole('presentation').filter({ has: page.getByTestId('cf-filter-apply') });
  await pop.getByRole('combobox').first().click();
  await page.getByRole('option', { name: 'Plano' }).click();
  await pop.getByTestId('custom-fields-editor').getByRole('combobox').click();
  await page.getByRole('option', { name: 'ouro' }).click();
  await pop.getByTestId('cf-filter-apply').click();
  await page.getByTestId('contact-cf-filter-chip').waitFor();
  await page.getByTestId('contact-row').filter({ hasText: 'Beto Campos' }).waitFor({ state: 'detached' });
  assert.equal(await page.getByTestId('contact-row').count(), 1);

  // ---- dark theme, 500 px ----
  const narrow = await browser.newPage();
  await narrow.setViewportSize({ width: 500, height: 900 });
  await signInPage(
    narrow,
    { email: adminEmail, password: COMPANY_ADMIN_PASSWORD },
    { preferredTheme: 'dark' },
  );
  await narrow.goto('/custom-fields');
  await narrow.locator('[data-testid="custom-field-row"][data-key="plano"]').waitFor({ timeout: 30_000 });
  const overflow = await narrow.evaluate(() => document.documentElement.scrollWidth > window.innerWidth);
  assert.equal(overflow, false, 'no horizontal scroll at 500 px');
  await screenshot(narrow, 'custom-fields-dark-500');
  await narrow.close();
  await page.close();
});
