import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Locator, Page } from 'playwright-core';
import { DEMO_ADMIN, launch, newPage, pageApi, screenshot } from './browser.js';

let browser: Browser;
before(async () => {
  browser = await launch();
});
after(async () => {
  await browser.close();
});

/** Signs in through the /login form; the token the client stored is returned for API checks. */
async function signIn(page: Page): Promise<string> {
  await page.goto('/login');
  await page.locator('input[name="email"]').fill(DEMO_ADMIN.email);
  await page.locator('input[name="password"]').fill(DEMO_ADMIN.password);
  await page.getByTestId('login-submit').click();
  await page.getByTestId('greeting').waitFor();
  return page.evaluate(() => JSON.parse(localStorage.getItem('token') ?? '""') as string);
}

const row = (page: Page, name: string) => page.locator(`[data-testid="connection-row"][data-name="${name}"]`);
const statusOf = (r: Locator) => r.getByTestId('connection-status');

async function waitForStatus(r: Locator, status: string) {
  await r.locator(`[data-testid="connection-status"][data-status="${status}"]`).waitFor();
}

/** Dark theme on, then reload. */
async function darkMode(page: Page) {
  await page.evaluate(() => localStorage.setItem('preferredTheme', 'dark'));
  await page.reload();
}

test('connections: list, add a simulator connection, session buttons, live updates; simulator: chat as a customer', async () => {
  const suffix = Date.now().toString(36).slice(-5);
  const name = `Simulador E2E ${suffix}`;
  const number = `1198${String(Date.now()).slice(-7)}`; // (11) 98xxx-xxxx
  const canonical = `55${number}`;
  const page = await newPage(browser);
  try {
    const token = await signIn(page);
    const http = pageApi(page, token);

    // The demo company's simulator connection is listed, connected, with its channel chip.
    await page.goto('/connections');
    await page.getByRole('heading', { name: 'Conexões' }).waitFor();
    const demo = row(page, 'Simulador');
    const existing = await http.get<{ name: string }[]>('/whatsapp');
    if (!existing.some((w) => w.name === 'Simulador')) {
      // Seeds without the demo connection: create it elsewhere; the open page receives it live.
      if (existing.length === 0) await page.getByText('Nenhum registro encontrado.').waitFor();
      await http.send('post', '/whatsapp', { name: 'Simulador', channel: 'simulator' });
    }
    await waitForStatus(demo, 'CONNECTED');
    assert.match(await statusOf(demo).innerText(), /Conectado/);
    assert.equal(await demo.getByTestId('channel-chip').innerText(), 'Simulador');
    assert.ok(await demo.getByRole('button', { name: 'Desconectar' }).isVisible());
    assert.ok(await demo.getByRole('button', { name: 'Abrir simulador' }).isVisible());
    await page.mouse.move(0, 0);
    await screenshot(page, 'connections');

    // Add a second simulator connection through the dialog.
    await page.getByRole('button', { name: 'Adicionar conexão' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.waitFor();
    // docs/product.md#entities defaults.
    assert.equal(await dialog.locator('[data-field="maxUseBotQueues"]').inputValue(), '3');
    assert.equal(await dialog.locator('[data-field="expiresTicket"]').inputValue(), '0');
    assert.equal(await dialog.locator('[data-field="timeUseBotQueues"]').inputValue(), '0');
    // Name 2–50: one letter is refused.
    await dialog.locator('[data-field="name"]').fill('A');
    await dialog.getByRole('button', { name: 'Salvar' }).click();
    await dialog.getByText('Muito curto').waitFor();
    await dialog.locator('[data-field="name"]').fill(name);
    await dialog.getByRole('combobox', { name: 'Canal' }).click();
    // Cloud API shows its own settings.
    await page.getByRole('option', { name: 'Cloud API' }).click();
    await dialog.getByText('ID do número de telefone').first().waitFor();
    await dialog.getByRole('combobox', { name: 'Canal' }).click();
    await page.getByRole('option', { name: 'Simulador' }).click();
    assert.equal(await dialog.getByText('ID do número de telefone').count(), 0);
    await dialog.locator('[data-field="greetingMessage"]').fill('Olá! Bem-vindo ao atendimento de teste.');
    await page.waitForTimeout(300);
    await screenshot(page, 'connections-add-dialog');
    await dialog.getByRole('button', { name: 'Salvar' }).click();
    await dialog.waitFor({ state: 'detached' });
    await page.getByText('Conexão salva.').waitFor();

    const mine = row(page, name);
    await waitForStatus(mine, 'CONNECTED');
    const id = Number(await mine.getAttribute('data-id'));
    assert.ok(id > 0);
    assert.equal(await mine.getByTestId('channel-chip').innerText(), 'Simulador');
    const saved = await http.get<{ greetingMessage: string; maxUseBotQueues: number; channel: string }>(
      `/whatsapp/${id}`,
    );
    assert.equal(saved.channel, 'simulator');
    assert.equal(saved.greetingMessage, 'Olá! Bem-vindo ao atendimento de teste.');
    assert.equal(saved.maxUseBotQueues, 3);

    // Disconnect (with confirmation), then try again: the row follows the session events.
    await mine.getByRole('button', { name: 'Desconectar' }).click();
    const confirm = page.getByRole('dialog');
    await confirm.getByText(`Desconectar ${name}?`).waitFor();
    await confirm.getByRole('button', { name: 'Desconectar' }).click();
    await confirm.waitFor({ state: 'detached' });
    await waitForStatus(mine, 'DISCONNECTED');
    assert.ok(await mine.getByRole('button', { name: 'Tentar novamente' }).isVisible());
    assert.equal(
      await mine.getByRole('button', { name: 'Novo QR code' }).count(),
      0,
      'a simulator has no QR code',
    );
    await mine.getByRole('button', { name: 'Tentar novamente' }).click();
    await waitForStatus(mine, 'CONNECTED');

    // A change made elsewhere arrives through the socket, without a reload.
    const renamed = `${name} b`;
    // (The greeting is sent again: PUT /whatsapp still fills unsent fields with their defaults.)
    await http.send('put', `/whatsapp/${id}`, {
      name: renamed,
      greetingMessage: 'Olá! Bem-vindo ao atendimento de teste.',
    });
    const live = row(page, renamed);
    await live.waitFor();
    await waitForStatus(live, 'CONNECTED');

    // The edit dialog shows what was saved.
    await live.getByRole('button', { name: 'Editar' }).click();
    await dialog.waitFor();
    assert.equal(await dialog.locator('[data-field="name"]').inputValue(), renamed);
    assert.equal(
      await dialog.locator('[data-field="greetingMessage"]').inputValue(),
      'Olá! Bem-vindo ao atendimento de teste.',
    );
    // The connection's API token (docs/product.md#entities `token`): one field, masked until shown; no free-text token input.
    assert.equal(await dialog.locator('[data-field="token"]').count(), 0);
    const tokenBox = dialog.getByTestId('connection-api-token');
    const tokenValue = tokenBox.getByTestId('api-token-value');
    const { token: before } = await http.get<{ token: string }>(`/whatsapp/${id}/token`);
    assert.ok(before, 'a new connection has a revealable token');
    await tokenBox.getByRole('button', { name: 'Mostrar token' }).waitFor();
    assert.notEqual(await tokenValue.inputValue(), before);
    assert.equal(await dialog.getByText(before).count(), 0);
    await tokenBox.getByRole('button', { name: 'Mostrar token' }).click();
    assert.equal(await tokenValue.inputValue(), before);
    await tokenBox.getByRole('button', { name: 'Ocultar token' }).click();
    assert.notEqual(await tokenValue.inputValue(), before);
    // Regenerate: asks first (cancel keeps the token), then replaces it and says so.
    await tokenBox.getByRole('button', { name: 'Gerar novo token' }).click();
    const ask = page.getByRole('dialog', { name: 'Gerar um novo token?' });
    await ask.getByRole('button', { name: 'Cancelar' }).click();
    await ask.waitFor({ state: 'detached' });
    assert.equal((await http.get<{ token: string }>(`/whatsapp/${id}/token`)).token, before);
    await tokenBox.getByRole('button', { name: 'Gerar novo token' }).click();
    await ask.getByRole('button', { name: 'Gerar novo token' }).click();
    await page.getByText('Novo token gerado; o anterior deixou de funcionar.').waitFor();
    await ask.waitFor({ state: 'detached' });
    const { token: after } = await http.get<{ token: string }>(`/whatsapp/${id}/token`);
    assert.ok(after && after !== before, 'the token was replaced');
    await page.waitForFunction(
      ([sel, v]) => (document.querySelector(sel) as HTMLInputElement | null)?.value === v,
      ['[data-testid="api-token-value"]', after] as const,
    );
    await dialog.getByRole('button', { name: 'Cancelar' }).click();
    await dialog.waitFor({ state: 'detached' });

    // The simulator: create a customer and send as them.
    await live.getByRole('button', { name: 'Abrir simulador' }).click();
    await page.waitForURL(`**/connections/${id}/simulator`);
    await page.getByRole('heading', { name: /Simulador/ }).waitFor();
    await page.getByText('Escolha um cliente ou crie um novo').waitFor();
    const form = page.getByTestId('sim-new-customer');
    await form.getByRole('textbox', { name: 'Nome' }).fill('Maria Teste');
    const numberInput = form.getByRole('textbox', { name: 'Número' });
    await numberInput.pressSequentially(number);
    assert.equal(await numberInput.inputValue(), `(11) ${number.slice(2, 7)}-${number.slice(7)}`);
    await form.getByRole('button', { name: 'Iniciar conversa' }).click();

    const phone = page.getByTestId('sim-phone');
    await phone.waitFor();
    assert.equal(await page.getByTestId('sim-phone-title').innerText(), renamed);
    const input = phone.getByRole('textbox', { name: 'Mensagem' });
    await input.fill('Olá, quero saber do meu pedido 1234');
    await input.press('Enter');
    assert.equal(await input.inputValue(), '');
    const sent = phone.locator('[data-testid="sim-message"][data-from="customer"]').filter({
      hasText: 'quero saber do meu pedido 1234',
    });
    await sent.waitFor();
    // Accepted by the server: one tick (or more once the company reads it).
    await sent.locator('[data-testid="ack"]:not([data-ack="0"]):not([data-ack="failed"])').waitFor();
    // A connection without queues still greets (docs/bot.md): the phone gets the greeting, and the customer
    // list shows the new customer with that last message.
    await phone
      .locator('[data-testid="sim-message"][data-from="company"]')
      .filter({ hasText: 'Bem-vindo ao atendimento de teste' })
      .waitFor();
    const customer = page.locator(`[data-testid="sim-customer"][data-number="${canonical}"]`);
    await customer.filter({ hasText: 'Bem-vindo ao atendimento de teste' }).waitFor();
    assert.match(await customer.innerText(), /Maria Teste/);

    // An image, as base64 media.
    const png = await page.screenshot({ clip: { x: 0, y: 0, width: 160, height: 90 } });
    await page
      .getByTestId('sim-file-input')
      .setInputFiles({ name: 'foto.png', mimeType: 'image/png', buffer: png });
    await phone.getByTestId('sim-attachment').waitFor();
    await input.fill('Segue a foto');
    await input.press('Enter');
    const photo = phone
      .locator('[data-testid="sim-message"][data-from="customer"]')
      .filter({ hasText: 'Segue a foto' });
    await photo.getByTestId('sim-image').waitFor();
    await photo.locator('[data-testid="ack"]:not([data-ack="0"]):not([data-ack="failed"])').waitFor();

    // As the company: the messages reached the server.
    const conversation = await http.get<
      {
        id: string;
        fromMe: boolean;
        body: string;
        mediaType: string | null;
        mediaUrl: string | null;
        ack: number;
      }[]
    >(`/simulator/${id}/conversations/${canonical}`);
    const text = conversation.find((m) => m.body === 'Olá, quero saber do meu pedido 1234');
    assert.ok(text, 'the text message is stored');
    assert.equal(text.fromMe, false);
    const image = conversation.find((m) => m.body === 'Segue a foto');
    assert.equal(image?.mediaType, 'image');
    assert.ok(image?.mediaUrl);
    const customers = await http.get<{ number: string; name: string }[]>(`/simulator/${id}/conversations`);
    assert.equal(customers.find((c) => c.number === canonical)?.name, 'Maria Teste');

    // The company answers through its ticket; the reply arrives live and its ticks go on to read (blue).
    const tickets = await http.get<{
      tickets: { id: number; whatsappId: number; contact: { number: string } }[];
    }>('/tickets?status=pending&showAll=true');
    const ticket = tickets.tickets.find((tk) => tk.whatsappId === id && tk.contact?.number === canonical);
    assert.ok(ticket, 'the customer message opened a ticket');
    const me = await http.get<{ id: number }>('/auth/me');
    await http.send('put', `/tickets/${ticket.id}`, { status: 'open', userId: me.id });
    await http.send('post', `/messages/${ticket.id}`, {
      body: 'Olá Maria! Seu pedido 1234 já saiu para entrega.',
    });
    const reply = phone
      .locator('[data-testid="sim-message"][data-from="company"]')
      .filter({ hasText: 'Seu pedido 1234 já saiu' });
    await reply.waitFor();
    await reply.locator('[data-testid="ack"][data-ack="3"]').waitFor({ timeout: 10_000 });

    // After a reload the stored image comes back through the token-protected media URL.
    await page.reload();
    await customer.click();
    const stored = phone
      .locator('[data-testid="sim-message"][data-from="customer"]')
      .filter({ hasText: 'Segue a foto' });
    await stored.getByTestId('sim-image').waitFor();
    await page.waitForFunction(
      () => {
        const img = document.querySelector<HTMLImageElement>('[data-testid="sim-image"]');
        return Boolean(img?.complete && img.naturalWidth > 0 && img.src.startsWith('blob:'));
      },
      undefined,
      { timeout: 10_000 },
    );
    await page.mouse.move(0, 0);
    await screenshot(page, 'simulator');

    // Dark theme: simulator, connections page and the add dialog.
    await darkMode(page);
    await customer.click();
    await stored.getByTestId('sim-image').waitFor();
    await page.waitForTimeout(300);
    await screenshot(page, 'simulator-dark');
    // A phone-sized screen shows the chat alone, with a way back to the customers.
    await page.setViewportSize({ width: 390, height: 760 });
    await page.waitForTimeout(300);
    await screenshot(page, 'simulator-mobile-dark');
    await phone.getByRole('button', { name: 'Voltar aos clientes' }).click();
    await customer.waitFor();
    await page.setViewportSize({ width: 1366, height: 800 });
    await page.goto('/connections');
    await waitForStatus(row(page, renamed), 'CONNECTED');
    await page.mouse.move(0, 0);
    await screenshot(page, 'connections-dark');
    await page.getByRole('button', { name: 'Adicionar conexão' }).click();
    await dialog.waitFor();
    await dialog.getByRole('combobox', { name: 'Canal' }).click();
    await page.getByRole('option', { name: 'Cloud API' }).click();
    await page.waitForTimeout(300);
    await screenshot(page, 'connections-add-dialog-dark');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });

    // Delete, with confirmation.
    await row(page, renamed).getByRole('button', { name: 'Excluir' }).click();
    await page.getByRole('dialog').getByText(`Excluir ${renamed}?`).waitFor();
    await page.getByRole('dialog').getByRole('button', { name: 'Excluir' }).click();
    await row(page, renamed).waitFor({ state: 'detached' });
    await page.getByText('Conexão excluída.', { exact: true }).waitFor();
  } catch (err) {
    await screenshot(page, 'connections-failure');
    throw err;
  } finally {
    await page.context().close();
  }
});

