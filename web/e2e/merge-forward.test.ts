import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { launch, newPage, pageApi, quietSimulator, screenshot, signInPage, until } from './browser.js';

// #32.8 merge two contacts from the duplicates view; #32.9 forward a message from the chat's menu.
let browser: Browser;
before(async () => {
  browser = await launch();
});
after(async () => {
  await browser.close();
});

const stamp = Date.now().toString(36);
const digits = () => String(Math.floor(Math.random() * 9_000_000) + 1_000_000);

test('duplicates view: a suggested pair merges in one click, the other contact is gone', async () => {
  for (const [theme, width] of [
    ['light', 1366],
    ['dark', 500],
  ] as const) {
    const page = await newPage(browser, { width });
    try {
      const token = await signInPage(page, undefined, { preferredTheme: theme });
      const http = pageApi(page, token);
      const email = `dup-${theme}-${stamp}@exemplo.com`;
      const a = await http.post<{ id: number; name: string }>('/contacts', {
        name: `Dup A ${theme} ${stamp}`,
        number: `(11) 9${digits().slice(0, 4)}-${digits().slice(0, 4)}`,
        email,
      });
      const b = await http.post<{ id: number }>('/contacts', {
        name: `Dup B ${theme} ${stamp}`,
        number: `(21) 9${digits().slice(0, 4)}-${digits().slice(0, 4)}`,
        email: email.toUpperCase(),
      });
      await page.goto('/contacts');
      await page.getByRole('heading', { name: 'Contatos' }).waitFor();
      await page.getByTestId('contacts-duplicates').click();
      const dialog = page.getByRole('dialog', { name: 'Possíveis duplicados' });
      let row = dialog.getByTestId('duplicate-row').filter({ hasText: `Dup A ${theme} ${stamp}` });
      // Suggestions are paged: load more until ours shows.
      while (!(await row.count())) {
        const more = dialog.getByRole('button', { name: 'Carregar mais' });
        await more.or(row).first().waitFor();
        if (await row.count()) break;
        await more.click();
        row = dialog.getByTestId('duplicate-row').filter({ hasText: `Dup A ${theme} ${stamp}` });
      }
      await row.getByText('Mesmo e-mail').waitFor();
      await screenshot(page, `duplicates-${theme}-${width}`);
      await row.getByRole('button', { name: /^Mesclar em/ }).click();
      const confirm = page.getByRole('dialog', { name: 'Mesclar contatos' });
      await confirm.getByTestId('merge-preview').waitFor();
      await screenshot(page, `merge-confirm-${theme}-${width}`);
      await confirm.getByTestId('merge-confirm').click();
      await page.getByText('Contatos mesclados').waitFor();
      await confirm.waitFor({ state: 'detached' });
      const gone = await page.request.get(`/api/contacts/${b.id}`, {
        headers: { authorization: `Bearer ${token}` },
      });
      assert.equal(gone.status(), 404);
      const kept = await http.get<{ id: number; email: string }>(`/contacts/${a.id}`);
      assert.equal(kept.email, email);
    } finally {
      await page.close();
    }
  }
});

test('forward: a message goes from one chat to another open ticket, marked forwarded', async () => {
  const page = await newPage(browser, { width: 1366 });
  try {
    const token = await signInPage(page);
    const http = pageApi(page, token);
    const sim = await quietSimulator(http);
    const from = { from: `5511${9}${digits()}${digits().slice(0, 1)}`, name: `Origem ${stamp}` };
    const to = { from: `5521${9}${digits()}${digits().slice(0, 1)}`, name: `Destino ${stamp}` };
    await http.post(`/simulator/${sim.id}/inbound`, { ...from, body: `Encaminhe isto ${stamp}` });
    await http.post(`/simulator/${sim.id}/inbound`, { ...to, body: 'Oi' });
    type T = { id: number; uuid: string; contact: { name: string } };
    const find = (name: string) =>
      until(
        () =>
          http.get<{ tickets: T[] }>(
            `/tickets?status=pending&showAll=true&searchParam=${encodeURIComponent(name)}`,
          ),
        (p) => p.tickets.length > 0,
        name,
      ).then((p) => p.tickets[0]!);
    const source = await find(from.name);
    const target = await find(to.name);
    await http.put(`/tickets/${source.id}`, { status: 'open' });
    await http.put(`/tickets/${target.id}`, { status: 'open' });

    await page.goto(`/tickets/${source.uuid}`);
    const chat = page.getByTestId('ticket-chat');
    const bubble = chat.locator('[data-testid="message"]').filter({ hasText: `Encaminhe isto ${stamp}` });
    await bubble.hover();
    await bubble.getByTestId('message-menu').click();
    await page.getByRole('menuitem', { name: 'Encaminhar' }).click();
    const dialog = page.getByRole('dialog', { name: /Encaminhar 1 mensagem/ });
    await dialog.getByTestId('forward-ticket').locator('input').fill(to.name);
    await page.getByRole('option', { name: new RegExp(`Destino ${stamp}`) }).click();
    await screenshot(page, 'forward-dialog-light-1366');
    await dialog.getByTestId('forward-send').click();
    await page.getByText('Mensagens encaminhadas').waitFor();
    const sent = await until(
      () =>
        http.get<{ messages: { body: string; fromMe: boolean; data?: { forwarded?: boolean } }[] }>(
          `/messages/${target.id}`,
        ),
      (p) => p.messages.some((m) => m.fromMe && m.body === `Encaminhe isto ${stamp}`),
      'the forwarded copy',
    );
    assert.equal(sent.messages.find((m) => m.fromMe)!.data?.forwarded, true);
  } finally {
    await page.close();
  }
});
