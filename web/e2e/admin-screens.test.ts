import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Locator, Page } from 'playwright-core';
import {
  BASE_URL,
  DEMO_ADMIN,
  DEMO_USER,
  SUPER_USER,
  launch,
  newPage,
  screenshot,
  typeDate,
} from './browser.js';

let browser: Browser;
before(async () => {
  browser = await launch();
});
after(async () => {
  await browser.close();
});

const stamp = Date.now().toString(36);
type Who = { email: string; password: string };

/** Through the login page when it has its form, else through the API with the token stored as the client does. */
async function login(page: Page, who: Who, prefs: Record<string, string> = {}) {
  await page.goto('/login');
  await page.evaluate((prefs) => {
    for (const [k, v] of Object.entries(prefs)) localStorage.setItem(k, v);
  }, prefs);
  const email = page.locator('input[name="email"]');
  const hasForm = await email
    .waitFor({ timeout: 5000 })
    .then(() => true)
    .catch(() => false);
  if (hasForm) {
    await email.fill(who.email);
    await page.locator('input[name="password"]').fill(who.password);
    await page.locator('input[name="password"]').press('Enter');
    await page.waitForURL((url) => url.pathname !== '/login');
    return;
  }
  const res = await page.request.post('/api/auth/login', { data: who });
  assert.equal(res.status(), 200, `login of ${who.email}`);
  const { token } = (await res.json()) as { token: string };
  await page.evaluate((token) => localStorage.setItem('token', JSON.stringify(token)), token);
}

