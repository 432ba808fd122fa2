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
  type PageApi,
} from './browser.js';
import {
  startFakeGraph,
  type FakeGraph,
} from '../../server/src/messaging/channels/cloud-api/fake-graph-api.js';

/**
 * WhatsApp Cloud API end to end (docs/cloud-api.md): the server's Graph calls reach the local Graph double
 * (run.mjs points CLOUD_API_GRAPH_URL at it). A customer wrote 25 hours ago through the real webhook; the
 * attendant sees the window notice, sends a template with a variable and sees it in the chat. Then an admin
 * sets up a template campaign in the dialog at 500 px, dark theme.
 */
let browser: Browser;
let graph: FakeGraph;
const APP_SECRET = 'e2e-cloud-app-secret';
const stamp = Date.now().toString(36);
const LONG = { timeout: 30_000 };
const CUSTOMER = { number: '5511987650017', name: 'Marta Janela' };

before(async () => {
  browser = await launch();
  graph = await startFakeGraph({ port: Number(process.env.E2E_GRAPH_PORT ?? 0) });
  graph.templates = [
    {
      id: '3001',
      name: 'retomar',
      language: 'pt_BR',
      category: 'UTILITY',
      status: 'APPROVED',
      components: [
        { type: 'BODY', text: 'Olá {{1}}! Podemos continuar o seu atendimento?' },
        { type: 'FOOTER', text: 'Loja E2E' },
      ],
    },
    {
      id: '3002',
      name: 'oferta',
      language: 'pt_BR',
      category: 'MARKETING',
      status: 'APPROVED',
      components: [
        { type: 'HEADER', format: 'TEXT', text: 'Oferta para {{1}}' },
        { type: 'BODY', text: '{{1}}, use o cupom {{2}} até domingo.' },
      ],
    },
    {
      id: '3003',
      name: 'recusado',
      language: 'pt_BR',
      category: 'MARKETING',
      status: 'REJECTED',
      components: [{ type: 'BODY', text: 'Nada' }],
    },
  ];
});
after(async () => {
  await browser.close();
  await graph.close();
});

