import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { launch, newPage, pageApi, quietSimulator, screenshot, signInPage } from './browser.js';

let browser: Browser;
before(async () => {
  browser = await launch();
});
after(async () => {
  await browser.close();
});

const CUSTOMER = { from: '5511999930777', name: 'Cliente Adiado', body: 'Oi, tudo bem?' };

test('priority from the chat header shows in the list; a snoozed ticket moves to Adiados and comes back when the customer writes', async () => {
  const page = await newPage(browser);
  try {
    const token = await signInPage(page);
    const http = pageApi(page, token);
    const simulator = await quietSimulator(http);
    await page.goto('/tickets');
    await page.getByTestId('tab-pending').click();
    await http.post(`/simulator/${simulator.id}/inbound`, CUSTOMER);
    const row = page
      .getByTestId('ticket-list-pending')
      .locator('[data-testid="ticket-row"]')
      .filter({ hasText: CUSTOMER.name });
    await row.getByTestId('ticket-accept').click();
    await page.waitForURL(/\/tickets\/[0-9a-f-]{36}$/);
    const uuid = page.url().split('/').pop()!;
    const assigned = page.getByTestId('ticket-list-open');
    const mine = assigned.locator(`[data-testid="ticket-row"][data-uuid="${uuid}"]`);
    await mine.waitFor();

    // Priority: the header's menu; the row shows the urgent icon.
    await page.getByTestId('chat-priority').click();
    await page.getByTestId('priority-urgent').click();
    await page.locator('[data-testid="chat-priority"][data-priority="urgent"]').waitFor();
    await mine.locator('[data-testid="ticket-priority"][data-priority="urgent"]').waitFor();
    await page.mouse.move(0, 0);
    await screenshot(page, 'ticket-priority');

    // Snooze until the customer replies: out of the assigned list, into Adiados.
    await page.getByTestId('chat-snooze').click();
    await page.getByTestId('snooze-reply').click();
    await mine.waitFor({ state: 'detached' });
    await page.getByTestId('tab-snoozed').click();
    const snoozed = page
      .getByTestId('ticket-list-snoozed')
      .locator(`[data-testid="ticket-row"][data-uuid="${uuid}"]`);
    await snoozed.waitFor();
    await page.getByTestId('chat-wake').waitFor();
    await screenshot(page, 'ticket-snoozed');

    // The customer writes: back in the assigned list, with a notification.
    await http.post(`/simulator/${simulator.id}/inbound`, { ...CUSTOMER, body: 'Voltei!' });
    await snoozed.waitFor({ state: 'detached' });
    await page.getByText(`${CUSTOMER.name} respondeu`).first().waitFor();
    await page.getByTestId('tab-assigned').click();
    await mine.waitFor();
    assert.equal(await page.getByTestId('chat-snooze').count(), 1, 'the header offers snooze again');
  } finally {
    await page.close();
  }
});
