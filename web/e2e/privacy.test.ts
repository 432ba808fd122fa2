import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { companyAdmin, fileBrowser, pageApi, screenshot, signInForm, until } from './browser.js';

const browser = fileBrowser();
const stamp = Date.now().toString(36).slice(-5);
const suffix = String(Date.now() % 10_000).padStart(4, '0');

type Row = { id: number; uuid: string; contact: { id: number; name: string } };

/** A company of its own with a simulator connection and one customer who wrote; answers the ticket. */
async function customerTicket(label: string, number: string, name: string, body: string) {
  const { email, admin } = await companyAdmin(label, 5, stamp, `${label} Admin`);
  const w = await admin.post<{ id: number }>('/whatsapp', { name: `Sim ${stamp}`, channel: 'simulator' });
  await until(
    () => admin.get<{ id: number; status: string }[]>('/whatsapp'),
    (list) => list.some((c) => c.id === w.id && c.status === 'CONNECTED'),
    'the simulator connected',
  );
  await admin.post(`/simulator/${w.id}/inbound`, { from: number, name, body });
  const ticket = await until(
    async () =>
      (await admin.get<{ tickets: Row[] }>('/tickets?status=pending&showAll=true')).tickets.find(
        (x) => x.contact.name === name,
      ),
    Boolean,
    'the customer ticket',
  );
  return { email, admin, whatsappId: w.id, ticket: ticket! };
}

// #35.1 An LGPD request from the contact drawer: export (a ZIP download) in one click, erase in two (the
// button, then the confirmation); both at 500 px, light then dark.
for (const dark of [false, true]) {
  test(`data subject request from the contact drawer (${dark ? 'dark' : 'light'}, 500 px)`, async () => {
    const number = `5511977${dark ? 1 : 0}${suffix}${dark ? '1' : '0'}`.slice(0, 13);
    const name = `Titular ${stamp} ${dark ? 'Escuro' : 'Claro'}`;
    const { email, admin, whatsappId, ticket } = await customerTicket(
      dark ? 'PrivEsc' : 'PrivCla',
      number,
      name,
      'Quero meus dados',
    );
    // The customer opts out with the default word: marked in the header and the drawer.
    await admin.post(`/simulator/${whatsappId}/inbound`, { from: number, body: 'SAIR' });
    await until(
      () => admin.get<{ status: string | null }>(`/contacts/${ticket.contact.id}/consent`),
      (c) => c.status === 'opted_out',
      'the opt-out',
    );
    const page = await browser.newPage({ width: 500, height: 900 });
    try {
      // The browser's sign-in ends the API session above: later checks use the page's.
      const http = pageApi(page, await signInForm(page, email, dark));
      // The contact list marks the opted-out contact too.
      await page.goto('/contacts');
      await page.getByTestId('contact-row').filter({ hasText: name }).getByTestId('opted-out-chip').waitFor();
      // The same requests from the Contacts page: the contact's dialog has them too (export in one click).
      await page
        .getByTestId('contact-row')
        .filter({ hasText: name })
        .getByRole('button', { name: 'Editar' })
        .click();
      const editing = page.getByRole('dialog');
      await editing.locator('[data-testid="contact-consent"][data-status="opted_out"]').waitFor();
      await editing.getByTestId('contact-erase').waitFor();
      await page.waitForFunction(() =>
        [...document.querySelectorAll('.MuiDialog-container')].some(
          (el) => getComputedStyle(el).opacity === '1',
        ),
      );
      await screenshot(page, `privacy-contact-dialog-${dark ? 'dark' : 'light'}-500`);
      const fromList = page.waitForEvent('download');
      await editing.getByTestId('contact-export').click();
      assert.equal((await fromList).suggestedFilename(), `contact-${ticket.contact.id}.zip`);
      await page.keyboard.press('Escape');
      await editing.waitFor({ state: 'detached' });
      await page.goto(`/tickets/${ticket.uuid}`);
      await page.getByTestId('message-list').getByText('Quero meus dados').waitFor();
      await page.getByTestId('opted-out-chip').filter({ hasText: 'Descadastrado' }).waitFor();
      await page.getByTestId('chat-contact').click();
      const drawer = page.getByTestId('contact-drawer');
      await drawer.getByTestId('drawer-name').filter({ hasText: name }).waitFor();
      await drawer.locator('[data-testid="contact-consent"][data-status="opted_out"]').waitFor();
      await page.mouse.move(1, 1);
      await screenshot(page, `privacy-drawer-${dark ? 'dark' : 'light'}-500`);

      // Export: one click, the ZIP arrives and the page says so.
      const download = page.waitForEvent('download');
      await drawer.getByTestId('contact-export').click();
      const file = await download;
      assert.equal(file.suggestedFilename(), `contact-${ticket.contact.id}.zip`);
      const zip = readFileSync((await file.path())!);
      assert.equal(zip.subarray(0, 4).toString('hex'), '504b0304', 'a ZIP archive');
      assert.ok(zip.includes(Buffer.from(number)), 'the number is in the export');
      await page.getByText('Os dados do contato foram baixados.').waitFor();

      // Erase: the button, then the confirmation.
      await drawer.getByTestId('contact-erase').click();
      const dialog = page.getByRole('dialog').filter({ hasText: 'Apagar os dados pessoais deste contato?' });
      await dialog.getByText(name).waitFor();
      // Shown once its fade-in ended (what the user sees), before the screenshot.
      await page.waitForFunction(() =>
        [...document.querySelectorAll('.MuiDialog-container')].some(
          (el) => getComputedStyle(el).opacity === '1',
        ),
      );
      await screenshot(page, `privacy-erase-confirm-${dark ? 'dark' : 'light'}-500`);
      await dialog.getByRole('button', { name: 'Apagar para sempre' }).click();
      await page.getByText('Os dados pessoais do contato foram apagados.').waitFor();
      await drawer.getByTestId('contact-erased').waitFor();
      await drawer.getByTestId('drawer-name').filter({ hasText: '—' }).waitFor();
      await page.getByTestId('message-list').getByText('Quero meus dados').waitFor({ state: 'detached' });
      await page.mouse.move(1, 1);
      await screenshot(page, `privacy-erased-${dark ? 'dark' : 'light'}-500`);
      const contact = await http.get<{ name: string; number: string }>(`/contacts/${ticket.contact.id}`);
      assert.deepEqual({ name: contact.name, number: contact.number }, { name: '—', number: '' });
      const log = await http.get<{ entries: { action: string; targetId: string }[] }>(
        '/audit-log?action=contact',
      );
      assert.ok(
        log.entries.some((e) => e.action === 'contact.erased' && e.targetId === String(ticket.contact.id)),
      );
    } finally {
      await page.close();
    }
  });
}

