import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { createCompany, launch, newPage, pageApi, screenshot } from './browser.js';

let browser: Browser;
before(async () => {
  browser = await launch();
});
after(async () => {
  await browser.close();
});

const stamp = Date.now().toString(36);
/** Generous: a loaded 2-core machine builds, serves and drives two browsers at once. */
const LONG = { timeout: 30_000 };

interface Ticket {
  id: number;
  uuid: string;
  tags: { id: number; name: string }[];
}
interface Tag {
  id: number;
  name: string;
  kanban: number;
}

/** Signs in through the login page (optionally in the dark theme); answers the token the client stored. */
async function signIn(page: Page, email: string, password: string, dark = false): Promise<string> {
  await page.goto('/login');
  if (dark) await page.evaluate(() => localStorage.setItem('preferredTheme', 'dark'));
  await page.locator('input[name="email"]').fill(email);
  await page.locator('input[name="password"]').fill(password);
  await page.getByTestId('login-submit').click();
  await page.getByTestId('greeting').waitFor(LONG);
  return page.evaluate(() => JSON.parse(localStorage.getItem('token') ?? '""') as string);
}

// The browser's own token: a second login of the same user would end the browser's session.

/** Polls until `fn` answers something truthy (server state that arrives asynchronously). */
async function eventually<T>(fn: () => Promise<T | undefined | null | false>, what: string): Promise<T> {
  const end = Date.now() + LONG.timeout;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

const toast = (page: Page, text: string) =>
  page.locator('#notistack-snackbar').filter({ hasText: text }).first();

const lane = (page: Page, id: number | 'open') =>
  page.locator(`[data-testid="kanban-lane"][data-lane="${id}"]`);
const card = (page: Page, laneId: number | 'open', ticketId: number) =>
  lane(page, laneId).locator(`[data-testid="kanban-card"][data-ticket-id="${ticketId}"]`);

test('kanban: lanes from tags, drag a card and a second board follows; tag a ticket from the chat', async () => {
  // A company of its own: nothing here depends on, or disturbs, the other browser tests' data.
  const secondEmail = `kanban-b-${stamp}@e2e.local`;
  const adminEmail = await createCompany('Kanban', 5, stamp, 'Karla Kanban', [
    { name: 'Bruno Board', email: secondEmail, password: 'User@1234', profile: 'admin' },
  ]);

  const pageA = await newPage(browser);
  const pageB = await newPage(browser);
  try {
    const token = await signIn(pageA, adminEmail, 'Admin@123');
    const http = pageApi(pageA, token);
    const todo = await http.post<Tag>('/tags', { name: `A fazer ${stamp}`, color: '#1976D2', kanban: 1 });
    const sim = await http.post<{ id: number }>('/whatsapp', { name: 'Simulador', channel: 'simulator' });
    const customer = {
      from: `55119${Date.now().toString().slice(-8)}`,
      name: `Cliente Kanban ${stamp}`,
      body: 'Quero um orçamento',
    };
    await http.post(`/simulator/${sim.id}/inbound`, customer);
    const ticket = await eventually(
      async () =>
        (
          await http.get<{ tickets: (Ticket & { contact: { name: string } })[] }>(
            '/ticket/kanban?showAll=true',
          )
        ).tickets.find((x) => x.contact.name === customer.name),
      'the customer ticket',
    );

    // Browser B: another admin of the company, dark theme, watching the board.
    await signIn(pageB, secondEmail, 'User@1234', true);
    await pageB.goto('/kanban');
    await card(pageB, 'open', ticket.id).waitFor(LONG);
    await lane(pageB, todo.id).waitFor(LONG);
    assert.equal(await lane(pageB, 'open').getByTestId('kanban-lane-title').innerText(), 'Em aberto');
    const cardB = card(pageB, 'open', ticket.id);
    assert.equal(await cardB.getByTestId('kanban-card-link').innerText(), customer.name);
    assert.equal(await cardB.getByTestId('kanban-card-link').getAttribute('href'), `/tickets/${ticket.uuid}`);
    await cardB.getByTestId('kanban-card-message').filter({ hasText: customer.body }).waitFor(LONG);
    assert.match(await cardB.getByTestId('kanban-card-number').innerText(), /\d{4}/);

    // A creates a second lane on the tags page; B's board grows it live.
    await pageA.goto('/tags');
    await pageA.locator(`[data-testid="tag-row"][data-name="${todo.name}"]`).waitFor(LONG);
    await pageA.getByTestId('tag-add').click();
    const dialog = pageA.getByRole('dialog');
    await dialog.getByText('Adicionar tag').first().waitFor();
    await dialog.locator('[data-field="name"]').fill('ab');
    await dialog.getByRole('button', { name: 'Salvar', exact: true }).click();
    await dialog.getByText('Mensagem muito curta').waitFor();
    const doingName = `Em andamento ${stamp}`;
    await dialog.locator('[data-field="name"]').fill(doingName);
    await dialog.locator('[data-testid="color-palette"] [data-color="#FF8F00"]').click();
    await dialog.locator('[data-field="kanban"]').check();
    await pageA.mouse.move(0, 0);
    await screenshot(pageA, 'tag-dialog');
    await dialog.getByRole('button', { name: 'Salvar', exact: true }).click();
    await toast(pageA, 'Tag salva com sucesso.').waitFor(LONG);
    const doingRow = pageA.locator(`[data-testid="tag-row"][data-name="${doingName}"]`);
    await doingRow.waitFor(LONG);
    assert.equal(await doingRow.getAttribute('data-kanban'), '1');
    const doing = (await http.get<Tag[]>('/tags/list')).find((x) => x.name === doingName)!;
    assert.equal(doing.kanban, 1);
    await lane(pageB, doing.id).waitFor(LONG);
    await screenshot(pageA, 'tags-list');

    // A drags the card from the open lane into "A fazer": both boards show it there.
    await pageA.goto('/kanban');
    const cardA = card(pageA, 'open', ticket.id);
    await cardA.waitFor(LONG);
    await cardA.dragTo(lane(pageA, todo.id));
    await card(pageA, todo.id, ticket.id).waitFor(LONG);
    await card(pageB, todo.id, ticket.id).waitFor(LONG);
    await card(pageB, 'open', ticket.id).waitFor({ state: 'detached', ...LONG });
    const afterDrag = await eventually(
      async () =>
        (await http.get<Ticket>(`/tickets/${ticket.id}`)).tags.map((x) => x.id).join(',') === String(todo.id),
      'the ticket in the lane',
    );
    assert.ok(afterDrag);
    await pageA.mouse.move(0, 0);
    await screenshot(pageA, 'kanban-board');
    await pageB.mouse.move(0, 0);
    await screenshot(pageB, 'kanban-board-dark');

    // A tags the ticket from the chat: a new tag created inline, then the other lane (which replaces "A fazer").
    await pageA.goto(`/tickets/${ticket.uuid}`);
    const picker = pageA.getByTestId('tag-picker');
    await picker.locator(`[data-testid="ticket-tag"][data-tag-id="${todo.id}"]`).waitFor(LONG);
    const vip = `VIP ${stamp}`;
    await pageA.getByTestId('tag-picker-input').click();
    await pageA.getByTestId('tag-picker-input').fill(vip);
    await pageA.getByTestId('tag-picker-create').click();
    await toast(pageA, `Tag ${vip} criada.`).waitFor(LONG);
    await picker.locator('[data-testid="ticket-tag"]').filter({ hasText: vip }).waitFor(LONG);
    await pageA.getByTestId('tag-picker-input').click();
    await pageA.getByTestId('tag-picker-input').fill(doingName.slice(0, 12));
    await pageA.getByTestId('tag-picker-option').filter({ hasText: doingName }).click();
    await picker.locator(`[data-testid="ticket-tag"][data-tag-id="${doing.id}"]`).waitFor(LONG);
    await picker
      .locator(`[data-testid="ticket-tag"][data-tag-id="${todo.id}"]`)
      .waitFor({ state: 'detached', ...LONG });
    await pageA.keyboard.press('Escape');
    await pageA.mouse.move(0, 0);
    await screenshot(pageA, 'tag-picker');
    // B's board moves the card to the other lane; the server holds the new set.
    await card(pageB, doing.id, ticket.id).waitFor(LONG);
    await card(pageB, todo.id, ticket.id).waitFor({ state: 'detached', ...LONG });
    const tags = (await http.get<Ticket>(`/tickets/${ticket.id}`)).tags.map((x) => x.name).sort();
    assert.deepEqual(tags, [doingName, vip].sort());

    // B sends it back to the open lane through the card's menu.
    await card(pageB, doing.id, ticket.id).getByTestId('kanban-card-menu').click();
    await pageB.getByTestId('kanban-move-option').filter({ hasText: 'Em aberto' }).click();
    await card(pageB, 'open', ticket.id).waitFor(LONG);
    const left = await eventually(async () => {
      const names = (await http.get<Ticket>(`/tickets/${ticket.id}`)).tags.map((x) => x.name);
      return names.length === 1 && names[0] === vip;
    }, 'only the plain tag left');
    assert.ok(left);

    // The tags page (B, dark theme): counts and search; A's deletion leaves B's list live.
    await pageB.goto('/tags');
    const vipRow = pageB.locator(`[data-testid="tag-row"][data-name="${vip}"]`);
    await vipRow.waitFor(LONG);
    assert.equal(await vipRow.getByTestId('tag-count').innerText(), '1');
    await pageB.getByRole('searchbox').fill('vip ');
    await pageB
      .locator(`[data-testid="tag-row"][data-name="${todo.name}"]`)
      .waitFor({ state: 'detached', ...LONG });
    await pageB.getByRole('searchbox').fill('');
    const todoRowB = pageB.locator(`[data-testid="tag-row"][data-name="${todo.name}"]`);
    await todoRowB.waitFor(LONG);
    await pageB.mouse.move(0, 0);
    await screenshot(pageB, 'tags-list-dark');
    await pageA.goto('/tags');
    const todoRowA = pageA.locator(`[data-testid="tag-row"][data-name="${todo.name}"]`);
    await todoRowA.getByRole('button', { name: 'Excluir' }).click();
    const confirm = pageA.getByRole('dialog');
    await confirm.getByText(`Excluir a tag ${todo.name}?`).waitFor();
    await confirm.getByRole('button', { name: 'Excluir', exact: true }).click();
    await toast(pageA, 'Tag excluída com sucesso.').waitFor(LONG);
    await todoRowA.waitFor({ state: 'detached', ...LONG });
    await todoRowB.waitFor({ state: 'detached', ...LONG });
  } finally {
    await pageA.context().close();
    await pageB.context().close();
  }
});