async function apiToken(who: Who): Promise<string> {
  const res = await fetch(`${BASE_URL}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(who),
  });
  assert.equal(res.status, 200, `login of ${who.email}`);
  return ((await res.json()) as { token: string }).token;
}

/** Opens an MUI select by its label and picks an option. */
async function choose(scope: Page | Locator, page: Page, label: string | RegExp, option: string | RegExp) {
  await scope.getByRole('combobox', { name: label }).click();
  await page.getByRole('option', { name: option, exact: typeof option === 'string' }).click();
  await page.getByRole('listbox').waitFor({ state: 'detached' });
}

const toast = (page: Page, text: string) =>
  page.locator('#notistack-snackbar').filter({ hasText: text }).first();

test('admin: creates, edits and deletes a user; the list follows socket events', async () => {
  const page = await newPage(browser);
  const email = `e2e-user-${stamp}@demo.local`;
  try {
    await login(page, DEMO_ADMIN);
    let listCalls = 0;
    page.on('request', (r) => {
      if (new URL(r.url()).pathname === '/api/users/') listCalls++;
    });
    await page.goto('/users');
    const rows = page.getByTestId('user-row');
    await rows.filter({ hasText: 'admin@demo.local' }).waitFor();
    await rows.filter({ hasText: 'atendente@demo.local' }).waitFor();
    // The signed-in admin shows online; its own delete button is disabled.
    const me = rows.filter({ hasText: 'admin@demo.local' });
    assert.equal(await me.getByRole('button', { name: 'Excluir' }).isDisabled(), true);
    await page.mouse.move(5, 5);
    await screenshot(page, 'users-list');

    // The form refuses what docs/product.md#validation refuses.
    await page.getByRole('button', { name: 'Adicionar usuário' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByText('Adicionar usuário').waitFor();
    await dialog.getByRole('button', { name: 'Salvar' }).click();
    assert.ok((await dialog.getByText('Obrigatório').count()) >= 2);
    await dialog.locator('input[name="name"]').fill('E');
    await dialog.locator('input[name="email"]').fill('not-an-email');
    await dialog.locator('input[name="password"]').fill('123');
    await dialog.getByRole('button', { name: 'Salvar' }).click();
    await dialog.getByText('Muito curto').first().waitFor();
    await dialog.getByText('E-mail inválido').waitFor();

    await dialog.locator('input[name="name"]').fill(`Eva E2E ${stamp}`);
    await dialog.locator('input[name="email"]').fill(email);
    await dialog.locator('input[name="password"]').fill('Senha@123');
    await choose(dialog, page, /Perfil/, 'Supervisor');
    await choose(dialog, page, /Ver atendimentos pendentes/, 'Habilitado');
    await screenshot(page, 'user-dialog');
    await dialog.getByRole('button', { name: 'Salvar' }).click();
    await dialog.waitFor({ state: 'detached' });
    await toast(page, 'Usuário salvo com sucesso.').waitFor();
    const row = rows.filter({ hasText: email });
    await row.getByText(`Eva E2E ${stamp}`).waitFor();
    await row.getByText('Supervisor').waitFor();

    // A duplicate e-mail comes back as the server's translated error.
    await page.getByRole('button', { name: 'Adicionar usuário' }).click();
    await dialog.locator('input[name="name"]').fill('Outra Eva');
    await dialog.locator('input[name="email"]').fill(email);
    await dialog.locator('input[name="password"]').fill('Senha@123');
    await dialog.getByRole('button', { name: 'Salvar' }).click();
    await toast(page, 'Este e-mail já está cadastrado.').waitFor();
    await dialog.getByRole('button', { name: 'Cancelar' }).click();
    await dialog.waitFor({ state: 'detached' });

    // Edit: the password may stay empty.
    await row.getByRole('button', { name: 'Editar' }).click();
    await dialog.getByText('Editar usuário').waitFor();
    assert.equal(await dialog.locator('input[name="email"]').inputValue(), email);
    assert.equal(await dialog.locator('input[name="password"]').inputValue(), '');
    await dialog.locator('input[name="name"]').fill(`Eva Editada ${stamp}`);
    await choose(dialog, page, /Perfil/, 'Usuário');
    await dialog.getByRole('button', { name: 'Salvar' }).click();
    await dialog.waitFor({ state: 'detached' });
    await row.getByText(`Eva Editada ${stamp}`).waitFor();
    await row.getByText('Usuário', { exact: true }).waitFor();

    // Search (debounced) narrows the list, clearing it brings everyone back.
    await page.getByRole('searchbox', { name: 'Pesquisar' }).fill(`editada ${stamp}`);
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="user-row"]').length === 1);
    await page.getByRole('searchbox', { name: 'Pesquisar' }).fill('');
    await rows.filter({ hasText: 'atendente@demo.local' }).waitFor();

    // Another browser (here: the super user through the API) adds and removes a user of this company:
    // the rows follow the socket events, without fetching the list again.
    const companyId = Number(await page.evaluate(() => localStorage.getItem('companyId')));
    const superToken = await apiToken(SUPER_USER);
    const callsBefore = listCalls;
    const created = await fetch(`${BASE_URL}/api/users`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${superToken}` },
      body: JSON.stringify({
        name: `Aaron Ao Vivo ${stamp}`,
        email: `live-${stamp}@demo.local`,
        password: 'Senha@123',
        companyId,
      }),
    });
    assert.equal(created.status, 201);
    const live = (await created.json()) as { id: number };
    await rows.filter({ hasText: `live-${stamp}@demo.local` }).waitFor();
    // A delete made outside the page's query layer (a plain fetch with the page's own session).
    const status = await page.evaluate(async (id) => {
      const token = JSON.parse(localStorage.getItem('token') ?? '""') as string;
      const res = await fetch(`/api/users/${id}`, {
        method: 'DELETE',
        headers: { authorization: `Bearer ${token}` },
      });
      return res.status;
    }, live.id);
    assert.equal(status, 200);
    await rows.filter({ hasText: `live-${stamp}@demo.local` }).waitFor({ state: 'detached' });
    assert.equal(listCalls, callsBefore, 'socket events patch the cache, no refetch');

    // Delete, after confirming.
    await row.getByRole('button', { name: 'Excluir' }).click();
    const confirm = page.getByRole('dialog');
    await confirm.getByText(`Excluir Eva Editada ${stamp}?`).waitFor();
    await confirm.getByRole('button', { name: 'Excluir' }).click();
    await confirm.waitFor({ state: 'detached' });
    await row.waitFor({ state: 'detached' });
    await toast(page, 'Usuário excluído com sucesso.').waitFor();
  } finally {
    await page.close();
  }
});

