import { test } from 'node:test';
import { companyAdmin, fileBrowser, pageApi, screenshot, signInForm, until } from './browser.js';

const browser = fileBrowser();
const stamp = Date.now().toString(36).slice(-5);
const suffix = String(Date.now() % 10_000).padStart(4, '0');

type Row = { id: number; uuid: string; contact: { id: number; name: string } };

// #35.2 While the customer's required consent is pending, the chat says why above the composer (pt), and the
// line goes away by itself once the customer answers "sim" (no reload). Light and dark, 500 px.
for (const dark of [false, true]) {
  test(`consent pending line above the composer (${dark ? 'dark' : 'light'}, 500 px)`, async () => {
    const { email, admin } = await companyAdmin(dark ? 'ConsEsc' : 'ConsCla', 5, stamp, 'Consent Admin');
    await admin.put('/settings/privacy', { consentRequired: true });
    const w = await admin.post<{ id: number }>('/whatsapp', { name: `Sim ${stamp}`, channel: 'simulator' });
    await until(
      () => admin.get<{ id: number; status: string }[]>('/whatsapp'),
      (list) => list.some((c) => c.id === w.id && c.status === 'CONNECTED'),
      'the simulator connected',
    );
    const number = `5511966${dark ? 1 : 0}${suffix}${dark ? '1' : '0'}`.slice(0, 13);
    const name = `Cliente ${stamp} ${dark ? 'E' : 'C'}`;
    await admin.post(`/simulator/${w.id}/inbound`, { from: number, name, body: 'Olá, preciso de ajuda' });
    const ticket = (await until(
      async () =>
        (await admin.get<{ tickets: Row[] }>('/tickets?status=pending&showAll=true')).tickets.find(
          (x) => x.contact.name === name,
        ),
      Boolean,
      'the customer ticket',
    ))!;
    const page = await browser.newPage({ width: 500, height: 900 });
    try {
      const http = pageApi(page, await signInForm(page, email, dark));
      await http.put(`/tickets/${ticket.id}`, { status: 'open' });
      await page.goto(`/tickets/${ticket.uuid}`);
      await page.getByTestId('message-list').getByText('Olá, preciso de ajuda').waitFor();
      const line = page.locator('[data-testid="consent-reply-line"][data-block="pending"]');
      await line.getByText('Aguardando o consentimento do contato (LGPD)').waitFor();
      await page.mouse.move(1, 1);
      await screenshot(page, `consent-line-${dark ? 'dark' : 'light'}-500`);
      // The customer accepts: the line leaves on its own.
      await http.post(`/simulator/${w.id}/inbound`, { from: number, body: 'sim' });
      await line.waitFor({ state: 'detached' });
    } finally {
      await page.close();
    }
  });
}
