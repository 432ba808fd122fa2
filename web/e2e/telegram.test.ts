import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { BASE_URL, createCompany, launch, newPage, pageApi, screenshot, signInForm } from './browser.js';
import { startFakeTelegram, type FakeTelegram } from '../../server/test/fake-telegram.js';

/**
 * #34 Telegram in the connections page (docs/channels.md "Telegram"): an admin adds a Telegram connection with
 * the form (bot token, BotFather's steps), it connects through the Bot API stand-in (run.mjs points
 * TELEGRAM_API_URL at it) and comes back with the token masked; a customer's first message opens a ticket
 * whose contact drawer lists the Telegram identity — light at desktop width, dark at 500 px.
 */
let browser: Browser;
let tg: FakeTelegram;
const stamp = Date.now().toString(36);
const LONG = { timeout: 30_000 };

before(async () => {
  browser = await launch();
  tg = await startFakeTelegram({ port: Number(process.env.E2E_TELEGRAM_PORT ?? 0) });
});
after(async () => {
  await browser.close();
  await tg.close();
});

for (const dark of [false, true]) {
  test(`Telegram (${dark ? 'dark, 500 px' : 'light'}): added with the form, connected, token masked; the drawer shows the identity`, async () => {
    const email = await createCompany(dark ? 'TgDark' : 'TgLight', 1, stamp);
    const name = `Telegram ${dark ? 'escuro' : 'claro'} ${stamp}`;
    const chatId = dark ? 7770002 : 7770001;
    const page = await newPage(browser, dark ? { width: 500, height: 900 } : {});
    try {
      const token = await signInForm(page, email, dark);
      await page.goto('/connections');
      await page.getByRole('button', { name: 'Adicionar conexão' }).click();
      const dialog = page.getByRole('dialog');
      await dialog.locator('[data-field="name"]').fill(name);
      await dialog.getByRole('combobox', { name: 'Canal' }).click();
      await page.getByRole('option', { name: 'Telegram' }).click();
      await dialog.locator('[data-section="telegram"]').waitFor();
      await dialog.getByText('No Telegram, abra uma conversa com @BotFather.').waitFor();
      // Required before anything is sent; a malformed token is said so.
      await dialog.getByRole('button', { name: 'Salvar' }).click();
      await dialog.locator('[data-field="telegram.botToken"][aria-invalid="true"]').waitFor();
      await dialog.locator('[data-field="telegram.botToken"]').fill('not-a-token');
      await dialog.getByRole('button', { name: 'Salvar' }).click();
      await dialog.getByText('Não parece um token do BotFather', { exact: false }).waitFor();
      await dialog.locator('[data-field="telegram.botToken"]').fill(tg.token);
      await page.mouse.move(0, 0);
      await screenshot(page, `telegram-connection-new-${dark ? 'dark-500' : 'light'}`);
      await dialog.getByRole('button', { name: 'Salvar' }).click();
      await dialog.waitFor({ state: 'detached' });
      const row = page.locator(`[data-testid="connection-row"][data-name="${name}"]`);
      await row.locator('[data-testid="connection-status"][data-status="CONNECTED"]').waitFor(LONG);
      const http = pageApi(page, token);
      const list =
        await http.get<{ id: number; name: string; channelConfig: Record<string, unknown> }[]>('/whatsapp');
      const saved = list.find((w) => w.name === name)!;
      assert.equal(saved.channelConfig.botTokenSealed, '********');
      assert.ok(!JSON.stringify(list).includes(tg.token), 'the bot token is never answered');
      const hook = tg.webhooks.get(tg.token)!;
      assert.equal(hook.url, `${BASE_URL}/api/webhooks/telegram/${saved.id}`);

      // The edit dialog keeps the token masked and says so.
      await row.getByRole('button', { name: 'Editar' }).click();
      const edit = page.getByRole('dialog');
      await edit.getByText('Token guardado. Deixe vazio para mantê-lo ou cole um novo.').waitFor();
      assert.equal(await edit.locator('[data-field="telegram.botToken"]').inputValue(), '');
      assert.equal(
        await edit.getByLabel('Webhook').inputValue(),
        `${BASE_URL}/api/webhooks/telegram/${saved.id}`,
      );
      await page.mouse.move(0, 0);
      await screenshot(page, `telegram-connection-edit-${dark ? 'dark-500' : 'light'}`);
      await edit.getByRole('button', { name: 'Cancelar' }).click();
      await edit.waitFor({ state: 'detached' });

      // A customer writes to the bot: a ticket, and the drawer lists the Telegram identity.
      const res = await fetch(`${BASE_URL}/api/webhooks/telegram/${saved.id}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-telegram-bot-api-secret-token': hook.secretToken },
        body: JSON.stringify({
          update_id: chatId,
          message: {
            message_id: 1,
            date: Math.floor(Date.now() / 1000),
            chat: { id: chatId, type: 'private', first_name: 'Joana', last_name: 'Telegram' },
            from: { id: chatId, is_bot: false, first_name: 'Joana', last_name: 'Telegram' },
            text: 'Oi! Vim pelo Telegram',
          },
        }),
      });
      assert.equal(res.status, 200, await res.text());
      const page1 = await http.get<{ tickets: { uuid: string; whatsappId: number }[] }>(
        '/tickets?status=pending&showAll=true',
      );
      const ticket = page1.tickets.find((x) => x.whatsappId === saved.id)!;
      assert.ok(ticket, 'the first message opened a ticket');
      await page.goto(`/tickets/${ticket.uuid}`);
      await page.getByTestId('message-list').getByText('Oi! Vim pelo Telegram').waitFor(LONG);
      await page.getByTestId('chat-contact').click();
      const drawer = page.getByTestId('contact-drawer');
      await drawer.getByTestId('drawer-name').filter({ hasText: 'Joana Telegram' }).waitFor();
      const identity = drawer.locator('[data-testid="contact-identities"] li[data-kind="telegram"]');
      await identity.getByText(String(chatId)).waitFor();
      await identity.locator('[data-testid="channel-icon"][data-channel="telegram"]').waitFor();
      await page.mouse.move(1, 1);
      await screenshot(page, `telegram-drawer-${dark ? 'dark-500' : 'light'}`);
    } finally {
      await page.context().close();
    }
  });
}
