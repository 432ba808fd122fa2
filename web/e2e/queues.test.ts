import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Locator, Page } from 'playwright-core';
import { DEMO_ADMIN, launch, newPage, PageApi, pageApi, screenshot } from './browser.js';

let browser: Browser;
before(async () => {
  browser = await launch();
});
after(async () => {
  await browser.close();
});

/** Signs in through the /login form; the token the client stored is returned for API checks. */
async function signIn(page: Page): Promise<string> {
  await page.goto('/login');
  await page.locator('input[name="email"]').fill(DEMO_ADMIN.email);
  await page.locator('input[name="password"]').fill(DEMO_ADMIN.password);
  await page.getByTestId('login-submit').click();
  await page.getByTestId('greeting').waitFor();
  return page.evaluate(() => JSON.parse(localStorage.getItem('token') ?? '""') as string);
}

// The browser's own token: a second login would end the browser's session (core: one session per user).

const toast = (page: Page, text: string) =>
  page.locator('#notistack-snackbar').filter({ hasText: text }).first();

/** Opens an MUI select by its label and picks options (a multiple select stays open: Escape closes it). */
async function choose(dialog: Locator, page: Page, label: RegExp, options: string[], multiple = false) {
  await dialog.getByRole('combobox', { name: label }).click();
  for (const name of options) await page.getByRole('option', { name, exact: true }).click();
  if (multiple) await page.keyboard.press('Escape');
  await page.getByRole('listbox').waitFor({ state: 'detached' });
}

interface QueueOption {
  id: number;
  parentId: number | null;
  title: string;
  option: string;
}