async function until<T>(read: () => Promise<T>, ok: (v: T) => boolean, what: string): Promise<T> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const v = await read();
    if (ok(v)) return v;
    if (Date.now() > deadline)
      assert.fail(`timed out waiting for ${what}: ${JSON.stringify(v).slice(0, 600)}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** A company of this file's own with a running Cloud API connection on Meta's default URL, templates synced. */
async function cloudCompany(page: Page, name: string): Promise<{ http: PageApi; whatsappId: number }> {
  const email = await createCompany(name, 5, stamp);
  const token = await signInPage(
    page,
    { email, password: COMPANY_ADMIN_PASSWORD },
    { preferredTheme: 'light' },
  );
  const http = pageApi(page, token);
  const w = await http.post<{ id: number }>('/whatsapp', {
    name: `Oficial ${stamp}`,
    channel: 'cloud_api',
    channelConfig: {
      phoneNumberId: graph.phoneNumberId,
      businessAccountId: graph.wabaId,
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
  await http.post(`/whatsapp/${w.id}/templates/sync`);
  return { http, whatsappId: w.id };
}

/** The customer's message as Meta's webhook posts it, signed with the app secret, written `hoursAgo` ago. */
async function customerWrote(page: Page, whatsappId: number, body: string, hoursAgo: number) {
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
              contacts: [{ profile: { name: CUSTOMER.name }, wa_id: CUSTOMER.number }],
              messages: [
                {
                  from: CUSTOMER.number,
                  id: `wamid.E2E${stamp}${hoursAgo}`,
                  timestamp: String(Math.floor((Date.now() - hoursAgo * 3_600_000) / 1000)),
                  type: 'text',
                  text: { body },
                },
              ],
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

test('cloud api: 25 hours after the customer wrote, the attendant sends a template with a variable', async () => {
  const page = await newPage(browser);
  try {
    const { http, whatsappId } = await cloudCompany(page, 'Oficial');
    await customerWrote(page, whatsappId, 'Vocês ainda têm o modelo azul?', 25);

    await page.goto('/tickets');
    await page.getByTestId('tab-pending').click(LONG);
    const row = page
      .getByTestId('ticket-list-pending')
      .locator('[data-testid="ticket-row"]')
      .filter({ hasText: CUSTOMER.name });
    await row.waitFor(LONG);
    await row.getByTestId('ticket-accept').click();
    await page.waitForURL(/\/tickets\/[0-9a-f-]{36}$/);
    const chat = page.getByTestId('ticket-chat');
    await chat
      .locator('[data-testid="message"][data-from="contact"]')
      .filter({ hasText: 'modelo azul' })
      .waitFor(LONG);

    // Outside the window: the notice, no free-text box, only approved templates in the picker.
    await page.getByTestId('window-notice').waitFor();
    assert.equal(await page.getByTestId('message-text').count(), 0, 'no free text outside the window');
    const composer = page.getByTestId('template-composer');
    await composer.getByRole('combobox', { name: 'Modelo' }).click();
    const options = page.getByRole('option');
    await options.first().waitFor();
    assert.deepEqual(await options.allInnerTexts(), ['oferta · pt_BR', 'retomar · pt_BR']);
    await page.getByRole('option', { name: 'retomar · pt_BR' }).click();
    await page.getByRole('listbox').waitFor({ state: 'hidden' });
    const send = composer.getByTestId('template-send');
    assert.equal(await send.isDisabled(), true, 'not before the variable is filled');
    await composer.getByTestId('template-var-1').fill('Marta');
    await composer
      .getByTestId('template-preview')
      .filter({ hasText: 'Olá Marta! Podemos continuar o seu atendimento?' })
      .waitFor();
    await screenshot(page, 'cloud-template-composer');
    await send.click();

    // In the chat as WhatsApp shows it, and at Meta as a template with the value.
    const sent = chat
      .locator('[data-testid="message"][data-from="me"]')
      .filter({ hasText: 'Olá Marta! Podemos continuar o seu atendimento?' });
    await sent.waitFor(LONG);
    const atMeta = await until(
      async () => graph.accepted.filter((a) => a.to === CUSTOMER.number),
      (l) => l.length === 1,
      'the template at the Graph double',
    );
    assert.equal(atMeta[0]!.type, 'template');
    assert.deepEqual(atMeta[0]!.body.template, {
      name: 'retomar',
      language: { code: 'pt_BR' },
      components: [{ type: 'body', parameters: [{ type: 'text', text: 'Marta' }] }],
    });
    // Still outside the window: the template composer stays.
    await page.getByTestId('window-notice').waitFor();

    // A schedule to this customer: the 24-hour note and "Send a template" with the same picker and preview.
    await page.getByTestId('chat-schedule').click();
    const dialog = page.getByTestId('schedule-dialog');
    await dialog.getByTestId('schedule-template-note').waitFor(LONG);
    await dialog.getByTestId('schedule-use-template').check();
    await dialog.getByRole('combobox', { name: 'Modelo' }).click();
    await page.getByRole('option', { name: 'retomar · pt_BR' }).click();
    await page.getByRole('listbox').waitFor({ state: 'hidden' });
    assert.equal(await dialog.getByTestId('schedule-body').count(), 0, 'no free text with a template');
    await dialog.getByTestId('template-var-1').fill('Marta');
    await dialog
      .getByTestId('template-preview')
      .filter({ hasText: 'Olá Marta! Podemos continuar o seu atendimento?' })
      .waitFor();
    await screenshot(page, 'cloud-template-schedule');
    await dialog.getByTestId('schedule-save').click();
    await dialog.waitFor({ state: 'hidden', ...LONG });
    const { schedules } = await http.get<{
      schedules: { template: { name: string; variables: string[] } | null; body: string }[];
    }>('/schedules');
    assert.equal(schedules.length, 1);
    assert.deepEqual(schedules[0]!.template, {
      name: 'retomar',
      language: 'pt_BR',
      variables: ['Marta'],
      headerVariables: [],
    });
  } finally {
    await page.context().close();
  }
});

test('cloud api: a campaign picks a template and maps its values, at 500 px in the dark theme', async () => {
  const page = await newPage(browser, { width: 500, height: 900 });
  try {
    const { http } = await cloudCompany(page, 'OficialCamp');
    await page.evaluate(() => localStorage.setItem('preferredTheme', 'dark'));
    const list = await http.post<{ id: number }>('/contact-lists', { name: `Clientes ${stamp}` });
    await http.post('/contact-list-items', {
      name: 'Rita Souza',
      number: '5511987650018',
      contactListId: list.id,
    });

    await page.goto('/campaigns');
    await page.getByTestId('campaign-add').click(LONG);
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('heading', { name: 'Nova campanha' }).waitFor();
    await dialog.getByLabel('Nome').fill(`Oferta ${stamp}`);
    await dialog
      .getByRole('combobox', { name: 'Conexão' })
      .filter({ hasText: `Oficial ${stamp}` })
      .waitFor();
    await dialog.getByRole('combobox', { name: 'Lista de contatos' }).click();
    await page.getByRole('option', { name: new RegExp(`Clientes ${stamp}`) }).click();
    // A Cloud API connection: a template instead of message variants.
    const tpl = dialog.getByTestId('campaign-template');
    await tpl.waitFor();
    assert.equal(await dialog.getByTestId('campaign-variant-tab-1').count(), 0);
    await tpl.getByRole('combobox', { name: 'Modelo de mensagem' }).click();
    await page.getByRole('option', { name: 'oferta · pt_BR' }).click();
    // Saving with a fixed text left empty is refused on the screen.
    await dialog.getByRole('button', { name: 'Salvar' }).click();
    await tpl.getByTestId('campaign-template-error').waitFor();
    // Header ← first name; {{1}} ← name (the default); {{2}} ← a fixed coupon.
    await tpl.getByRole('combobox', { name: 'Valor do cabeçalho' }).click();
    await page.getByRole('option', { name: 'Primeiro nome' }).click();
    await tpl.getByTestId('campaign-template-var-2-text').fill('RITA10');
    await tpl
      .getByTestId('campaign-template-preview')
      .filter({ hasText: '[Nome], use o cupom RITA10 até domingo.' })
      .waitFor();
    await tpl
      .getByTestId('campaign-template-preview')
      .filter({ hasText: 'Oferta para [Primeiro nome]' })
      .waitFor();
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    assert.ok(width <= 500, `no horizontal scroll at 500 px (scrollWidth ${width})`);
    await page.mouse.move(1, 1);
    await screenshot(page, 'cloud-campaign-dialog-500-dark');
    // Meta will refuse this recipient: the report says why.
    graph.recipientErrors.set('5511987650018', {
      code: 131026,
      message: '(#131026) Message undeliverable',
      details: 'Unable to deliver message.',
    });
    await dialog.getByTestId('campaign-schedule-now').click();
    await dialog.getByRole('button', { name: 'Salvar' }).click();
    await dialog.waitFor({ state: 'hidden', timeout: 15_000 });

    const saved = await until(
      async () => (await http.get<{ records: { name: string; template: unknown }[] }>('/campaigns')).records,
      (r) => r.some((c) => c.name === `Oferta ${stamp}`),
      'the saved campaign',
    );
    assert.deepEqual(saved.find((c) => c.name === `Oferta ${stamp}`)!.template, {
      name: 'oferta',
      language: 'pt_BR',
      headerVariables: [{ source: 'firstName', text: '' }],
      variables: [
        { source: 'name', text: '' },
        { source: 'text', text: 'RITA10' },
      ],
    });

    // The report lists the failed send with Meta's reason in the user's language.
    const row = page.getByTestId('campaign-row').filter({ hasText: `Oferta ${stamp}` });
    await row.getByRole('link', { name: 'Relatório' }).click(LONG);
    const failure = page.getByTestId('campaign-failure').filter({ hasText: '5511987650018' });
    await failure.waitFor({ timeout: 60_000 });
    assert.equal(await failure.getAttribute('data-code'), '131026');
    assert.match(await failure.innerText(), /Não entregue: o número pode não ter WhatsApp/);
    assert.match(await failure.innerText(), /Unable to deliver message/);
    await failure.scrollIntoViewIfNeeded();
    await screenshot(page, 'cloud-campaign-report-500-dark');
  } finally {
    await page.context().close();
  }
});
