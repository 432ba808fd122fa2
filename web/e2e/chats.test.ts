import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import {
  apiClient,
  apiLogin,
  COMPANY_ADMIN_PASSWORD,
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

const stamp = Date.now().toString(36);
/** Generous: a loaded 2-core machine builds, serves and drives two browsers at once. */
const LONG = { timeout: 30_000 };

/** Signs in through the login page (optionally in the dark theme); answers the token the client stored. */
async function signIn(page: Page, email: string, password: string, dark = false): Promise<string> {
  await page.goto('/login');
  if (dark) {
    // The theme is read when the app starts: stored, then loaded again.
    await page.evaluate(() => localStorage.setItem('preferredTheme', 'dark'));
    await page.reload();
  }
  await page.locator('input[name="email"]').fill(email);
  await page.locator('input[name="password"]').fill(password);
  await page.getByTestId('login-submit').click();
  await page.getByTestId('greeting').waitFor(LONG);
  return page.evaluate(() => JSON.parse(localStorage.getItem('token') ?? '""') as string);
}

const messages = (page: Page) => page.getByTestId('chat-message');

test('internal chat: A starts a chat with B and writes; B sees the dot and the popover live, opens it and the dot goes', async () => {
  const emailB = `papo-b-${stamp}@e2e.local`;
  const adminEmail = await createCompany('Papo', 5, stamp, 'Ana Papo', [
    { name: 'Bruno Papo', email: emailB, password: 'User@1234', profile: 'user' },
  ]);
  const pageA = await newPage(browser);
  const pageB = await newPage(browser);
  try {
    await signIn(pageA, adminEmail, COMPANY_ADMIN_PASSWORD);
    await signIn(pageB, emailB, 'User@1234', true);
    await pageB.getByTestId('menu-chats').waitFor(LONG);
    assert.equal(await pageB.getByTestId('menu-chats-warning').count(), 0);

    // A: the chat modal alerts on an empty title, then on no users.
    await pageA.goto('/chats');
    await pageA.getByTestId('chat-list-empty').waitFor(LONG);
    await pageA.getByTestId('chat-new').click();
    await pageA.getByTestId('chat-dialog-save').click();
    await pageA.getByTestId('chat-dialog-alert').filter({ hasText: 'título' }).waitFor(LONG);
    await pageA.getByTestId('chat-title-input').fill(`Plantão ${stamp}`);
    await pageA.getByTestId('chat-dialog-save').click();
    await pageA.getByTestId('chat-dialog-alert').filter({ hasText: 'usuário' }).waitFor(LONG);
    await pageA.getByTestId('chat-users-input').fill('Bruno');
    await pageA.getByRole('option', { name: 'Bruno Papo' }).click();
    await pageA.getByTestId('chat-dialog-save').click();
    await pageA.getByTestId('chat-dialog').waitFor({ state: 'detached', ...LONG });
    await pageA.waitForURL(/\/chats\/[0-9a-f-]{36}$/, LONG);
    await pageA
      .getByTestId('chat-pane-title')
      .filter({ hasText: `Plantão ${stamp}` })
      .waitFor(LONG);
    // The owner edits and deletes.
    await pageA.getByTestId('chat-edit').waitFor(LONG);
    assert.equal(await pageA.getByTestId('chat-delete').count(), 1);

    // Enter sends and empties the input at once, so the next message is typed while the first is on its way;
    // whitespace-only is not sent; the two arrive in the order typed.
    const input = pageA.getByTestId('chat-input');
    await input.fill('Bom dia, Bruno! Pode cobrir o turno?');
    await input.press('Enter');
    assert.equal(await input.inputValue(), '');
    await input.fill('   ');
    await input.press('Enter');
    await input.fill('Obrigada!');
    await input.press('Enter');
    await messages(pageA).filter({ hasText: 'Obrigada!' }).waitFor(LONG);
    await messages(pageA).filter({ hasText: 'Pode cobrir o turno?' }).waitFor(LONG);
    assert.deepEqual(
      (await messages(pageA).allInnerTexts()).map((t) => t.split('\n')[0]),
      ['Bom dia, Bruno! Pode cobrir o turno?', 'Obrigada!'],
    );
    await screenshot(pageA, 'chats-light');

    // B, elsewhere in the app: the side menu dot and the popover, live.
    await pageB.getByTestId('menu-chats-warning').waitFor(LONG);
    await pageB.getByTestId('chats-button-badge').filter({ hasText: '1' }).waitFor(LONG);
    await pageB.getByTestId('chats-button').click();
    const row = pageB.getByTestId('chats-popover-row').filter({ hasText: `Plantão ${stamp}` });
    await row.filter({ hasText: 'Obrigada!' }).waitFor(LONG);
    // The popover has faded in (opacity 1) before the picture.
    await pageB.waitForFunction(() =>
      [...document.querySelectorAll('[role="dialog"]')].some((d) => getComputedStyle(d).opacity === '1'),
    );
    await screenshot(pageB, 'chats-popover-dark');

    // B opens it: the messages are there, the dot and the badge go; B is not the owner.
    await row.click();
    await pageB.waitForURL(/\/chats\/[0-9a-f-]{36}$/, LONG);
    await messages(pageB).filter({ hasText: 'Pode cobrir o turno?' }).waitFor(LONG);
    await pageB.getByTestId('menu-chats-warning').waitFor({ state: 'detached', ...LONG });
    await pageB
      .getByTestId('chats-button-badge')
      .filter({ hasText: '1' })
      .waitFor({ state: 'hidden', ...LONG });
    assert.equal(await pageB.getByTestId('chat-edit').count(), 0);
    assert.equal(await pageB.getByTestId('chat-delete').count(), 0);

    // B answers; A reads it live.
    await pageB.getByTestId('chat-input').fill('Posso sim, Ana. *Sábado* e ~domingo~ _não_.');
    await pageB.getByTestId('chat-send').click();
    const answer = messages(pageA).filter({ hasText: 'Posso sim, Ana.' });
    await answer.waitFor(LONG);
    // WhatsApp's formatting, as the ticket chat renders it: no raw markers (#29.16).
    assert.equal(await answer.locator('strong').innerText(), 'Sábado');
    assert.equal(await answer.locator('s, del').first().innerText(), 'domingo');
    assert.equal(await answer.locator('em').innerText(), 'não');
    await screenshot(pageB, 'chats-dark');

    // 500 px: two tabs, the chosen chat's messages shown.
    const narrow = await newPage(browser, { width: 500, height: 800 });
    try {
      await signIn(narrow, emailB, 'User@1234');
      await narrow.goto(pageB.url());
      await messages(narrow).filter({ hasText: 'Posso sim, Ana.' }).waitFor(LONG);
      await screenshot(narrow, 'chats-narrow-messages');
      await narrow.getByRole('tab', { name: 'Conversas' }).click();
      await narrow
        .getByTestId('chat-row')
        .filter({ hasText: `Plantão ${stamp}` })
        .waitFor(LONG);
      await screenshot(narrow, 'chats-narrow-list');
    } finally {
      await narrow.context().close();
    }
  } finally {
    await pageA.context().close();
    await pageB.context().close();
  }
});

test('a chat deleted by its owner: the member is told live and leaves it; a message sent into a deleted chat says so', async () => {
  const emailB = `saida-b-${stamp}@e2e.local`;
  const adminEmail = await createCompany('Saida', 5, stamp, 'Olga Dona', [
    { name: 'Paulo Membro', email: emailB, password: 'User@1234', profile: 'user' },
  ]);
  const owner = apiClient(await apiLogin(adminEmail, COMPANY_ADMIN_PASSWORD));
  const users = await owner.get<{ id: number; name: string; email: string }[]>('/users/list');
  const member = users.find((u) => u.email === emailB)!;
  const newChat = (title: string) =>
    owner.post<{ id: number; uuid: string }>('/chats', {
      title,
      users: [{ id: member.id, name: member.name }],
    });
  const page = await newPage(browser, { width: 500, height: 860 });
  // Socket events reach the page through this relay; `hold` keeps delete events back (a member whose event
  // is late, or whose connection dropped for a moment, still types into the deleted chat).
  let hold = false;
  await page.routeWebSocket(/socket\.io/, (ws) => {
    const server = ws.connectToServer();
    ws.onMessage((m) => server.send(m));
    server.onMessage((m) => {
      if (hold && typeof m === 'string' && m.includes('"action":"delete"')) return;
      ws.send(m);
    });
  });
  try {
    await signIn(page, emailB, 'User@1234', true);

    // Live: the owner deletes the chat the member has open, with a message half typed.
    const first = await newChat(`Escala ${stamp}`);
    await page.goto(`/chats/${first.uuid}`);
    await page
      .getByTestId('chat-pane-title')
      .filter({ hasText: `Escala ${stamp}` })
      .waitFor(LONG);
    // The page hears this chat live (its socket has joined) before the owner deletes it: the owner's
    // question arrives on screen.
    await owner.post(`/chats/${first.id}/messages`, { message: `Quem cobre o sábado? ${stamp}` });
    await page.getByTestId('chat-pane').getByText(`Quem cobre o sábado? ${stamp}`).waitFor(LONG);
    await page.getByTestId('chat-input').fill('Eu cubro o sábado');
    await owner.delete(`/chats/${first.id}`);
    await page
      .locator('#notistack-snackbar')
      .filter({ hasText: `A conversa “Escala ${stamp}” foi excluída ou você foi removido dela.` })
      .waitFor(LONG);
    await page.waitForURL('**/chats', LONG);
    await page.getByTestId('chat-pane').waitFor({ state: 'detached', ...LONG });
    assert.equal(
      await page
        .getByTestId('chat-row')
        .filter({ hasText: `Escala ${stamp}` })
        .count(),
      0,
    );
    await screenshot(page, 'chat-deleted-live-dark');

    // Late news: the delete event does not arrive; sending answers 404 and the screen says so and leaves.
    const second = await newChat(`Plantão ${stamp}`);
    await page.goto(`/chats/${second.uuid}`);
    await page
      .getByTestId('chat-pane-title')
      .filter({ hasText: `Plantão ${stamp}` })
      .waitFor(LONG);
    hold = true;
    await owner.delete(`/chats/${second.id}`);
    await page.getByTestId('chat-input').fill('Alguém viu o pedido 42?');
    await page.getByTestId('chat-send').click();
    await page
      .locator('#notistack-snackbar')
      .filter({ hasText: `A conversa “Plantão ${stamp}” foi excluída: sua mensagem não foi enviada.` })
      .waitFor(LONG);
    await page.waitForURL('**/chats', LONG);
    await page.getByTestId('chat-pane').waitFor({ state: 'detached', ...LONG });
  } finally {
    await page.context().close();
  }
});
