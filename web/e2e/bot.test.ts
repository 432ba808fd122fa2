import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Locator, Page } from 'playwright-core';
import {
  BASE_URL,
  COMPANY_ADMIN_PASSWORD,
  apiClient,
  createCompany,
  launch,
  newPage,
  screenshot,
  until,
} from './browser.js';

/**
 * The automatic attendant, end to end: an admin of a company of its own builds two queues (one with a
 * two-level option tree) on the queues screen; a customer on the simulator page walks the bot's menu and
 * lands in the right queue; that queue's attendant sees the ticket, the other queue's attendant does not.
 */
let browser: Browser;
before(async () => {
  browser = await launch();
});
after(async () => {
  await browser.close();
});

const PASSWORD = COMPANY_ADMIN_PASSWORD;

async function signIn(page: Page, email: string): Promise<string> {
  await page.goto('/login');
  await page.locator('input[name="email"]').fill(email);
  await page.locator('input[name="password"]').fill(PASSWORD);
  await page.getByTestId('login-submit').click();
  await page.getByTestId('greeting').waitFor({ timeout: 30_000 });
  return page.evaluate(() => JSON.parse(localStorage.getItem('token') ?? '""') as string);
}

const toast = (page: Page, text: string) =>
  page.locator('#notistack-snackbar').filter({ hasText: text }).first();

/** A queue through the queues screen's dialog: name, bot order, greeting and a free palette colour. */
async function addQueue(page: Page, name: string, order: string, greeting: string, colorIndex: number) {
  await page.getByTestId('queue-add').click();
  const dialog = page.getByRole('dialog');
  await dialog.getByText('Adicionar fila').first().waitFor();
  await dialog.locator('[data-field="name"]').fill(name);
  await dialog.locator('[data-field="orderQueue"]').fill(order);
  await dialog.locator('[data-field="greetingMessage"]').fill(greeting);
  await dialog
    .locator('[data-testid="color-palette"] [role="radio"]:not([data-used])')
    .nth(colorIndex)
    .click();
  return dialog;
}

async function addOption(dialog: Locator, title: string, message: string, parent?: Locator) {
  if (parent) await parent.getByTestId('option-add-child').first().click();
  else await dialog.getByTestId('option-add-root').click();
  const draft = parent
    ? parent.locator('[data-testid="queue-option-node"][data-depth="1"]').last()
    : dialog.getByTestId('queue-option-node').last();
  await draft.locator('[data-field="option-title"]').fill(title);
  await draft.locator('[data-field="option-message"]').fill(message);
  await draft.getByTestId('option-save').click();
  const node = dialog.locator(`[data-testid="queue-option-node"][data-title="${title}"]`);
  await node.waitFor();
  return node;
}

interface Ticket {
  id: number;
  queueId: number | null;
  contact: { number: string; name: string };
}

