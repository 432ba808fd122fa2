import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileBrowser, pageApi, quietSimulator, screenshot, signInPage, until } from './browser.js';

// #32.1/#32.2 The keyboard alone finds a ticket by its protocol (Ctrl+K, type, Enter), accepts it (A) and
// runs a macro on it (Ctrl+K, its name, Enter) that tags it, answers the customer and resolves it. Light 1366 px and dark 500 px.
const browser = fileBrowser();

const stamp = Date.now().toString(36);

for (const [theme, width] of [
  ['light', 1366],
  ['dark', 500],
] as const) {
  test(`command bar and macro (${theme}, ${width} px)`, async () => {
    const page = await browser.newPage({ width });
    try {
      const token = await signInPage(page, undefined, { preferredTheme: theme });
      const http = pageApi(page, token);
      const simulator = await quietSimulator(http);
      const customer = {
        from: `55119888${theme === 'light' ? '1' : '2'}${String(Date.now() % 10_000).padStart(4, '0')}`,
        name: `Cliente Macro ${theme} ${stamp}`,
        body: 'Quero fechar o pedido',
      };
      await http.post(`/simulator/${simulator.id}/inbound`, customer);
      type Found = { tickets: { id: number; uuid: string; protocol: string; contact: { name: string } }[] };
      const found = await until(
        () => http.get<Found>(`/tickets?showAll=true&searchParam=${encodeURIComponent(customer.name)}`),
        (f) => f.tickets.some((x) => x.contact.name === customer.name),
        'the inbound ticket',
      );
      const ticket = found.tickets.find((x) => x.contact.name === customer.name);
      assert.ok(ticket?.protocol, 'the ticket has a protocol');
      const tag = await http.post<{ id: number; name: string }>('/tags', { name: `Venda ${theme} ${stamp}` });
      const macro = await http.post<{ id: number; name: string }>('/macros', {
        name: `Fechar venda ${theme} ${stamp}`,
        actions: [
          { type: 'add_tags', tagIds: [tag.id] },
          { type: 'send_text', text: 'Obrigado, {{firstName}}! Protocolo {{protocol}}.' },
          { type: 'resolve' },
        ],
      });

      // Keyboard only: Ctrl+K, the protocol, Enter opens the ticket.
      await page.goto('/tickets');
      await page.getByTestId('ticket-list-open').or(page.getByTestId('tab-pending')).first().waitFor();
      await page.keyboard.press('Control+k');
      const input = page.getByTestId('command-bar-input');
      await input.waitFor();
      await page.keyboard.type(ticket!.protocol);
      const hit = page.locator(
        `[data-testid="command-bar-item"][data-key="ticket-${ticket!.id}"][aria-selected="true"]`,
      );
      await hit.waitFor();
      await screenshot(page, `command-bar-${theme}-${width}`);
      await page.keyboard.press('Enter');
      await page.waitForURL(new RegExp(`/tickets/${ticket!.uuid}$`));
      const chat = page.locator(`[data-testid="ticket-chat"][data-ticket-id="${ticket!.id}"]`);
      await chat.waitFor();

      // "?" lists the shortcuts; Esc closes it. "A" accepts the waiting ticket.
      await page
        .locator('body')
        .click({ position: { x: 1, y: 1 } })
        .catch(() => undefined);
      await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
      await page.keyboard.press('?');
      await page.getByTestId('shortcuts-sheet').getByText('Atalhos de teclado').waitFor();
      await page.keyboard.press('Escape');
      await page.getByTestId('shortcuts-sheet').waitFor({ state: 'detached' });
      await page.keyboard.press('a');
      await page
        .locator(`[data-testid="ticket-chat"][data-ticket-id="${ticket!.id}"][data-status="open"]`)
        .waitFor();

      // The macro from the keyboard too (Ctrl+K, its name, Enter): tag, message and status.
      await page.keyboard.press('Control+k');
      await page.keyboard.type(macro.name);
      await page
        .locator(`[data-testid="command-bar-item"][data-key="macro-${macro.id}"][aria-selected="true"]`)
        .waitFor();
      await page.keyboard.press('Enter');
      await page.getByText(`Macro "${macro.name}" executada`).waitFor();
      await page
        .locator(`[data-testid="ticket-chat"][data-ticket-id="${ticket!.id}"][data-status="closed"]`)
        .waitFor();
      await page.getByText(`Obrigado, Cliente! Protocolo ${ticket!.protocol}.`).first().waitFor();
      await page.getByTestId('ticket-chat').getByText(tag.name).first().waitFor();
      const after = await http.get<{ status: string; tags: { id: number }[] }>(`/tickets/${ticket!.id}`);
      assert.equal(after.status, 'closed');
      assert.ok(after.tags.some((x) => x.id === tag.id));
      await screenshot(page, `macro-ran-${theme}-${width}`);

      // The Macros page lists it, in the menu's screen.
      await page.keyboard.press('Control+k');
      await page.keyboard.type('Macros');
      await page
        .locator('[data-testid="command-bar-item"][data-key="screen-macros"][aria-selected="true"]')
        .waitFor();
      await page.keyboard.press('Enter');
      await page.waitForURL(/\/macros$/);
      await page.locator(`[data-testid="macro-row"][data-name="${macro.name}"]`).waitFor();
      await screenshot(page, `macros-page-${theme}-${width}`);
    } finally {
      await page.close();
    }
  });
}