test('users list in the dark theme, read-only for a non-admin', async () => {
  const page = await newPage(browser);
  try {
    await login(page, DEMO_ADMIN, { preferredTheme: 'dark' });
    await page.goto('/users');
    await page.getByTestId('user-row').first().waitFor();
    await page.mouse.move(5, 5);
    await screenshot(page, 'users-list-dark');
  } finally {
    await page.close();
  }
  const attendant = await newPage(browser);
  try {
    await login(attendant, DEMO_USER);
    await attendant.goto('/users');
    await attendant.getByTestId('user-row').filter({ hasText: 'admin@demo.local' }).waitFor();
    assert.equal(await attendant.getByRole('button', { name: 'Adicionar usuário' }).count(), 0);
    assert.equal(await attendant.getByTestId('user-row').getByRole('button', { name: 'Editar' }).count(), 0);
  } finally {
    await attendant.close();
  }
});

test('admin (not super): options and webhooks only, opening hours when the schedule type is "company"', async () => {
  const page = await newPage(browser);
  try {
    await login(page, DEMO_ADMIN);
    await page.goto('/settings');
    await page.getByRole('tab', { name: 'Opções' }).waitFor();
    await page.getByRole('combobox', { name: /Avaliações/ }).waitFor();
    // Options, outgoing webhooks and privacy (#35); the platform's tabs are the super user's.
    assert.deepEqual(await page.getByRole('tab').allTextContents(), ['Opções', 'Webhooks', 'Privacidade']);
    for (const name of ['Empresas', 'Planos', 'Ajuda'])
      assert.equal(await page.getByRole('tab', { name }).count(), 0, `${name} is for the super user`);
    // The gateway token is the super user's.
    assert.equal(await page.locator('input[name="asaas"]').count(), 0);
    // A tab asked for in the address falls back to options.
    await page.goto('/settings?tab=companies');
    await page.getByRole('combobox', { name: /Avaliações/ }).waitFor();
    assert.equal(await page.getByRole('tab', { name: 'Empresas' }).count(), 0);

    const saved = page.waitForResponse(
      (r) => r.url().endsWith('/api/settings/scheduleType') && r.request().method() === 'PUT',
    );
    await choose(page, page, /Gerenciamento de expediente/, 'Por empresa');
    assert.equal((await saved).status(), 200);
    await toast(page, 'Configuração salva.').waitFor();
    await page.mouse.move(5, 5);
    await screenshot(page, 'settings-options');

    await page.getByRole('tab', { name: 'Horários' }).click();
    const saturday = page.getByTestId('schedule-saturday');
    await saturday.getByText('Sábado').waitFor();
    assert.equal(await page.getByTestId('schedule-monday').getByLabel('Início').inputValue(), '08:00');
    assert.equal(await page.getByTestId('schedule-monday').getByLabel('Fim').inputValue(), '18:00');
    assert.equal(await saturday.getByLabel('Fim').inputValue(), '12:00');
    assert.equal(await page.getByTestId('schedule-sunday').getByLabel('Início').inputValue(), '00:00');
    // Typed digits take the ##:## shape; a wrong time is refused before it reaches the server.
    await saturday.getByLabel('Fim').fill('1330');
    assert.equal(await saturday.getByLabel('Fim').inputValue(), '13:30');
    await page.getByTestId('schedule-friday').getByLabel('Fim').fill('2599');
    await page.getByRole('button', { name: 'Salvar' }).click();
    await page.getByText('Use o formato ##:## (00:00 a 23:59).').waitFor();
    await page.getByTestId('schedule-friday').getByLabel('Fim').fill('1700');
    await page.getByRole('button', { name: 'Salvar' }).click();
    await toast(page, 'Horários salvos com sucesso.').waitFor();
    await screenshot(page, 'settings-schedules');

    await page.reload();
    await page.getByTestId('schedule-saturday').waitFor();
    assert.equal(await page.getByTestId('schedule-saturday').getByLabel('Fim').inputValue(), '13:30');
    assert.equal(await page.getByTestId('schedule-friday').getByLabel('Fim').inputValue(), '17:00');

    // Back to no opening-hours management: the tab goes away.
    await page.getByRole('tab', { name: 'Opções' }).click();
    await choose(page, page, /Gerenciamento de expediente/, 'Desabilitado');
    await page.getByRole('tab', { name: 'Horários' }).waitFor({ state: 'detached' });
  } finally {
    await page.close();
  }
});

