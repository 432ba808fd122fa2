// What a new user tripped on (issue 19, points 4–10; issue 21, point 11), each checked in the browser.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Locator, Page } from 'playwright-core';
import {
  DEMO_ADMIN,
  launch,
  newPage,
  PageApi,
  pageApi,
  quietSimulator,
  screenshot,
  signInPage,
} from './browser.js';

let browser: Browser;
before(async () => {
  browser = await launch();
});
after(async () => {
  await browser.close();
});

const stamp = Date.now().toString(36);
const suffix = String(Date.now() % 10_000).padStart(4, '0');

/** A simulator connection of the demo company without the demo's menu. */
const simulatorOf = (http: PageApi) => quietSimulator(http);

type Box = { x: number; y: number; width: number; height: number };
const overlaps = (a: Box, b: Box) =>
  a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;

/** Whether a click at the centre of `target` reaches it (nothing on top takes it). */
async function reachable(target: Locator): Promise<boolean> {
  return target.evaluate((el) => {
    const r = el.getBoundingClientRect();
    const hit = document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2);
    return Boolean(hit && el.contains(hit));
  });
}

async function settle(page: Page) {
  await page.mouse.move(1, 1);
  await page.waitForTimeout(400);
}

test('new ticket from Contacts shows the contact; the same contact has one avatar colour', async () => {
  const page = await newPage(browser);
  try {
    const token = await signInPage(page, DEMO_ADMIN, { language: 'pt' });
    const http = pageApi(page, token);
    const name = `Contato Inicio ${stamp}`;
    const number = `5511977${suffix}01`;
    await http.post('/contacts', { name, number });

    await page.goto('/contacts');
    await page.getByPlaceholder('Nome ou número').fill(name);
    const row = page.getByTestId('contact-row').filter({ hasText: name });
    await row.waitFor();
    const contactColor = await row.locator('[data-avatar-color]').getAttribute('data-avatar-color');
    await row.getByRole('button', { name: 'Iniciar atendimento' }).click();

    await page.waitForURL(/\/tickets/);
    const field = page.getByTestId('new-ticket-contact').locator('input');
    await page.waitForFunction(
      (el) => (el as HTMLInputElement | null)?.value.includes('Contato Inicio'),
      await field.elementHandle(),
    );
    assert.match(await field.inputValue(), new RegExp(name));
    await settle(page);
    await screenshot(page, 'rough-new-ticket-from-contact');
    await page.getByRole('dialog').getByRole('button', { name: 'Iniciar', exact: true }).click();
    await page.waitForURL(/\/tickets\/[0-9a-f-]{36}$/);
    const uuid = page.url().split('/').pop()!;
    const listed = page.locator(`[data-testid="ticket-row"][data-uuid="${uuid}"]`);
    await listed.waitFor();
    assert.equal(
      await listed.locator('[data-avatar-color]').getAttribute('data-avatar-color'),
      contactColor,
      'the same colour on Tickets and Contacts',
    );
  } catch (err) {
    await screenshot(page, 'rough-new-ticket-failure');
    throw err;
  } finally {
    await page.context().close();
  }
});