// #35.2-3 Settings → Privacy: consent, the opt-out word and retention with the preview of the next run.
test('privacy settings: consent and retention with its preview (500 px, dark)', async () => {
  const { email } = await companyAdmin('PrivCfg', 5, stamp);
  const page = await browser.newPage({ width: 500, height: 1000 });
  try {
    await signInForm(page, email, true);
    await page.goto('/settings?tab=privacy');
    const panel = page.getByTestId('privacy-settings');
    await panel.waitFor();
    await panel.getByTestId('privacy-preview').getByText('Retenção desligada: nada será apagado.').waitFor();
    await panel.getByTestId('privacy-consent-required').check();
    await panel.getByTestId('privacy-consent-text').fill('Podemos tratar seus dados? Responda SIM ou NÃO.');
    await panel.getByTestId('privacy-media-days').fill('30');
    await panel.getByTestId('privacy-ticket-months').fill('12');
    await panel.getByTestId('privacy-save').click();
    await page.getByText('Configurações de privacidade salvas.').waitFor();
    await panel.getByTestId('privacy-preview-media').filter({ hasText: '0 arquivos de mídia' }).waitFor();
    await panel.getByTestId('privacy-preview-tickets').filter({ hasText: '0 tickets fechados' }).waitFor();
    await page.mouse.move(1, 1);
    await screenshot(page, 'privacy-settings-dark-500');
    // It stays after a reload.
    await page.reload();
    await panel.getByTestId('privacy-media-days').and(page.locator('[value="30"]')).waitFor();
    assert.equal(await panel.getByTestId('privacy-consent-required').isChecked(), true);
  } finally {
    await page.close();
  }
});
