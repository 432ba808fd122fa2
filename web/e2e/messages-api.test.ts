import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { BASE_URL, createCompany, fileBrowser, screenshot, signInForm } from './browser.js';

const browser = fileBrowser();

const stamp = Date.now().toString(36);
const LONG = { timeout: 30_000 };
/** Seed plans: 5 has useExternalApi, 1 (Bronze) does not. */
const PLAN_WITH_API = 5;
const PLAN_WITHOUT_API = 1;

const api =
  (page: Page, token: string) =>
  async <T>(method: string, path: string, data?: unknown) => {
    const res = await page.request.fetch(`/api${path}`, {
      method,
      data,
      headers: { authorization: `Bearer ${token}` },
    });
    assert.ok(res.ok(), `${method} ${path}: ${res.status()} ${await res.text()}`);
    return (await res.json()) as T;
  };

test('messages API: an admin picks the connection, sends a text from the page, the customer phone shows it', async () => {
  const email = await createCompany('ApiPage', PLAN_WITH_API, stamp);
  for (const [mode, dark, width] of [
    ['light', false, 1366],
    ['dark', true, 1366],
    ['narrow', false, 500],
  ] as const) {
    const page = await browser.newPage({ width });
    try {
      const token = await signInForm(page, email, dark);
      const call = api(page, token);
      const list = await call<{ id: number; name: string }[]>('GET', '/whatsapp');
      const conn =
        list[0] ??
        (await call<{ id: number; name: string }>('POST', '/whatsapp', {
          name: `Sim ${stamp}`,
          channel: 'simulator',
        }));
      await page.goto('/messages-api');
      await page.getByRole('heading', { name: 'API de mensagens' }).waitFor(LONG);
      await page.getByLabel('Conexão').click();
      await page.getByRole('option', { name: conn.name }).click();
      const tokenField = page.getByTestId('api-token');
      await page.waitForFunction(
        () =>
          ((document.querySelector('[data-testid="api-token"]') as HTMLInputElement)?.value ?? '').length >=
          32,
        undefined,
        LONG,
      );
      const apiToken = await tokenField.inputValue();
      // The curl example carries the token, ready to copy.
      await page.getByText(`Bearer ${apiToken}`).first().waitFor(LONG);
      const number = `5511987${String(Date.now()).slice(-6)}`;
      const body = `Pedido ${stamp} ${mode} saiu para entrega`;
      await page.getByTestId('text-number').fill(number);
      await page.getByTestId('text-body').fill(body);
      await page.getByRole('button', { name: 'Enviar' }).first().click();
      await page.locator('#notistack-snackbar').filter({ hasText: 'Mensagem enviada' }).first().waitFor(LONG);
      // On the customer's phone (the simulator's conversation).
      for (let i = 0; ; i++) {
        const convo = await call<{ fromMe: boolean; body: string }[]>(
          'GET',
          `/simulator/${conn.id}/conversations/${number}`,
        );
        if (convo.some((m) => m.fromMe && m.body === body)) break;
        assert.ok(i < 100, 'the message never reached the simulator');
        await page.waitForTimeout(200);
      }
      await page.mouse.move(1, 1);
      await screenshot(page, `messages-api-${mode}`);
      await page.goto('/settings?tab=webhooks');
      await page.getByRole('button', { name: 'Adicionar webhook' }).waitFor(LONG);
      await screenshot(page, `settings-webhooks-${mode}`);
      if (mode === 'light') {
        // A webhook made elsewhere arrives live; its delivery log opens; it is deleted after a confirmation.
        const url = `https://erp.example.com/recado-${stamp}`;
        await call('POST', '/webhooks', { name: `ERP ${stamp}`, url, events: ['campaign.finished'] });
        const hookRow = page.getByTestId('webhook-row').filter({ hasText: url });
        await hookRow.waitFor(LONG);
        assert.match(await hookRow.innerText(), /Ativo/);
        await hookRow.getByRole('button', { name: 'Registro de entregas' }).click();
        const log = page.getByRole('dialog');
        await log.getByText('Nenhum registro encontrado.').waitFor(LONG);
        await log.getByRole('button', { name: 'Fechar' }).click();
        await log.waitFor({ state: 'detached' });
        await hookRow.getByRole('button', { name: 'Excluir' }).click();
        await page.getByRole('dialog').getByRole('button', { name: 'Excluir' }).click();
        await page.getByText('Webhook excluído').waitFor(LONG);
        await hookRow.waitFor({ state: 'detached', ...LONG });
      }
    } finally {
      await page.context().close();
    }
  }
});

test('simulator: conversations the API started show their last file by name, a captioned PDF its name and caption', async () => {
  const email = await createCompany('ApiSim', PLAN_WITH_API, `${stamp}s`);
  const page = await browser.newPage();
  try {
    const token = await signInForm(page, email);
    const call = api(page, token);
    const conn = await call<{ id: number; name: string }>('POST', '/whatsapp', {
      name: `Sim ${stamp}`,
      channel: 'simulator',
    });
    const { token: apiToken } = await call<{ token: string }>('GET', `/whatsapp/${conn.id}/token`);
    const send = async (number: string, body: string, filename: string) => {
      const form = new FormData();
      form.set('number', number);
      form.set('body', body);
      form.set('medias', new Blob([Buffer.from('%PDF-1.4 e2e')], { type: 'application/pdf' }), filename);
      const res = await fetch(`${BASE_URL}/api/messages/send`, {
        method: 'POST',
        headers: { authorization: `Bearer ${apiToken}` },
        body: form,
      });
      assert.equal(res.status, 201, await res.text());
    };
    const bare = `5511986${String(Date.now()).slice(-6)}`;
    const captioned = `5511985${String(Date.now()).slice(-6)}`;
    await send(bare, '', 'contrato.pdf');
    await send(captioned, 'Segue o boleto', 'boleto-novembro.pdf');

    await page.goto(`/connections/${conn.id}/simulator`);
    const row = (n: string) => page.locator(`[data-testid="sim-customer"][data-number="${n}"]`);
    await row(bare).waitFor(LONG);
    // Not "Nenhuma mensagem": the file the API sent.
    assert.match(await row(bare).innerText(), /contrato\.pdf/);
    assert.doesNotMatch(await row(bare).innerText(), /Nenhuma mensagem/);
    await row(captioned).click();
    const bubble = page.getByTestId('sim-message').filter({ hasText: 'Segue o boleto' });
    await bubble.waitFor(LONG);
    // The document's name on its chip, the caption under it.
    assert.equal(await bubble.getByTestId('sim-file').innerText(), 'boleto-novembro.pdf');
    await screenshot(page, 'simulator-api-files');
  } finally {
    await page.context().close();
  }
});

test('messages API without the plan flag: the unauthorised toast and back to /', async () => {
  const email = await createCompany('ApiNoPlan', PLAN_WITHOUT_API, stamp);
  const page = await browser.newPage();
  try {
    await signInForm(page, email);
    await page.goto('/messages-api');
    await page.locator('#notistack-snackbar').first().waitFor(LONG);
    await page.waitForURL((u) => u.pathname === '/', LONG);
  } finally {
    await page.context().close();
  }
});