test('formatting, edit after the signature, quote and edit on the phone, tags, reopen, tooltip and toasts', async () => {
  const page = await newPage(browser);
  try {
    const token = await signInPage(page, DEMO_ADMIN, { language: 'pt' });
    const http = pageApi(page, token);
    const sim = await simulatorOf(http);
    const customer = { from: `5511966${suffix}02`, name: `Cliente Formato ${stamp}` };

    await page.goto('/tickets');
    await page.getByTestId('tab-pending').click();
    const pending = page.getByTestId('ticket-list-pending');
    await pending.waitFor();
    await http.post(`/simulator/${sim.id}/inbound`, {
      ...customer,
      body: '*Pedido* _urgente_ ~antigo~ `A-12`',
    });
    const row = pending.getByTestId('ticket-row').filter({ hasText: customer.name });
    const preview = row.getByTestId('ticket-last-message');
    await preview.locator('strong', { hasText: 'Pedido' }).waitFor();
    await preview.locator('em', { hasText: 'urgente' }).waitFor();
    await preview.locator('s', { hasText: 'antigo' }).waitFor();
    await preview.locator('code', { hasText: 'A-12' }).waitFor();
    assert.equal(await preview.innerText(), 'Pedido urgente antigo A-12', 'no raw markers');

    // The show-all hint never covers the "Atendendo" tab nor takes its click.
    await page.getByText('Todos', { exact: true }).hover();
    const tooltip = page.getByRole('tooltip');
    await tooltip.waitFor();
    const assignedTab = page.getByTestId('tab-assigned');
    assert.equal(overlaps((await tooltip.boundingBox())!, (await assignedTab.boundingBox())!), false);
    assert.ok(await reachable(assignedTab), 'the tab takes its click while the hint shows');
    await page.mouse.move(1, 1);
    await tooltip.waitFor({ state: 'detached' });

    // Accept, answer quoting the customer, then edit only the text after the signature.
    await row.getByTestId('ticket-accept').click();
    await page.waitForURL(/\/tickets\/[0-9a-f-]{36}$/);
    const uuid = page.url().split('/').pop()!;
    const chat = page.getByTestId('ticket-chat');
    const theirs = chat.locator('[data-testid="message"][data-from="contact"]').first();
    await theirs.locator('strong', { hasText: 'Pedido' }).waitFor();
    await theirs.hover();
    await theirs.getByTestId('message-menu').click();
    await page.getByRole('menuitem', { name: 'Responder' }).click();
    const input = page.getByTestId('message-text');
    await input.fill('Vou verificar');
    await input.press('Enter');
    const mine = chat.locator('[data-testid="message"][data-from="me"]').filter({ hasText: 'Vou verificar' });
    await mine.getByTestId('message-quote').waitFor();
    // The signature is bold, and the message is delivered (✓✓) before the edit.
    await mine.getByTestId('message-body').locator('strong', { hasText: 'Ana Admin' }).waitFor();
    await mine.locator('[data-testid="ack"]:is([data-ack="2"],[data-ack="3"])').waitFor();
    await mine.hover();
    await mine.getByTestId('message-menu').click();
    await page.getByRole('menuitem', { name: 'Editar' }).click();
    const dialog = page.getByRole('dialog');
    const box = dialog.getByRole('textbox');
    assert.equal(await box.inputValue(), 'Vou verificar', 'the dialog shows the text without the signature');
    await box.fill('Vou verificar agora');
    await dialog.getByRole('button', { name: 'Salvar' }).click();
    await dialog.waitFor({ state: 'detached' });
    await mine.getByTestId('message-edited').waitFor();
    assert.match(await mine.getByTestId('message-body').innerText(), /^Ana Admin:\nVou verificar agora/);
    // The ticks stay on the edited message.
    await mine.locator('[data-testid="ack"]:is([data-ack="2"],[data-ack="3"])').waitFor();
    assert.ok(await mine.getByTestId('ack').isVisible(), 'the ticks are visible, not hidden by the mark');
    const assignedRow = page.locator(`[data-testid="ticket-list-open"] [data-uuid="${uuid}"]`);
    // The list previews the edited text, the signature in bold.
    await assignedRow.getByTestId('ticket-last-message').filter({ hasText: 'Vou verificar agora' }).waitFor();
    await assignedRow
      .getByTestId('ticket-last-message')
      .locator('strong', { hasText: 'Ana Admin' })
      .waitFor();
    assert.doesNotMatch(await assignedRow.getByTestId('ticket-last-message').innerText(), /\*/);

    // Enter creates a tag that does not exist yet.
    const tagName = `Etiqueta ${stamp}`;
    await page.getByTestId('tag-picker-input').fill(tagName);
    await page.getByTestId('tag-picker-create').waitFor();
    await page.getByTestId('tag-picker-input').press('Enter');
    await page.getByTestId('tag-picker').getByTestId('ticket-tag').filter({ hasText: tagName }).waitFor();
    // The list's row shows it too (live).
    await assignedRow.getByTestId('ticket-tag').filter({ hasText: tagName }).waitFor();

    await settle(page);
    await screenshot(page, 'rough-ticket-list');

    // The customer's phone: the reply quotes the customer's message and says it was edited.
    await page.goto(`/connections/${sim.id}/simulator`);
    const entry = page.locator(`[data-testid="sim-customer"][data-number="${customer.from}"]`);
    await entry.locator('strong', { hasText: 'Ana Admin' }).waitFor();
    assert.doesNotMatch(await entry.innerText(), /\*/);
    await entry.click();
    const reply = page.locator('[data-testid="sim-message"][data-from="company"]').filter({
      hasText: 'Vou verificar agora',
    });
    await reply.getByTestId('sim-quote').filter({ hasText: 'Pedido urgente' }).waitFor();
    await reply.getByTestId('sim-edited').waitFor();
    await reply.locator('strong', { hasText: 'Ana Admin' }).waitFor();
    await settle(page);
    await screenshot(page, 'rough-simulator');

    // Resolve: the toast hides none of the top bar's controls.
    await page.goto(`/tickets/${uuid}`);
    await page.getByTestId('chat-resolve').click();
    const toast = page.getByText('Atendimento resolvido.');
    await toast.waitFor();
    const header = page.locator('header').first();
    assert.equal(overlaps((await toast.boundingBox())!, (await header.boundingBox())!), false);
    assert.ok(await reachable(page.getByTestId('refresh-button')), 'the top bar stays clickable');

    // Reopen from "Resolvidos": the list follows the ticket to "Atendendo".
    await page.getByRole('tab', { name: 'Resolvidos' }).click();
    await page.locator(`[data-testid="ticket-list-closed"] [data-uuid="${uuid}"]`).click();
    await page.getByTestId('chat-reopen').click();
    await chat.and(page.locator('[data-status="open"]')).waitFor();
    await page.locator(`[data-testid="ticket-list-open"] [data-uuid="${uuid}"]`).waitFor();
    assert.equal(await page.getByTestId('tab-assigned').getAttribute('aria-selected'), 'true');
  } catch (err) {
    await screenshot(page, 'rough-edges-failure');
    throw err;
  } finally {
    await page.context().close();
  }
});