test('bot: two queues built on the screen, the customer walks the menu, only that queue attendant sees the ticket', async () => {
  const suffix = Date.now().toString(36);
  const admin = await newPage(browser);
  const pages: Page[] = [admin];
  try {
    // A company of this test's own, so no other test's queues or tickets matter.
    const adminEmail = await createCompany('Bot', 5, suffix, 'Ana Admin');

    // The admin builds the queues on the queues screen.
    const token = await signIn(admin, adminEmail);
    const api = apiClient(token);
    await admin.goto('/queues');
    await admin.getByRole('heading', { name: /Filas e chatbot/ }).waitFor();

    let dialog = await addQueue(admin, 'Vendas', '2', 'Você está em Vendas. Já vamos atender.', 3);
    await dialog.getByRole('button', { name: 'Salvar', exact: true }).click();
    await dialog.waitFor({ state: 'detached' });
    await toast(admin, 'Fila salva com sucesso.').waitFor();

    dialog = await addQueue(admin, 'Financeiro', '1', 'Financeiro: escolha o assunto.', 10);
    await dialog.getByRole('tab', { name: 'Opções do chatbot' }).click();
    await dialog.getByTestId('queue-save-continue').click();
    await dialog.getByText('Editar fila').waitFor();
    await dialog.getByTestId('queue-options-editor').waitFor();
    const boletos = await addOption(dialog, 'Boletos', 'Sobre boletos, escolha:');
    await addOption(dialog, 'Pix', 'Nossa chave Pix é o CNPJ.');
    await addOption(
      dialog,
      'Segunda via',
      'Pronto! Um atendente do Financeiro enviará o documento.',
      boletos,
    );
    await admin.mouse.move(0, 0);
    await screenshot(admin, 'bot-queue-options');
    await dialog.getByRole('button', { name: 'Salvar', exact: true }).click();
    await dialog.waitFor({ state: 'detached' });
    await admin.locator('[data-testid="queue-row"][data-name="Financeiro"]').waitFor();
    await admin.locator('[data-testid="queue-row"][data-name="Vendas"]').waitFor();
    await screenshot(admin, 'bot-queues-list');

    const queues = await api.get<{ id: number; name: string }[]>('/queue');
    const fin = queues.find((q) => q.name === 'Financeiro')!.id;
    const sales = queues.find((q) => q.name === 'Vendas')!.id;

    // A simulator connection offering both queues, and one attendant per queue.
    const connection = await api.post<{ id: number }>('/whatsapp', {
      name: 'Atendimento',
      channel: 'simulator',
      greetingMessage: 'Olá! Escolha o setor:',
      queueIds: [fin, sales],
    });
    const finEmail = `bot-fin-${suffix}@e2e.test`;
    const salesEmail = `bot-sales-${suffix}@e2e.test`;
    await api.post('/users', {
      name: 'Fábio Financeiro',
      email: finEmail,
      password: PASSWORD,
      profile: 'user',
      queueIds: [fin],
    });
    await api.post('/users', {
      name: 'Vera Vendas',
      email: salesEmail,
      password: PASSWORD,
      profile: 'user',
      queueIds: [sales],
    });

    // The customer, on the simulator page, walks the menu: Financeiro → Boletos → Segunda via.
    await admin.goto(`/connections/${connection.id}/simulator`);
    await admin.getByText('Escolha um cliente ou crie um novo').waitFor();
    const base = Date.now() % 90_000_000;
    const digits = `119${String(10_000_000 + base).padStart(8, '0')}`;
    const form = admin.getByTestId('sim-new-customer');
    await form.getByRole('textbox', { name: 'Nome' }).fill('Carla Cliente');
    await form.getByRole('textbox', { name: 'Número' }).pressSequentially(digits);
    await form.getByRole('button', { name: 'Iniciar conversa' }).click();
    const phone = admin.getByTestId('sim-phone');
    await phone.waitFor();
    const input = phone.getByRole('textbox', { name: 'Mensagem' });
    const fromCompany = phone.locator('[data-testid="sim-message"][data-from="company"]');
    const exchange = async (text: string, expected: string) => {
      const before = await fromCompany.count();
      await input.fill(text);
      await input.press('Enter');
      await fromCompany.nth(before).waitFor({ timeout: 30_000 });
      await fromCompany.nth(before).filter({ hasText: expected }).waitFor({ timeout: 30_000 });
    };
    await exchange('Oi, bom dia', 'Escolha o setor');
    assert.match(await fromCompany.last().innerText(), /Financeiro[\s\S]*Vendas/);
    await exchange('1', 'Financeiro: escolha o assunto.');
    await exchange('1', 'Sobre boletos, escolha:');
    await exchange('1️⃣', 'Um atendente do Financeiro enviará o documento.');
    await admin.mouse.move(0, 0);
    await screenshot(admin, 'bot-simulator-conversation');

    // The ticket waits in Financeiro, no user.
    const number = `55${digits}`;
    const pending = async () =>
      (await api.get<{ tickets: Ticket[] }>('/tickets?status=pending&showAll=true')).tickets;
    const ticket = (
      await until(
        pending,
        (ts) => ts.some((x) => x.contact.number === number && x.queueId === fin),
        'the ticket',
      )
    ).find((x) => x.contact.number === number)!;

    // A second customer chooses Vendas through the simulator's HTTP entry.
    const other = `55119${String(10_000_001 + base).padStart(8, '0')}`;
    const conversation = () =>
      api.get<{ fromMe: boolean; body: string }[]>(`/simulator/${connection.id}/conversations/${other}`);
    await api.post(`/simulator/${connection.id}/inbound`, { from: other, name: 'Otávio Outro', body: 'oi' });
    await until(conversation, (c) => c.some((m) => m.fromMe), 'the menu');
    await api.post(`/simulator/${connection.id}/inbound`, { from: other, body: '2' });
    await until(
      conversation,
      (c) => c.some((m) => m.fromMe && m.body.startsWith('Você está em Vendas')),
      'Vendas',
    );

    // Financeiro's attendant sees Carla's ticket waiting, not Otávio's.
    const finPage = await newPage(browser);
    pages.push(finPage);
    await signIn(finPage, finEmail);
    await finPage.goto('/tickets');
    await finPage.getByTestId('tab-pending').click();
    const finList = finPage.getByTestId('ticket-list-pending');
    const finRow = finList.locator('[data-testid="ticket-row"]').filter({ hasText: 'Carla Cliente' });
    await finRow.waitFor({ timeout: 30_000 });
    assert.equal(
      await finList.locator('[data-testid="ticket-row"]').filter({ hasText: 'Otávio Outro' }).count(),
      0,
    );
    await finPage.mouse.move(0, 0);
    await screenshot(finPage, 'bot-attendant-financeiro');

    // Vendas' attendant sees Otávio's ticket (the list has loaded) and not Carla's.
    const salesPage = await newPage(browser);
    pages.push(salesPage);
    const salesToken = await signIn(salesPage, salesEmail);
    await salesPage.goto('/tickets');
    await salesPage.getByTestId('tab-pending').click();
    const salesList = salesPage.getByTestId('ticket-list-pending');
    await salesList
      .locator('[data-testid="ticket-row"]')
      .filter({ hasText: 'Otávio Outro' })
      .waitFor({ timeout: 30_000 });
    assert.equal(
      await salesList.locator('[data-testid="ticket-row"]').filter({ hasText: 'Carla Cliente' }).count(),
      0,
    );
    await salesPage.mouse.move(0, 0);
    await screenshot(salesPage, 'bot-attendant-vendas');
    const seenBySales = await apiClient(salesToken).get<{ tickets: Ticket[] }>('/tickets?status=pending');
    assert.ok(
      !seenBySales.tickets.some((x) => x.id === ticket.id),
      'Vendas does not list the Financeiro ticket',
    );
    const direct = await fetch(`${BASE_URL}/api/tickets/${ticket.id}`, {
      headers: { authorization: `Bearer ${salesToken}` },
    });
    assert.equal(direct.status, 403);
  } finally {
    for (const p of pages) await p.context().close();
  }
});
