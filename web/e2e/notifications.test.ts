import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import {
  COMPANY_ADMIN_PASSWORD,
  companyAdmin,
  launch,
  newPage,
  PageApi,
  pageApi,
  quietSimulator,
  screenshot,
  signInPage,
} from './browser.js';

let browser: Browser;
before(async () => {
  browser = await launch();
});
after(async () => {
  await browser.close();
});

/** Customers of this file only (other files have their own numbers and names). */
const FIRST = { from: '5511988880101', name: 'Marina Sino', body: 'Bom dia! Alguém pode me atender?' };
const SECOND = { from: '5511988880102', name: 'Otávio Sino', body: 'Oi, queria saber do meu pedido' };

interface Ticket {
  id: number;
  uuid: string;
  status: string;
  unreadMessages: number;
  contact: { number: string };
}

test('notifications: the bell counts waiting and unread tickets live, on any page, and opens them', async () => {
  const page = await newPage(browser);
  // Count sounds (oscillators) and permission requests, to see what the page does on its own.
  await page.addInitScript(() => {
    const w = window as unknown as { __beeps: number; __permissionAsked: number };
    w.__beeps = 0;
    w.__permissionAsked = 0;
    const create = AudioContext.prototype.createOscillator;
    AudioContext.prototype.createOscillator = function (this: AudioContext) {
      w.__beeps++;
      return create.call(this);
    };
    const ask = Notification.requestPermission.bind(Notification);
    Notification.requestPermission = ((...args: Parameters<typeof Notification.requestPermission>) => {
      w.__permissionAsked++;
      return ask(...args);
    }) as typeof Notification.requestPermission;
  });
  let http: PageApi | undefined;
  try {
    // A company of this file's own: the bell counts every waiting ticket of the company, and the demo's may
    // gain one from another file's leftovers (a snooze waking, a late message) while this test counts.
    const { email } = await companyAdmin('Sino', 5, Date.now().toString(36));
    const token = await signInPage(page, { email, password: COMPANY_ADMIN_PASSWORD });
    http = pageApi(page, token);
    const simulator = await quietSimulator(http);

    // Another page than the tickets one: the bell lives in the top bar.
    await page.evaluate(() => localStorage.setItem('volume', '0.6'));
    await page.goto('/contacts');
    const bell = page.getByTestId('notifications-button');
    await bell.waitFor();
    const count = async () => {
      const label = (await bell.getAttribute('aria-label')) ?? '';
      const n = /(\d+)(\+?)/.exec(label);
      return { n: n ? Number(n[1]) : 0, more: Boolean(n?.[2]) };
    };
    const waitCount = async (n: number) => {
      const deadline = Date.now() + 10_000;
      while ((await count()).n !== n) {
        if (Date.now() > deadline) assert.fail(`the bell shows ${(await count()).n}, not ${n}`);
        await page.waitForTimeout(100);
      }
    };
    await page.waitForTimeout(1000);
    const before = await count();
    assert.equal(before.more, false, 'fewer than a page of waiting tickets at the start');

    // A customer writes: the count rises without a reload, with a sound.
    await http.post(`/simulator/${simulator.id}/inbound`, FIRST);
    await waitCount(before.n + 1);
    const badge = page.getByTestId('notifications-button-badge');
    assert.equal(await badge.innerText(), String(before.n + 1));
    await page.waitForFunction(() => (window as unknown as { __beeps: number }).__beeps > 0);

    // The popover lists it, newest first, waiting.
    await bell.click();
    const panel = page.getByTestId('notifications-panel');
    const rows = panel.getByTestId('notification-row');
    await rows.first().filter({ hasText: FIRST.name }).waitFor();
    const first = rows.filter({ hasText: FIRST.name });
    assert.equal(await first.getAttribute('data-status'), 'pending');
    await first.getByText('Aguardando').waitFor();
    await first.getByTestId('notification-last-message').filter({ hasText: FIRST.body }).waitFor();
    // Browser notifications are asked for from this button only, never on load.
    assert.equal(
      await page.evaluate(() => (window as unknown as { __permissionAsked: number }).__permissionAsked),
      0,
    );
    const enable = panel.getByTestId('notifications-enable');
    await enable.waitFor();
    await page.mouse.move(0, 0);
    await page.waitForTimeout(300);
    await screenshot(page, 'notifications-popover');

    // A second customer: on top of the list while it is open.
    await http.post(`/simulator/${simulator.id}/inbound`, SECOND);
    await rows.first().filter({ hasText: SECOND.name }).waitFor();
    assert.equal((await count()).n, before.n + 2);
    await page.context().grantPermissions(['notifications']);
    await enable.click();
    await enable.waitFor({ state: 'detached' });
    assert.equal(
      await page.evaluate(() => (window as unknown as { __permissionAsked: number }).__permissionAsked),
      1,
    );

    // Opening a row goes to its ticket; accepting it takes it out of "waiting".
    await first.click();
    await page.waitForURL(/\/tickets\/[0-9a-f-]{36}$/);
    const uuid = page.url().split('/').pop()!;
    await panel.waitFor({ state: 'detached' });
    const ticket = await http.get<Ticket>(`/tickets/u/${uuid}`);
    assert.equal(ticket.contact.number, FIRST.from);
    await page.getByTestId('chat-accept').click();
    await page
      .getByTestId('ticket-chat')
      .locator('[data-testid="chat-status"][data-status="open"]')
      .waitFor();
    // Opened, its unread message is read.
    for (let i = 0; i < 50 && (await http.get<Ticket>(`/tickets/u/${uuid}`)).unreadMessages > 0; i++)
      await page.waitForTimeout(100);
    await waitCount(before.n + 1);

    // Elsewhere again, the customer of the accepted ticket writes: an unread open ticket on the bell.
    await page.goto('/contacts');
    await bell.waitFor();
    await http.post(`/simulator/${simulator.id}/inbound`, { ...FIRST, body: 'Ainda está aí?' });
    await waitCount(before.n + 2);
    await bell.click();
    const unread = rows.filter({ hasText: FIRST.name });
    await unread.getByTestId('notification-last-message').filter({ hasText: 'Ainda está aí?' }).waitFor();
    assert.equal(await unread.getAttribute('data-status'), 'open');
    assert.equal(await unread.getByTestId('notification-unread').innerText(), '1');
    assert.equal(await panel.getByTestId('notifications-enable').count(), 0, 'granted: no button');
    await page.mouse.move(0, 0);
    await page.waitForTimeout(300);
    await screenshot(page, 'notifications-unread');

    // Reading it (opening the chat) clears it from the bell.
    await unread.click();
    await page.waitForURL(`**/tickets/${uuid}`);
    await waitCount(before.n + 1);

    // Narrow screen: the popover fits.
    await page.setViewportSize({ width: 390, height: 780 });
    await page.goto('/contacts');
    await bell.click();
    await rows.filter({ hasText: SECOND.name }).waitFor();
    await page.waitForTimeout(300);
    await screenshot(page, 'notifications-narrow');
    await page.keyboard.press('Escape');
  } catch (err) {
    await screenshot(page, 'notifications-failure');
    throw err;
  } finally {
    // Leave nothing waiting or open for the other browser tests.
    for (const status of ['pending', 'open']) {
      const list = await http
        ?.get<{ tickets: Ticket[] }>(`/tickets?status=${status}&showAll=true`)
        .catch(() => undefined);
      for (const tk of list?.tickets ?? [])
        if ([FIRST.from, SECOND.from].includes(tk.contact.number))
          await http?.put(`/tickets/${tk.id}`, { status: 'closed' }).catch(() => undefined);
    }
    await page.context().close();
  }
});