test('queues: create with a colour, schedules and a two-level option tree; duplicate colour refused; assigned to a user', async () => {
  const suffix = Date.now().toString(36).slice(-4);
  const name = `Financeiro ${suffix}`;
  const page = await newPage(browser);
  let http: PageApi | undefined;
  let scheduleType = 'disabled';
  try {
    const token = await signIn(page);
    http = pageApi(page, token);
    // Queue-level attendance time shows its tab.
    const settings = await http.get<{ key: string; value: string }[]>('/settings');
    scheduleType = settings.find((s) => s.key === 'scheduleType')?.value ?? 'disabled';
    await http.put('/settings/scheduleType', { value: 'queue' });

    // The demo's queues are listed with their colours.
    await page.goto('/queues');
    await page.getByRole('heading', { name: /Filas e chatbot/ }).waitFor();
    const rows = page.getByTestId('queue-row');
    await rows.filter({ hasText: 'Suporte' }).waitFor();
    await rows.filter({ hasText: 'Vendas' }).waitFor();
    const suporte = page.locator('[data-testid="queue-row"][data-name="Suporte"]');
    const suporteColor = (await suporte.getByTestId('queue-color').getAttribute('data-color'))!;
    assert.match(suporteColor, /^#[0-9A-F]{6}$/);
    await page.mouse.move(0, 0);
    await screenshot(page, 'queues-list');

    // Add: empty name refused by the form.
    await page.getByTestId('queue-add').click();
    const dialog = page.getByRole('dialog');
    await dialog.getByText('Adicionar fila').first().waitFor();
    await dialog.getByRole('button', { name: 'Salvar', exact: true }).click();
    assert.ok((await dialog.getByText('Obrigatório').count()) >= 1);
    await dialog.locator('[data-field="name"]').fill(name);
    await dialog.locator('[data-field="orderQueue"]').fill('3');
    await dialog.locator('[data-field="greetingMessage"]').fill('Olá! Você está no Financeiro.');
    await dialog.locator('[data-field="outOfHoursMessage"]').fill('O Financeiro atende das 9h às 18h.');
    // The colour Suporte already uses is marked in the palette, and refused by the server.
    const used = dialog.locator(`[data-testid="color-palette"] [data-color="${suporteColor}"]`);
    if ((await used.count()) > 0) {
      assert.equal(await used.getAttribute('data-used'), 'true');
      await used.click();
    } else await dialog.locator('[data-field="color"]').fill(suporteColor.toLowerCase());
    // The integration choice is a real select (its own test: queue-integrations.test.ts).
    assert.equal(await dialog.locator('[data-field="integrationId"]').count(), 1);
    await dialog.getByRole('button', { name: 'Salvar', exact: true }).click();
    await toast(page, 'Esta cor já é usada por outra fila.').waitFor();
    await dialog.getByText('Esta cor já é usada por outra fila.').first().waitFor();
    await page.mouse.move(0, 0);
    await screenshot(page, 'queue-dialog-duplicate-color');

    // A free palette colour.
    const free = dialog.locator('[data-testid="color-palette"] [role="radio"]:not([data-used])');
    const color = (await free.nth(12).getAttribute('data-color'))!;
    await free.nth(12).click();
    assert.equal(await dialog.locator('[data-field="color"]').inputValue(), color);

    // Attendance time: the default week of docs/product.md#constants, Monday changed.
    await dialog.getByRole('tab', { name: 'Horários de atendimento' }).click();
    const saturday = dialog.getByTestId('queue-schedule-saturday');
    assert.equal(await saturday.locator('[data-field="saturday-startTime"]').inputValue(), '08:00');
    assert.equal(await saturday.locator('[data-field="saturday-endTime"]').inputValue(), '12:00');
    assert.equal(await dialog.locator('[data-field="sunday-endTime"]').inputValue(), '00:00');
    await dialog.locator('[data-field="monday-startTime"]').fill('0930');
    assert.equal(await dialog.locator('[data-field="monday-startTime"]').inputValue(), '09:30');
    await screenshot(page, 'queue-dialog-schedules');

    // Options need a saved queue: "save and continue" creates it and keeps the dialog open.
    await dialog.getByRole('tab', { name: 'Opções do chatbot' }).click();
    await dialog.getByTestId('queue-save-continue').click();
    await toast(page, 'Fila salva com sucesso.').waitFor();
    await dialog.getByText('Editar fila').waitFor();
    await dialog.getByTestId('queue-options-editor').waitFor();
    const queues =
      await http.get<
        { id: number; name: string; color: string; schedules: { weekdayEn: string; startTime: string }[] }[]
      >('/queue');
    const created = queues.find((q) => q.name === name);
    assert.ok(created, 'the queue was created');
    assert.equal(created.color, color);
    assert.equal(created.schedules.find((d) => d.weekdayEn === 'monday')?.startTime, '09:30');

    // Two roots, then a child under the first.
    const nodes = dialog.getByTestId('queue-option-node');
    const addRoot = async (title: string, message: string) => {
      await dialog.getByTestId('option-add-root').click();
      const draft = nodes.last();
      await draft.locator('[data-field="option-title"]').fill(title);
      await draft.locator('[data-field="option-message"]').fill(message);
      await draft.getByTestId('option-save').click();
      await dialog.locator(`[data-testid="queue-option-node"][data-title="${title}"]`).waitFor();
    };
    await addRoot('Boletos', 'Boletos e segunda via.');
    await addRoot('Pix', 'Pagamentos por Pix.');
    const boletos = dialog.locator('[data-testid="queue-option-node"][data-title="Boletos"]');
    await boletos.getByTestId('option-add-child').first().click();
    const child = boletos.locator('[data-testid="queue-option-node"][data-depth="1"]').last();
    assert.equal(await child.locator('[data-field="option-key"]').inputValue(), '1');
    await child.locator('[data-field="option-title"]').fill('Segunda via');
    await child.locator('[data-field="option-message"]').fill('Enviaremos a segunda via por aqui.');
    await child.getByTestId('option-save').click();
    await boletos.locator('[data-testid="queue-option-node"][data-title="Segunda via"]').waitFor();
    // Pix's number cannot be taken by a sibling.
    const pix = dialog.locator('[data-testid="queue-option-node"][data-title="Pix"]');
    assert.equal(await pix.locator('[data-field="option-key"]').first().inputValue(), '2');
    await pix.locator('[data-field="option-key"]').first().fill('1');
    await pix.getByTestId('option-save').first().click();
    await toast(page, 'Já existe uma opção com este número neste nível.').waitFor();
    await pix.locator('[data-field="option-key"]').first().fill('2');
    await page.mouse.move(0, 0);
    await screenshot(page, 'queue-options-tree');

    const options = await http.get<QueueOption[]>(`/queue-options?queueId=${created.id}`);
    assert.equal(options.length, 3);
    const roots = await http.get<QueueOption[]>(`/queue-options?queueId=${created.id}&parentId=-1`);
    assert.deepEqual(
      roots.map((o) => [o.option, o.title]),
      [
        ['1', 'Boletos'],
        ['2', 'Pix'],
      ],
    );
    const sub = options.find((o) => o.title === 'Segunda via');
    assert.equal(sub?.parentId, roots[0]!.id);

    await dialog.getByRole('button', { name: 'Salvar', exact: true }).click();
    await dialog.waitFor({ state: 'detached' });
    const row = page.locator(`[data-testid="queue-row"][data-name="${name}"]`);
    await row.waitFor();
    assert.equal(await row.getByTestId('queue-color').getAttribute('data-color'), color);
    await row.getByText('Olá! Você está no Financeiro.').waitFor();
    await page.mouse.move(0, 0);
    await screenshot(page, 'queues-list-created');

    // Reopened, the tree is there.
    await row.getByRole('button', { name: 'Editar' }).click();
    await dialog.getByRole('tab', { name: 'Opções do chatbot' }).click();
    await dialog.locator('[data-testid="queue-option-node"][data-title="Segunda via"]').waitFor();
    await dialog.getByRole('button', { name: 'Cancelar' }).click();
    await dialog.waitFor({ state: 'detached' });

    // The users dialog: the attendant gets the new queue and a default connection.
    await page.goto('/users');
    const attendant = page.getByTestId('user-row').filter({ hasText: 'atendente@demo.local' });
    await attendant.getByRole('button', { name: 'Editar' }).click();
    await dialog.getByText('Editar usuário').waitFor();
    await choose(dialog, page, /Filas/, [name], true);
    await choose(dialog, page, /Conexão padrão/, ['Simulador']);
    await page.mouse.move(0, 0);
    await screenshot(page, 'user-dialog-queues');
    await dialog.getByRole('button', { name: 'Salvar', exact: true }).click();
    await dialog.waitFor({ state: 'detached' });
    await toast(page, 'Usuário salvo com sucesso.').waitFor();
    type User = { email: string; whatsappId: number | null; queues: { id: number; name: string }[] };
    const users = await http.get<User[]>('/users/list');
    const att = users.find((u) => u.email === 'atendente@demo.local')!;
    assert.deepEqual(att.queues.map((q) => q.name).sort(), ['Suporte', name].sort());
    const connections = await http.get<{ id: number; name: string; queues: { id: number }[] }[]>('/whatsapp');
    const demoConnection = connections.find((w) => w.name === 'Simulador')!;
    assert.equal(att.whatsappId, demoConnection.id);
    // The demo's simulator offers its departments (docs/bot.md): start this step from none.
    await http.put(`/whatsapp/${demoConnection.id}`, { queueIds: [] });

    // The connections dialog: two queues need a greeting; the server's error is shown.
    await page.goto('/connections');
    const conn = page.locator('[data-testid="connection-row"][data-name="Simulador"]');
    await conn.getByRole('button', { name: 'Editar' }).click();
    await dialog.locator('[data-field="greetingMessage"]').waitFor();
    await dialog.locator('[data-field="greetingMessage"]').fill('');
    await choose(dialog, page, /Filas/, ['Vendas', name], true);
    await dialog.getByRole('button', { name: 'Salvar', exact: true }).click();
    await toast(page, 'A saudação é obrigatória quando há mais de uma fila.').waitFor();
    await dialog.getByText('A saudação é obrigatória quando há mais de uma fila.').first().waitFor();
    await page.mouse.move(0, 0);
    await screenshot(page, 'connection-dialog-queues');
    await dialog.locator('[data-field="greetingMessage"]').fill('Olá! Escolha um setor.');
    await dialog.getByRole('button', { name: 'Salvar', exact: true }).click();
    await dialog.waitFor({ state: 'detached' });
    const saved = await http.get<{ name: string; queues: { name: string }[] }[]>('/whatsapp');
    assert.deepEqual(
      saved
        .find((w) => w.name === 'Simulador')
        ?.queues.map((q) => q.name)
        .sort(),
      ['Vendas', name].sort(),
    );

    // Deleting the queue asks first; users and connections lose it.
    await page.goto('/queues');
    await row.getByRole('button', { name: 'Excluir' }).click();
    const confirm = page.getByRole('dialog');
    await confirm.getByText(`Excluir a fila ${name}?`).waitFor();
    await screenshot(page, 'queue-delete-confirm');
    await confirm.getByRole('button', { name: 'Excluir' }).click();
    await toast(page, 'Fila excluída com sucesso.').waitFor();
    await row.waitFor({ state: 'detached' });
    const after = (await http.get<User[]>('/users/list')).find((u) => u.email === 'atendente@demo.local')!;
    assert.deepEqual(
      after.queues.map((q) => q.name),
      ['Suporte'],
    );
    // Put the demo connection back as it was: its departments, its menu.
    await http.put(`/whatsapp/${demoConnection.id}`, { queueIds: demoConnection.queues.map((q) => q.id) });
  } finally {
    await http?.put('/settings/scheduleType', { value: scheduleType }).catch(() => undefined);
    await page.context().close();
  }
});

test('queues in the dark theme, on a phone', async () => {
  const page = await newPage(browser, { width: 390, height: 844 });
  try {
    await signIn(page);
    await page.evaluate(() => localStorage.setItem('preferredTheme', 'dark'));
    await page.goto('/queues');
    await page.getByTestId('queue-row').filter({ hasText: 'Suporte' }).waitFor();
    await screenshot(page, 'queues-mobile-dark');
    await page
      .locator('[data-testid="queue-row"][data-name="Suporte"]')
      .getByRole('button', { name: 'Editar' })
      .click();
    const dialog = page.getByRole('dialog');
    await dialog.getByTestId('color-palette').waitFor();
    await page.waitForTimeout(300);
    await screenshot(page, 'queue-dialog-mobile-dark');
  } finally {
    await page.context().close();
  }
});