test('connections: the session buttons of every status, and the QR dialog that closes once the code is read', async () => {
  const page = await newPage(browser);
  try {
    await signIn(page);
    const now = new Date().toISOString();
    const base = {
      channel: 'baileys',
      qrcode: '',
      retries: 0,
      number: '',
      isDefault: false,
      greetingMessage: '',
      complationMessage: '',
      outOfHoursMessage: '',
      ratingMessage: '',
      expiresInactiveMessage: '',
      token: '',
      provider: 'beta',
      transferQueueId: null,
      timeToTransfer: null,
      promptId: null,
      integrationId: null,
      expiresTicket: 0,
      timeUseBotQueues: 0,
      maxUseBotQueues: 3,
      closeOpenChatsAfter: 0,
      channelConfig: {},
      queues: [],
      updatedAt: now,
    };
    const qrcode = `2@${'Q1w2E3r4T5y6U7i8O9p0'.repeat(8)},${'aBcDeFgHiJ'.repeat(4)}=,${'kLmNoPqRsT'.repeat(4)}=`;
    const fake = [
      { ...base, id: 901, name: 'Celular da loja', status: 'qrcode', qrcode },
      {
        ...base,
        id: 902,
        name: 'Comercial',
        status: 'DISCONNECTED',
        number: '5511988887777',
        isDefault: true,
      },
      { ...base, id: 903, name: 'Financeiro', status: 'OPENING' },
      { ...base, id: 904, name: 'Meta oficial', channel: 'cloud_api', status: 'PAIRING' },
      { ...base, id: 905, name: 'Suporte', status: 'TIMEOUT', number: '551133334444' },
      { ...base, id: 906, name: 'Vendas', status: 'CONNECTED', number: '5521977776666' },
    ];
    let release: () => void = () => undefined;
    const released = new Promise<void>((resolve) => (release = resolve));
    await page.route(
      (url) => url.pathname === '/api/whatsapp',
      (route) => (route.request().method() === 'GET' ? route.fulfill({ json: fake }) : route.fallback()),
    );
    // The dialog reads the connection again; this answer (the phone read the code) waits for the test.
    await page.route(
      (url) => url.pathname === '/api/whatsapp/901',
      async (route) => {
        await released;
        await route.fulfill({
          json: { ...fake[0], status: 'CONNECTED', qrcode: '', updatedAt: new Date().toISOString() },
        });
      },
    );

    await page.goto('/connections');
    await waitForStatus(row(page, 'Vendas'), 'CONNECTED');
    const buttons = async (name: string) =>
      (await row(page, name).getByRole('button').allInnerTexts()).map((s) => s.trim()).filter(Boolean);
    assert.deepEqual(await buttons('Celular da loja'), ['VER QR CODE']);
    assert.deepEqual(await buttons('Comercial'), ['TENTAR NOVAMENTE', 'NOVO QR CODE']);
    assert.deepEqual(await buttons('Financeiro'), ['CONECTANDO']);
    assert.ok(await row(page, 'Financeiro').getByRole('button', { name: 'Conectando' }).isDisabled());
    for (const name of ['Meta oficial', 'Suporte', 'Vendas'])
      assert.deepEqual(await buttons(name), ['DESCONECTAR']);
    assert.equal(await row(page, 'Comercial').getByTestId('default-star').count(), 1);
    assert.match(await row(page, 'Comercial').innerText(), /\(11\) 98888-7777/);
    assert.equal(await row(page, 'Meta oficial').getByTestId('channel-chip').innerText(), 'Cloud API');
    await page.mouse.move(0, 0);
    await screenshot(page, 'connections-states');

    await row(page, 'Celular da loja').getByRole('button', { name: 'Ver QR code' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByTestId('qrcode-image').waitFor();
    await page.waitForTimeout(300);
    await screenshot(page, 'connections-qr');
    release();
    await dialog.waitFor({ state: 'detached' });
    await waitForStatus(row(page, 'Celular da loja'), 'CONNECTED');
  } finally {
    await page.context().close();
  }
});

test('connections: a Cloud API connection whose Graph never answered says why, and is never shown connected', async () => {
  const page = await newPage(browser);
  try {
    const token = await signIn(page);
    const name = `Cloud E2E ${Date.now().toString(36).slice(-5)}`;
    // A loopback base URL is refused when saved (issue 18.1).
    const refused = await page.request.post('/api/whatsapp', {
      data: {
        name,
        channel: 'cloud_api',
        channelConfig: {
          phoneNumberId: '106540352242922',
          accessToken: 'EAAG-e2e-token',
          appSecret: 'e2e-app-secret',
          graphBaseUrl: 'http://127.0.0.1:8080',
        },
      },
      headers: { authorization: `Bearer ${token}` },
    });
    assert.equal(refused.status(), 400);
    assert.equal(((await refused.json()) as { error: string }).error, 'ERR_URL_NOT_ALLOWED');
    // A public-looking name that resolves nowhere: the channel cannot prove it is Graph.
    const created = await pageApi(page, token).send<{ id: number }>('post', '/whatsapp', {
      name,
      channel: 'cloud_api',
      channelConfig: {
        phoneNumberId: '106540352242922',
        accessToken: 'EAAG-e2e-token',
        appSecret: 'e2e-app-secret',
        graphBaseUrl: 'https://graph.invalid',
      },
    });
    await page.goto('/connections');
    await waitForStatus(row(page, name), 'TIMEOUT');
    assert.equal(
      await row(page, name).getByTestId('connection-status-reason').innerText(),
      'A Graph API está inacessível; tentando novamente.',
    );
    const [shown] = (await pageApi(page, token).get<{ id: number; status: string }[]>('/whatsapp')).filter(
      (w) => w.id === created.id,
    );
    assert.notEqual(shown?.status, 'CONNECTED');
    const res = await page.request.delete(`/api/whatsapp/${created.id}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    assert.ok(res.ok());
  } finally {
    await page.close();
  }
});
