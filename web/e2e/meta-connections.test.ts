import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { createCompany, launch, newPage, pageApi, screenshot, signInForm, until } from './browser.js';
import {
  startFakeGraph,
  type FakeGraph,
} from '../../server/src/messaging/channels/cloud-api/fake-graph-api.js';

/**
 * #34 Instagram and Messenger connections in the connections page (docs/channels.md): an admin adds a
 * Messenger connection with the form (page id, page token, app secret, the verify token generated for them),
 * it connects through the Graph stand-in (run.mjs points CLOUD_API_GRAPH_URL at it), the saved secrets come
 * back masked, and the edit dialog shows the webhook URL and verify token to paste into Meta's dashboard —
 * light at desktop width, dark at 500 px; the Instagram form asks for the Instagram account id.
 */
let browser: Browser;
let graph: FakeGraph;
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

const row = (page: Page, name: string) => page.locator(`[data-testid="connection-row"][data-name="${name}"]`);

test('Messenger: added with the form, connected, secrets masked; the edit dialog shows the webhook URL and verify token', async () => {
  const email = await createCompany('MetaForm', 1, stamp);
  const name = `Messenger ${stamp}`;
  let id = 0;
  let verifyToken = '';
  const page = await newPage(browser);
  try {
    const token = await signInForm(page, email);
    await page.goto('/connections');
    await page.getByRole('button', { name: 'Adicionar conexão' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.locator('[data-field="name"]').fill(name);
    await dialog.getByRole('combobox', { name: 'Canal' }).click();
    await page.getByRole('option', { name: 'Messenger' }).click();
    await dialog.locator('[data-section="messenger"]').waitFor();
    await dialog.getByText('ID da página do Facebook').first().waitFor();
    verifyToken = await dialog.locator('[data-field="meta.verifyToken"]').inputValue();
    assert.ok(verifyToken.length >= 20, `a verify token is proposed: ${verifyToken}`);
    await dialog.getByText('A URL do webhook aparece aqui depois de salvar.').waitFor();
    // Required fields are said so before anything is sent.
    await dialog.getByRole('button', { name: 'Salvar' }).click();
    await dialog.locator('[data-field="meta.accountId"][aria-invalid="true"]').waitFor();
    await dialog.locator('[data-field="meta.accountId"]').fill(graph.pageId);
    await dialog.locator('[data-field="meta.pageAccessToken"]').fill(graph.token);
    await dialog.locator('[data-field="meta.appSecret"]').fill('e2e-meta-app-secret');
    await page.mouse.move(0, 0);
    await screenshot(page, 'meta-connection-new-light');
    await dialog.getByRole('button', { name: 'Salvar' }).click();
    await dialog.waitFor({ state: 'detached' });
    await row(page, name).locator('[data-testid="connection-status"][data-status="CONNECTED"]').waitFor(LONG);
    const list = await pageApi(page, token).get<
      { id: number; name: string; channelConfig: Record<string, unknown> }[]
    >('/whatsapp');
    const saved = list.find((w) => w.name === name)!;
    id = saved.id;
    assert.equal(saved.channelConfig.pageId, graph.pageId);
    assert.equal(saved.channelConfig.verifyToken, verifyToken);
    assert.equal(saved.channelConfig.pageAccessTokenSealed, '********');
    assert.equal(saved.channelConfig.appSecretSealed, '********');
    assert.ok(!JSON.stringify(list).includes(graph.token), 'the page token is never answered');
    // Meta's handshake on the URL the form shows.
    const hs = await page.request.get(
      `/api/webhooks/meta/${id}?hub.mode=subscribe&hub.verify_token=${encodeURIComponent(verifyToken)}&hub.challenge=42`,
    );
    assert.equal(await hs.text(), '42');
  } finally {
    await page.context().close();
  }

  const small = await newPage(browser, { width: 500, height: 900 });
  try {
    await signInForm(small, email, true);
    await small.goto('/connections');
    await row(small, name).getByRole('button', { name: 'Editar' }).click();
    const dialog = small.getByRole('dialog');
    const url = dialog.locator('[data-field="meta.webhookUrl"]');
    await url.waitFor();
    assert.match(await url.inputValue(), new RegExp(`/api/webhooks/meta/${id}$`));
    assert.equal(await dialog.locator('[data-field="meta.verifyToken"]').inputValue(), verifyToken);
    assert.equal(await dialog.locator('[data-field="meta.pageAccessToken"]').inputValue(), '');
    await dialog.getByText('Guardado. Deixe vazio para manter ou cole um novo.').first().waitFor();
    const box = await dialog.boundingBox();
    assert.ok(box && box.width <= 500, `the dialog fits 500 px: ${box?.width}`);
    await dialog.locator('[data-section="messenger"]').scrollIntoViewIfNeeded();
    await small.mouse.move(0, 0);
    await screenshot(small, 'meta-connection-edit-dark-500');
    // Saving with nothing changed keeps the secrets (still connected, still masked).
    await dialog.getByRole('button', { name: 'Salvar' }).click();
    await dialog.waitFor({ state: 'detached' });
    await row(small, name)
      .locator('[data-testid="connection-status"][data-status="CONNECTED"]')
      .waitFor(LONG);
  } finally {
    await small.context().close();
  }
});

test('Instagram: the form asks for the Instagram account id and shows the steps for the Instagram object', async () => {
  const email = await createCompany('MetaFormIg', 1, stamp);
  const page = await newPage(browser);
  try {
    await signInForm(page, email, true);
    await page.goto('/connections');
    await page.getByRole('button', { name: 'Adicionar conexão' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('combobox', { name: 'Canal' }).click();
    await page.getByRole('option', { name: 'Instagram' }).click();
    await dialog.locator('[data-section="instagram"]').waitFor();
    await dialog.getByText('ID da conta do Instagram').first().waitFor();
    await dialog
      .getByText('Em Webhooks (objeto Instagram), cole a URL do webhook e o token de verificação.')
      .waitFor();
    await dialog.locator('[data-field="meta.accountId"]').fill('12ab');
    await dialog.locator('[data-field="name"]').fill(`Instagram ${stamp}`);
    await dialog.getByRole('button', { name: 'Salvar' }).click();
    await dialog.locator('[data-field="meta.accountId"][aria-invalid="true"]').waitFor();
    await page.mouse.move(0, 0);
    await screenshot(page, 'meta-connection-instagram-dark');
  } finally {
    await page.context().close();
  }
});

test('Messenger tickets: 3 days after the customer wrote the reply goes tagged HUMAN_AGENT; after 8 days the composer says why nothing can be sent', async () => {
  const email = await createCompany('MetaWindow', 1, stamp);
  const secret = 'e2e-meta-window-secret';
  const page = await newPage(browser);
  try {
    const token = await signInForm(page, email, true);
    const http = pageApi(page, token);
    const { id } = await http.send<{ id: number }>('post', '/whatsapp', {
      name: 'Messenger janela',
      channel: 'messenger',
      channelConfig: { pageId: graph.pageId, pageAccessToken: graph.token, appSecret: secret },
    });
    await until(
      () => http.get<{ id: number; status: string }[]>('/whatsapp'),
      (l) => l.some((w) => w.id === id && w.status === 'CONNECTED'),
      'the Messenger connection connected',
    );
    const day = 24 * 3_600_000;
    const customers = [
      { psid: `2499${stamp.length}0000000001`, first: 'Rita', text: 'Chegou meu pedido?', ago: 3 * day },
      { psid: `2499${stamp.length}0000000002`, first: 'Otto', text: 'Alguém aí?', ago: 8 * day },
    ];
    for (const c of customers) {
      graph.profiles.set(c.psid, { first_name: c.first, last_name: 'E2E' });
      const payload = JSON.stringify({
        object: 'page',
        entry: [
          {
            id: graph.pageId,
            time: Date.now(),
            messaging: [
              {
                sender: { id: c.psid },
                recipient: { id: graph.pageId },
                timestamp: Date.now() - c.ago,
                message: { mid: `m_e2e_${c.psid}_${stamp}`, text: c.text },
              },
            ],
          },
        ],
      });
      const res = await page.request.post(`/api/webhooks/meta/${id}`, {
        headers: {
          'content-type': 'application/json',
          'x-hub-signature-256': `sha256=${createHmac('sha256', secret).update(payload).digest('hex')}`,
        },
        data: payload,
      });
      assert.equal(res.status(), 200, await res.text());
    }

    const open = async (name: string) => {
      await page.goto('/tickets');
      await page.getByTestId('tab-pending').click(LONG);
      const row = page
        .getByTestId('ticket-list-pending')
        .locator('[data-testid="ticket-row"]')
        .filter({ hasText: name });
      await row.waitFor(LONG);
      await row.getByTestId('ticket-accept').click();
      await page.waitForURL(/\/tickets\/[0-9a-f-]{36}$/);
    };

    // Three days: free text, sent with Meta's HUMAN_AGENT tag.
    await open('Rita E2E');
    const input = page.getByTestId('message-text');
    await input.fill('Oi Rita, desculpe a demora!');
    await input.press('Enter');
    await page
      .getByTestId('ticket-chat')
      .locator('[data-testid="message"][data-from="me"]')
      .filter({ hasText: 'desculpe a demora' })
      .waitFor(LONG);
    const sent = await until(
      async () => graph.messengerSent.filter((m) => m.recipient === customers[0]!.psid),
      (l) => l.length === 1,
      'the reply at the Send API',
    );
    assert.equal(sent[0]!.messagingType, 'MESSAGE_TAG');
    assert.equal(sent[0]!.tag, 'HUMAN_AGENT');

    // Eight days: no composer, the reason instead.
    await open('Otto E2E');
    await page
      .getByTestId('ticket-chat')
      .locator('[data-testid="message"][data-from="contact"]')
      .filter({ hasText: 'Alguém aí?' })
      .waitFor(LONG);
    const closed = page.getByTestId('window-closed');
    await closed.waitFor(LONG);
    assert.match(await closed.innerText(), /Mais de 7 dias/);
    assert.equal(await page.getByTestId('message-text').count(), 0, 'no free text after 7 days');
    await page.mouse.move(0, 0);
    await screenshot(page, 'meta-window-closed-dark');
  } finally {
    await page.context().close();
  }
});
