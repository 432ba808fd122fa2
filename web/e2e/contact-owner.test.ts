import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { DEMO_ADMIN, DEMO_USER, launch, newPage, screenshot } from './browser.js';

// #30.4 The contact's owner attendant, chosen in the contact dialog, saved as ownerId and shown after a reload.
let browser: Browser;
before(async () => {
  browser = await launch();
});
after(async () => {
  await browser.close();
});

async function signIn(page: Page, theme: 'light' | 'dark') {
  await page.goto('/login');
  const res = await page.request.post('/api/auth/login', { data: DEMO_ADMIN });
  assert.equal(res.status(), 200, await res.text());
  const { token } = (await res.json()) as { token: string };
  await page.evaluate(
    ([tk, th]) => {
      localStorage.setItem('token', JSON.stringify(tk));
      localStorage.setItem('preferredTheme', th!);
    },
    [token, theme],
  );
  return { authorization: `Bearer ${token}` };
}

const stamp = Date.now().toString(36);
const suffix = String(Date.now() % 10_000).padStart(4, '0');

test('contact owner: picked in the dialog, saved, shown after a reload, cleared', async () => {
  for (const [theme, width] of [
    ['light', 1366],
    ['dark', 500],
  ] as const) {
    const page = await newPage(browser, { width });
    try {
      const auth = await signIn(page, theme);
      const users = (await (await page.request.get('/api/users/list', { headers: auth })).json()) as {
        id: number;
        name: string;
        email?: string;
      }[];
      const attendant = users.find((u) => u.email === DEMO_USER.email) ?? users[0]!;
      const name = `Dono ${theme} ${stamp}`;
      const created = await page.request.post('/api/contacts', {
        headers: auth,
        data: { name, number: `(11) 97${theme === 'light' ? '1' : '2'}00-${suffix}` },
      });
      assert.ok(created.ok(), await created.text());
      const contactId = ((await created.json()) as { id: number }).id;

      await page.goto('/contacts');
      await page.getByRole('heading', { name: 'Contatos' }).waitFor();
      await page.getByRole('searchbox', { name: 'Pesquisar' }).fill(stamp);
      const row = page.getByTestId('contact-row').filter({ hasText: name });
      await row.getByRole('button', { name: 'Editar' }).click();
      let dialog = page.getByRole('dialog');
      const owner = dialog.getByRole('combobox', { name: 'Responsável' });
      await owner.waitFor();
      await owner.click();
      await page.getByRole('option', { name: attendant.name, exact: true }).click();
      await page.mouse.move(1, 1);
      await screenshot(page, `contact-owner-dialog-${theme}-${width}`);
      await dialog.getByRole('button', { name: 'Salvar' }).click();
      await dialog.waitFor({ state: 'detached' });
      await page.getByText('Contato salvo com sucesso.').waitFor();
      const saved = (await (
        await page.request.get(`/api/contacts/${contactId}`, { headers: auth })
      ).json()) as {
        ownerId: number | null;
      };
      assert.equal(saved.ownerId, attendant.id);

      // After a reload the dialog shows the owner's name; clearing it saves no owner.
      await page.reload();
      await page.getByRole('searchbox', { name: 'Pesquisar' }).fill(stamp);
      await row.getByRole('button', { name: 'Editar' }).click();
      dialog = page.getByRole('dialog');
      await page.waitForFunction(
        (want) =>
          (document.querySelector('[role="dialog"] input[role="combobox"]') as HTMLInputElement | null)
            ?.value === want,
        attendant.name,
      );
      // Emptying the field clears the owner (the picker is clearable).
      await dialog.getByRole('combobox', { name: 'Responsável' }).fill('');
      await dialog.getByRole('button', { name: 'Salvar' }).click();
      await dialog.waitFor({ state: 'detached' });
      const cleared = (await (
        await page.request.get(`/api/contacts/${contactId}`, { headers: auth })
      ).json()) as { ownerId: number | null };
      assert.equal(cleared.ownerId, null);
    } finally {
      await page.context().close();
    }
  }
});
