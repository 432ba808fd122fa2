import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { createCompany, launch, newPage, pageApi, screenshot, signInForm } from './browser.js';
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