test('super user: creates a plan, a company and a help on the settings tabs', async () => {
  const page = await newPage(browser);
  const plan = `Plano E2E ${stamp}`;
  const company = `Empresa E2E ${stamp}`;
  const help = `Ajuda E2E ${stamp}`;
  try {
    await login(page, SUPER_USER);
    await page.goto('/settings');
    for (const name of ['Opções', 'Empresas', 'Planos', 'Ajuda'])
      await page.getByRole('tab', { name }).waitFor();
    await page.locator('input[name="asaas"]').waitFor();

    // Plans.
    await page.getByRole('tab', { name: 'Planos' }).click();
    await page.getByTestId('plan-row').first().waitFor();
    await page.getByRole('button', { name: 'Adicionar plano' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.locator('input[name="name"]').fill(plan);
    await dialog.locator('input[name="users"]').fill('4');
    await dialog.locator('input[name="connections"]').fill('2');
    await dialog.locator('input[name="queues"]').fill('3');
    await dialog.locator('input[name="value"]').fill('149.9');
    await dialog.getByLabel('Kanban').uncheck();
    await dialog.getByRole('button', { name: 'Salvar' }).click();
    await dialog.waitFor({ state: 'detached' });
    const planRow = page.getByTestId('plan-row').filter({ hasText: plan });
    await planRow.waitFor();
    assert.match(await planRow.innerText(), /R\$\s149,90/);
    // Same name again: the server's code shows as a toast.
    await page.getByRole('button', { name: 'Adicionar plano' }).click();
    await dialog.locator('input[name="name"]').fill(plan);
    await dialog.getByRole('button', { name: 'Salvar' }).click();
    await toast(page, 'Já existe um plano com este nome.').waitFor();
    await dialog.getByRole('button', { name: 'Cancelar' }).click();
    await dialog.waitFor({ state: 'detached' });
    await screenshot(page, 'settings-plans');

    // Companies: created on that plan, due in 2 days (orange), with a first admin.
    await page.getByRole('tab', { name: 'Empresas' }).click();
    await page.getByTestId('company-row').first().waitFor();
    await page.getByRole('button', { name: 'Adicionar empresa' }).click();
    await dialog.locator('input[name="name"]').fill(company);
    await dialog.locator('input[name="email"]').fill(`empresa-${stamp}@e2e.local`);
    await dialog.locator('input[name="phone"]').fill('11988887777');
    await choose(dialog, page, /Plano/, plan);
    const due = new Date(Date.now() + 2 * 86400_000);
    const dueIso = `${due.getFullYear()}-${String(due.getMonth() + 1).padStart(2, '0')}-${String(due.getDate()).padStart(2, '0')}`;
    await typeDate(page, 'company-due-date', dueIso);
    await choose(dialog, page, /Recorrência/, 'Trimestral');
    await dialog.locator('input[name="adminName"]').fill('Admin E2E');
    await dialog.locator('input[name="adminPassword"]').fill('Admin@123');
    await screenshot(page, 'company-dialog');
    await dialog.getByRole('button', { name: 'Salvar' }).click();
    await dialog.waitFor({ state: 'detached' });
    const companyRow = page.getByTestId('company-row').filter({ hasText: company });
    await companyRow.waitFor();
    assert.equal(await companyRow.getAttribute('data-tone'), 'due');
    await page.mouse.move(5, 5);
    await screenshot(page, 'settings-companies');

    // The first admin can sign in.
    const adminLogin = await fetch(`${BASE_URL}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: `empresa-${stamp}@e2e.local`, password: 'Admin@123' }),
    });
    assert.equal(adminLogin.status, 200);

    // Expire: the due date moves one recurrence period (3 months) ahead, and the tint goes.
    await companyRow.getByRole('button', { name: 'Renovar vencimento' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Renovar vencimento' }).click();
    await toast(page, 'Vencimento renovado').waitFor();
    await page.waitForFunction(
      (name) =>
        [...document.querySelectorAll('[data-testid="company-row"]')]
          .find((r) => r.textContent?.includes(name))
          ?.getAttribute('data-tone') === 'none',
      company,
    );

    // Search.
    const search = page.getByRole('searchbox', { name: 'Pesquisar' });
    await search.fill(`e2e ${stamp}`);
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="company-row"]').length === 1);

    // Infinite scroll: 25 more companies (pages of 20) load as the list is scrolled to its end.
    const planId = await page.evaluate(async (name) => {
      const token = JSON.parse(localStorage.getItem('token') ?? '""') as string;
      const headers = { 'content-type': 'application/json', authorization: `Bearer ${token}` };
      const plans = (await (await fetch('/api/plans/all', { headers })).json()) as {
        id: number;
        name: string;
      }[];
      return plans.find((p) => p.name === name)!.id;
    }, plan);
    const statuses = await page.evaluate(
      async ({ planId, stamp }) => {
        const token = JSON.parse(localStorage.getItem('token') ?? '""') as string;
        const headers = { 'content-type': 'application/json', authorization: `Bearer ${token}` };
        const out: number[] = [];
        for (let i = 1; i <= 25; i++) {
          const name = `Lote ${stamp} ${String(i).padStart(2, '0')}`;
          const res = await fetch('/api/companies', {
            method: 'POST',
            headers,
            body: JSON.stringify({ name, planId }),
          });
          out.push(res.status);
        }
        return out;
      },
      { planId, stamp },
    );
    assert.deepEqual([...new Set(statuses)], [201]);
    await search.fill(`lote ${stamp}`);
    await page
      .getByTestId('company-row')
      .filter({ hasText: `Lote ${stamp} 20` })
      .waitFor();
    assert.equal(await page.getByTestId('company-row').count(), 20);
    await page.getByTestId('company-row').last().scrollIntoViewIfNeeded();
    await page
      .getByTestId('company-row')
      .filter({ hasText: `Lote ${stamp} 25` })
      .waitFor();
    assert.equal(await page.getByTestId('company-row').count(), 25);
    await search.fill(`e2e ${stamp}`);
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="company-row"]').length === 1);

    // The plan is now in use and cannot be deleted.
    await page.getByRole('tab', { name: 'Planos' }).click();
    await planRow.getByRole('button', { name: 'Excluir' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Excluir' }).click();
    await toast(page, 'Este plano está em uso por empresas.').waitFor();
    await page.getByRole('dialog').getByRole('button', { name: 'Cancelar' }).click();

    // Helps.
    await page.getByRole('tab', { name: 'Ajuda' }).click();
    await page.getByRole('button', { name: 'Adicionar ajuda' }).click();
    await dialog.locator('input[name="title"]').fill(help);
    await dialog.locator('input[name="video"]').fill('https://www.youtube.com/watch?v=dQw4w9WgXcQ');
    assert.equal(await dialog.locator('input[name="video"]').inputValue(), 'dQw4w9WgXcQ');
    await dialog.locator('textarea[name="description"]').fill('Como começar a usar o Recado.');
    await dialog.getByRole('button', { name: 'Salvar' }).click();
    await dialog.waitFor({ state: 'detached' });
    const helpRow = page.getByTestId('help-row').filter({ hasText: help });
    await helpRow.getByText('dQw4w9WgXcQ').waitFor();
    await screenshot(page, 'settings-helps');

    // Edit and delete the help, and delete the company.
    await helpRow.getByRole('button', { name: 'Editar' }).click();
    await dialog.locator('input[name="title"]').fill(`${help} (editada)`);
    await dialog.getByRole('button', { name: 'Salvar' }).click();
    await dialog.waitFor({ state: 'detached' });
    const edited = page.getByTestId('help-row').filter({ hasText: `${help} (editada)` });
    await edited.getByRole('button', { name: 'Excluir' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Excluir' }).click();
    await edited.waitFor({ state: 'detached' });

    await page.getByRole('tab', { name: 'Empresas' }).click();
    await companyRow.getByRole('button', { name: 'Excluir' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Excluir' }).click();
    await companyRow.waitFor({ state: 'detached' });
  } finally {
    await page.close();
  }
});
