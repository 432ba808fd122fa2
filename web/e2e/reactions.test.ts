import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import {
  COMPANY_ADMIN_PASSWORD,
  createCompany,
  launch,
  newPage,
  pageApi,
  screenshot,
  signInPage,
  until,
} from './browser.js';
import {
  startFakeGraph,
  type FakeGraph,
} from '../../server/src/messaging/channels/cloud-api/fake-graph-api.js';

/**
 * #33.7 Reactions end to end on a Cloud API connection (the server's Graph calls reach the local Graph double,
 * run.mjs's CLOUD_API_GRAPH_URL): the attendant reacts from a bubble's menu and sees the reaction on the
 * bubble (and Meta got a `type: "reaction"` message); the customer's reaction arrives through the signed
 * webhook and shows on the attendant's bubble, live. Light and dark.
 */
let browser: Browser;
let graph: FakeGraph;
const APP_SECRET = 'e2e-reaction-app-secret';
const stamp = Date.now().toString(36);
const LONG = { timeout: 30_000 };

before(async () => {
  browser = await launch();
  graph = await startFakeGraph({ port: Number(process.env.E2E_GRAPH_PORT ?? 0) });
});
after(async () => {
  await browser.close();
  await graph.close();
});

/** A signed Meta webhook with one customer message (`message`: its type and content). */
async function webhook(
  page: Page,
  whatsappId: number,
  from: string,
  name: string,
  id: string,
  message: object,
) {
  const payload = JSON.stringify({
    object: 'whatsapp_business_account',
    entry: [
      {
        id: graph.wabaId,
        changes: [
          {
            field: 'messages',
            value: {
              messaging_product: 'whatsapp',
              metadata: {
                display_phone_number: graph.displayPhoneNumber,
                phone_number_id: graph.phoneNumberId,
              },
              contacts: [{ profile: { name }, wa_id: from }],
              messages: [{ from, id, timestamp: String(Math.floor(Date.now() / 1000)), ...message }],
            },
          },
        ],
      },
    ],
  });
  const res = await page.request.post(`/api/webhooks/cloud-api/${whatsappId}`, {
    headers: {
      'content-type': 'application/json',
      'x-hub-signature-256': `sha256=${createHmac('sha256', APP_SECRET).update(payload).digest('hex')}`,
    },
    data: payload,
  });
  assert.equal(res.status(), 200, await res.text());
}

for (const theme of ['light', 'dark'] as const) {
  test(`reactions (${theme}): the attendant reacts from the bubble menu; the customer's reaction shows live`, async () => {
    const page = await newPage(browser);
    const customer = { number: theme === 'light' ? '5511987650031' : '5511987650032', name: `Rita ${theme}` };
    try {
      const email = await createCompany(`Reage${theme}`, 5, stamp);
      const token = await signInPage(
        page,
        { email, password: COMPANY_ADMIN_PASSWORD },
        { preferredTheme: theme },
      );
      const http = pageApi(page, token);
      const w = await http.post<{ id: number }>('/whatsapp', {
        name: `Oficial ${theme} ${stamp}`,
        channel: 'cloud_api',
        channelConfig: {
          phoneNumberId: graph.phoneNumberId,
          accessToken: graph.token,
          appSecret: APP_SECRET,
          verifyToken: 'e2e-verify',
        },
      });
      await until(
        async () =>
          (await http.get<{ id: number; status: string }[]>('/whatsapp')).find((x) => x.id === w.id)?.status,
        (s) => s === 'CONNECTED',
        'the Cloud API connection to connect',
      );
      const inboundId = `wamid.R${theme}${stamp}`;
      await webhook(page, w.id, customer.number, customer.name, inboundId, {
        type: 'text',
        text: { body: 'Chegou o meu pedido!' },
      });

      await page.goto('/tickets');
      await page.getByTestId('tab-pending').click(LONG);
      const row = page
        .getByTestId('ticket-list-pending')
        .locator('[data-testid="ticket-row"]')
        .filter({ hasText: customer.name });
      await row.waitFor(LONG);
      await row.getByTestId('ticket-accept').click();
      await page.waitForURL(/\/tickets\/[0-9a-f-]{36}$/);
      const chat = page.getByTestId('ticket-chat');
      const theirs = chat
        .locator('[data-testid="message"][data-from="contact"]')
        .filter({ hasText: 'Chegou o meu pedido' });
      await theirs.waitFor(LONG);

      // The bubble's menu: the quick row of emoji; ❤️ goes to the customer and shows on the bubble.
      const before = graph.accepted.length;
      await theirs.hover();
      await theirs.getByTestId('message-menu').click();
      const picker = page.getByTestId('reaction-picker');
      await picker.waitFor();
      // The menu's fade-in has ended (its paper fully opaque) before the picture.
      await page.waitForFunction(() => {
        const paper = document.querySelector('.MuiPopover-paper');
        return paper !== null && getComputedStyle(paper).opacity === '1';
      });
      await screenshot(page, `reactions-picker-${theme}`);
      await picker.getByRole('button', { name: /❤️/ }).click();
      const mine = theirs.locator('[data-testid="message-reaction"][data-who="company"]');
      await mine.waitFor(LONG);
      assert.equal(await mine.getAttribute('data-emoji'), '❤️');
      const sent = await until(
        async () => graph.accepted.slice(before).filter((a) => a.type === 'reaction'),
        (list) => list.length === 1,
        'Meta to receive the reaction',
      );
      assert.deepEqual(sent[0]!.body.reaction, { message_id: inboundId, emoji: '❤️' });

      // The attendant answers; the customer reacts to the answer on the phone: it shows, live.
      await page.getByTestId('message-text').fill('Que bom! Obrigado.');
      await page.getByTestId('message-text').press('Enter');
      const ours = chat.locator('[data-testid="message"][data-from="me"]').filter({ hasText: 'Que bom!' });
      await ours.locator('[data-testid="ack"][data-ack="1"]').waitFor(LONG);
      const wamid = graph.accepted.filter((a) => a.type === 'text').at(-1)!.id;
      await webhook(page, w.id, customer.number, customer.name, `wamid.RR${theme}${stamp}`, {
        type: 'reaction',
        reaction: { message_id: wamid, emoji: '🙏' },
      });
      const theirReaction = ours.locator('[data-testid="message-reaction"][data-who="customer"]');
      await theirReaction.waitFor(LONG);
      assert.equal(await theirReaction.getAttribute('data-emoji'), '🙏');
      await screenshot(page, `reactions-${theme}`);

      // Removing, by keyboard: the menu opens on the reaction row; right along it, left round to "remove".
      await theirs.getByTestId('message-menu').focus();
      await page.keyboard.press('Enter');
      await page.locator('[data-testid="reaction-picker"]:focus').waitFor();
      await page.keyboard.press('ArrowRight');
      await page.locator('[data-testid="reaction-option"][data-emoji="👍"]:focus').waitFor();
      await page.keyboard.press('ArrowRight');
      await page
        .locator('[data-testid="reaction-option"][data-emoji="❤️"][aria-pressed="true"]:focus')
        .waitFor();
      await page.keyboard.press('ArrowLeft');
      await page.keyboard.press('ArrowLeft');
      await page.locator('[data-testid="reaction-remove"]:focus').waitFor();
      await page.keyboard.press('Enter');
      await mine.waitFor({ state: 'detached', ...LONG });
      await until(
        async () => graph.accepted.filter((a) => a.type === 'reaction').at(-1)?.body.reaction,
        (r) => (r as { emoji?: string } | undefined)?.emoji === '',
        'Meta to receive the removal',
      );
    } finally {
      await page.close();
    }
  });
}