test('a duplicate user e-mail flags the field', async () => {
  const page = await newPage(browser);
  try {
    await signInPage(page, DEMO_ADMIN, { language: 'pt' });
    await page.goto('/users');
    await page.getByRole('button', { name: 'Adicionar usuário' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Nome').fill('Outra Ana');
    await dialog.getByLabel('E-mail').fill(DEMO_ADMIN.email);
    await dialog.locator('input[type="password"]').fill('Senha@12345');
    await dialog.getByRole('button', { name: 'Salvar' }).click();
    await dialog.getByText('Este e-mail já está cadastrado.').waitFor();
    assert.equal(await dialog.getByLabel('E-mail').getAttribute('aria-invalid'), 'true');
    await settle(page);
    await screenshot(page, 'rough-user-duplicate-email');
  } finally {
    await page.context().close();
  }
});

test('Portuguese by default; a browser in English is only offered English', async () => {
  const page = await newPage(browser, { locale: 'en-US' });
  try {
    await page.goto('/login');
    await page.getByRole('button', { name: 'Entrar' }).waitFor();
    const offer = page.getByTestId('language-suggestion');
    await offer.getByText('This page is in Portuguese.').waitFor();
    await settle(page);
    await screenshot(page, 'rough-language-suggestion');
    await offer.getByRole('button', { name: 'Switch to English' }).click();
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    await offer.waitFor({ state: 'detached' });
    assert.equal(await page.evaluate(() => localStorage.getItem('language')), 'en');
    await page.reload();
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    assert.equal(await page.getByTestId('language-suggestion').count(), 0);
  } finally {
    await page.context().close();
  }
  const pt = await newPage(browser, { locale: 'pt-BR' });
  try {
    await pt.goto('/login');
    await pt.getByRole('button', { name: 'Entrar' }).waitFor();
    assert.equal(await pt.getByTestId('language-suggestion').count(), 0);
  } finally {
    await pt.context().close();
  }
});
