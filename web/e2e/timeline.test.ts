import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { launch, newPage, pageApi, quietSimulator, screenshot, signInPage, until } from './browser.js';

let browser: Browser;
before(async () => {
  browser = await launch();
});
after(async () => {
  await browser.close();
});

const stamp = Date.now().toString(36).slice(-5);
const CUSTOMER = { from: '5511999930611', name: 'Cliente Linha do Tempo', body: 'Oi, quero um plano' };

// #32.5 The chat header's "Show events" toggle puts the ticket's timeline between its messages: a transfer
// shows as a small centred line naming who moved it, from where to where, and when. At 500 px, dark theme.
test('the events toggle shows a transfer line between the messages', async () => {
  const page = await newPage(browser, { width: 500, height: 860 });
  try {
    const token = await signInPage(page, undefined, { preferredTheme: 'dark' });
    const http = pageApi(page, token);
    const vendas = await http.post<{ id: number }>('/queue', { name: `Vendas ${stamp}`, color: '#1f7a4d' });
    const suporte = await http.post<{ id: number }>('/queue', { name: `Suporte ${stamp}`, color: '#7a1f4d' });
    const simulator = await quietSimulator(http);
    await http.post(`/simulator/${simulator.id}/inbound`, CUSTOMER);
    type Row = { id: number; uuid: string; contact: { name: string }; userId: number | null };
    const ticket = await until(
      async () =>
        (await http.get<{ tickets: Row[] }>('/tickets?status=pending&showAll=true')).tickets.find(
          (x) => x.contact.name === CUSTOMER.name,
        ),
      Boolean,
      'the customer ticket',
    );
    // Accepted, moved to Vendas (waiting there), then taken into Suporte by the admin.
    const accepted = await http.put<Row>(`/tickets/${ticket!.id}`, { status: 'open' });
    await http.put(`/tickets/${ticket!.id}`, { queueId: vendas.id });
    await http.put(`/tickets/${ticket!.id}`, { queueId: suporte.id, userId: accepted.userId });

    await page.goto(`/tickets/${ticket!.uuid}`);
    await page.getByTestId('message-list').getByText(CUSTOMER.body).waitFor();
    assert.equal(await page.getByTestId('timeline-event').count(), 0, 'no events before the toggle');
    const toggle = page.getByTestId('chat-events-toggle');
    assert.equal(await toggle.getAttribute('aria-pressed'), 'false');
    await toggle.click();
    assert.equal(await toggle.getAttribute('aria-pressed'), 'true');
    const transfer = page.locator('[data-testid="timeline-event"][data-type="transferred"]').last();
    await transfer.waitFor();
    const text = (await transfer.innerText()).trim();
    assert.match(text, new RegExp(`transferiu de Vendas ${stamp} para Suporte ${stamp}`));
    assert.match(text, /· \d{2}:\d{2}$/);
    await page.locator('[data-testid="timeline-event"][data-type="created"]').waitFor();
    await page.locator('[data-testid="timeline-event"][data-type="accepted"]').waitFor();
    // It fits at 500 px: the line is no wider than the list.
    const list = await page.getByTestId('message-list').boundingBox();
    const line = await transfer.boundingBox();
    assert.ok(list && line && line.width <= list.width + 1, 'the line fits the chat');
    await screenshot(page, 'ticket-timeline-500-dark');

    // Off again: the lines go, and the choice is remembered.
    await toggle.click();
    await page.getByTestId('timeline-event').first().waitFor({ state: 'detached' });
    assert.equal(await page.evaluate(() => localStorage.getItem('showTicketEvents')), '0');
  } finally {
    await page.close();
  }
});
