import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import {
  BASE_URL,
  DATA_DIR,
  until,
  COMPANY_ADMIN_PASSWORD,
  companyAdmin,
  fileBrowser,
  screenshot,
  signInPage,
  writePng,
} from './browser.js';

/**
 * #34.1 The website chat widget in Chromium: a shop's page on ANOTHER origin (a server of this file's own)
 * embeds /widget.js; the visitor writes, the attendant answers in Recado, both live; read marks; a file each
 * way; a reload keeps the conversation; a page whose origin the widget does not allow gets nothing.
 * Waits on what the pages show, never on time.
 */
const browser = fileBrowser();
const stamp = Date.now().toString(36);

/** A host page on 127.0.0.1:<port> (Recado runs on another port: another origin), with a strict CSP. */
async function hostPage(publicId: () => string): Promise<{ origin: string; server: Server }> {
  const server = createServer((req, res) => {
    res.writeHead(200, {
      'content-type': 'text/html; charset=utf-8',
      // The widget runs under a page policy without 'unsafe-inline' or 'unsafe-eval'.
      'content-security-policy': `default-src 'self'; script-src 'self' ${BASE_URL}; connect-src ${BASE_URL} ${BASE_URL.replace('http', 'ws')}; img-src 'self' blob: data:; style-src 'self'`,
    });
    res.end(
      `<!doctype html><html lang="pt-BR"><head><title>Loja</title></head><body><h1>Loja ${req.url}</h1>` +
        `<script src="${BASE_URL}/widget.js" data-widget="${publicId()}" async></script></body></html>`,
    );
  });
  await new Promise<void>((r) => server.listen(0, 'localhost', () => r()));
  const { port } = server.address() as { port: number };
  return { origin: `http://localhost:${port}`, server };
}

let publicId = '';
const shop = await hostPage(() => publicId);
const stranger = await hostPage(() => publicId);
after(() => {
  shop.server.close();
  stranger.server.close();
});

const widget = (page: Page) => page.locator('[data-recado-widget]');

test('a visitor on another site chats live with an attendant; files, read marks, and a reload', async () => {
  const { email, admin } = await companyAdmin('Widget', 5, stamp);
  const conn = await admin.post<{ id: number; channelConfig: { publicId: string } }>('/whatsapp', {
    name: `Site ${stamp}`,
    channel: 'webchat',
    channelConfig: {
      allowedOrigins: [shop.origin],
      color: '#7c3aed',
      greeting: 'Olá! Como podemos ajudar?',
      title: 'Loja Demo',
    },
  });
  publicId = conn.channelConfig.publicId;

  // The attendant is in Recado (online: the widget offers the chat, not the offline form).
  const agent = await browser.newPage();
  await signInPage(agent, { email, password: COMPANY_ADMIN_PASSWORD });
  await agent.goto('/tickets');
  await agent.locator('[data-testid="presence-switch"][data-presence="online"]').first().waitFor();

  // The connections page shows the snippet to paste.
  await agent.goto('/connections');
  const connRow = agent.locator(`[data-testid="connection-row"][data-name="Site ${stamp}"]`);
  await connRow.locator('[data-testid="connection-status"][data-status="CONNECTED"]').waitFor();
  await connRow.getByRole('button', { name: 'Editar' }).click();
  const snippet = agent.getByTestId('webchat-snippet');
  await snippet.waitFor();
  assert.equal(
    await snippet.inputValue(),
    `<script src="${BASE_URL}/widget.js" data-widget="${publicId}" async></script>`,
  );
  await agent.getByTestId('connection-webchat').getByText('Sites permitidos').first().waitFor();
  await agent.keyboard.press('Escape');
  await agent.goto('/tickets');
  await agent.getByTestId('tickets-welcome').waitFor();
  await agent.getByTestId('tab-pending').click();
  await agent.getByTestId('ticket-list-pending').waitFor();

  const visitor = await browser.newPage({ locale: 'pt-BR' });
  const pageErrors: string[] = [];
  visitor.on('pageerror', (e) => pageErrors.push(e.message));
  visitor.on('console', (m) => {
    if (m.type() === 'error') pageErrors.push(m.text());
  });
  await visitor.goto(`${shop.origin}/produtos`);
  await widget(visitor).locator('button.bubble').click();
  await widget(visitor).getByText('Olá! Como podemos ajudar?').waitFor();
  await widget(visitor).locator('textarea').fill('Oi! Vocês entregam em Campinas?');
  await widget(visitor).locator('textarea').press('Enter');
  const mine = widget(visitor).locator('.msg.me').filter({ hasText: 'Vocês entregam em Campinas?' });
  await mine.waitFor();
  await screenshot(visitor, 'widget-visitor');

  // The attendant sees the new conversation live, takes it and answers.
  const row = agent
    .locator('[data-testid="ticket-list-pending"] [data-testid="ticket-row"]')
    .filter({ hasText: 'Vocês entregam em Campinas?' });
  await row.waitFor({ timeout: 30_000 });
  await row.getByTestId('ticket-accept').click();
  const chat = agent.getByTestId('ticket-chat');
  await chat
    .locator('[data-testid="message"][data-from="contact"]')
    .filter({ hasText: 'Campinas' })
    .waitFor();
  // Opened by the attendant: the visitor sees the message read.
  await widget(visitor).locator('.msg.me[data-read="true"]').filter({ hasText: 'Campinas' }).waitFor();

  // Typing, both ways.
  await widget(visitor).locator('textarea').fill('Mais uma pergunta');
  await agent.getByTestId('visitor-typing').waitFor();
  await widget(visitor).locator('textarea').fill('');
  const input = agent.getByTestId('message-text');
  await input.fill('Entregamos');
  await widget(visitor).locator('.typing').filter({ hasText: 'Digitando…' }).waitFor();
  await input.fill('Entregamos sim, em até 2 dias.');
  await input.press('Enter');
  await widget(visitor)
    .locator('.msg:not(.me)')
    .filter({ hasText: 'Entregamos sim, em até 2 dias.' })
    .waitFor();

  // A file from the visitor: the attendant sees the image.
  const png = writePng();
  await widget(visitor).locator('input[type=file]').setInputFiles(png);
  await widget(visitor).locator('.msg.me img').first().waitFor();
  await chat
    .locator('[data-testid="message"][data-from="contact"] [data-testid="message-image"]')
    .first()
    .waitFor();

  // A file from the attendant: the visitor gets it (fetched with its token).
  const pdf = join(tmpdir(), `recibo-${stamp}.pdf`);
  writeFileSync(pdf, '%PDF-1.4\n% recibo\n');
  await agent.getByTestId('file-input').setInputFiles(pdf);
  await agent.getByTestId('attachments').waitFor();
  await input.press('Enter');
  const file = widget(visitor).locator(`.msg:not(.me) a[data-file="recibo-${stamp}.pdf"][download]`);
  await file.waitFor();
  assert.match((await file.getAttribute('href')) ?? '', /^blob:/);

  // A refused file type: a clear error in the widget, nothing sent.
  const exe = join(tmpdir(), `setup-${stamp}.exe`);
  writeFileSync(exe, 'MZ');
  await widget(visitor).locator('input[type=file]').setInputFiles(exe);
  await widget(visitor).locator('.err[role=alert]').filter({ hasText: 'não é aceito' }).waitFor();

  // A reload (and another page of the site) keeps the conversation.
  await visitor.goto(`${shop.origin}/carrinho`);
  await widget(visitor).locator('button.bubble').click();
  await widget(visitor).locator('.msg.me').filter({ hasText: 'Campinas' }).waitFor();
  await widget(visitor).locator('.msg:not(.me)').filter({ hasText: 'Entregamos sim' }).waitFor();
  await widget(visitor).locator('textarea').fill('Obrigada!');
  await widget(visitor).locator('textarea').press('Enter');
  // Same ticket: the attendant's open chat gets it live.
  await chat
    .locator('[data-testid="message"][data-from="contact"]')
    .filter({ hasText: 'Obrigada!' })
    .waitFor();
  await screenshot(visitor, 'widget-visitor-after-reload');
  assert.deepEqual(
    pageErrors.filter((e) => /Content Security Policy|EvalError|Refused/.test(e)),
    [],
    'the widget runs under the page CSP',
  );

  // A page on an origin the widget does not allow: refused, no widget.
  const other = await browser.newPage();
  // The browser gets no readable answer (403 without CORS): the widget says so in the console and shows nothing.
  const refused = other.waitForEvent('console', (m) =>
    m.text().includes('Recado widget: not available here'),
  );
  await other.goto(`${stranger.origin}/`);
  await refused;
  await other.getByText('Loja /').waitFor();
  const direct = await fetch(`${BASE_URL}/api/widget/${publicId}/config`, {
    headers: { origin: stranger.origin },
  });
  assert.equal(direct.status, 403);
  assert.equal(await widget(other).count(), 0);
});

/** The newest outbox mail to `to` (DATA_DIR/outbox), waiting for it to be written. */
async function mailTo(to: string): Promise<string> {
  const dir = join(DATA_DIR, 'outbox');
  return until(
    async () => {
      const files = (() => {
        try {
          return readdirSync(dir).filter((f) => f.endsWith('.eml') && f.includes(to));
        } catch {
          return [];
        }
      })();
      return files.length ? readFileSync(join(dir, files.sort().at(-1)!), 'utf8') : '';
    },
    (text) => Boolean(text),
    `a mail to ${to}`,
  );
}

test('the pre-chat form with consent; nobody online: the offline form opens a ticket and the reply goes by e-mail', async () => {
  const { admin } = await companyAdmin('WidgetOff', 5, stamp);
  const me = await admin.get<{ id: number }>('/auth/me');
  const conn = await admin.post<{ channelConfig: { publicId: string } }>('/whatsapp', {
    name: `Site off ${stamp}`,
    channel: 'webchat',
    channelConfig: {
      allowedOrigins: [shop.origin],
      preChatForm: true,
      preChatContact: 'email',
      consentText: 'Aceito a política de privacidade',
    },
  });
  publicId = conn.channelConfig.publicId;
  type Tickets = { tickets: { id: number; contact: { name: string } }[] };
  const ticketOf = (name: string) =>
    until(
      () => admin.get<Tickets>('/tickets?status=pending&showAll=true'),
      (r) => r.tickets.some((t) => t.contact.name === name),
      `the ticket of ${name}`,
    ).then((r) => r.tickets.find((t) => t.contact.name === name)!);

  // Someone online: the pre-chat form, its consent required.
  await admin.put('/users/me/presence', { presence: 'online' });
  const visitor = await browser.newPage();
  await visitor.goto(`${shop.origin}/contato`);
  await widget(visitor).locator('button.bubble').click();
  await widget(visitor).locator('input[name=name]').fill('Carla Prado');
  await widget(visitor).locator('input[name=email]').fill('carla@example.com');
  await widget(visitor).locator('input[name=consent]').check();
  await widget(visitor).getByRole('button', { name: 'Iniciar conversa' }).click();
  await widget(visitor).locator('textarea').fill('Quero um orçamento');
  await widget(visitor).locator('textarea').press('Enter');
  await widget(visitor)
    .locator('.msg.me')
    .filter({ hasText: 'Quero um orçamento' })
    .waitFor()
    .catch(async (e: unknown) => {
      await screenshot(visitor, 'widget-prechat-failed');
      throw e;
    });
  await ticketOf('Carla Prado');

  // Nobody online: the offline form.
  await admin.put('/users/me/presence', { presence: 'offline' });
  const late = await browser.newPage({ locale: 'en-US' });
  await late.goto(`${shop.origin}/contact`);
  await widget(late).locator('button.bubble').click();
  await widget(late).getByText('Nobody is online right now').waitFor();
  await widget(late).locator('input[name=name]').fill('Davi Lima');
  await widget(late).locator('input[name=email]').fill(`davi-${stamp}@example.com`);
  await widget(late).locator('textarea[name=message]').fill('Do you ship abroad?');
  await widget(late).locator('input[name=consent]').check();
  await widget(late).getByRole('button', { name: 'Send message' }).click();
  await widget(late).getByText('Message received. We will reply by e-mail.').waitFor();
  await screenshot(late, 'widget-offline-sent');
  const ticket = await ticketOf('Davi Lima');
  await admin.put(`/tickets/${ticket.id}`, { status: 'open', userId: me.id });
  await admin.post(`/messages/${ticket.id}`, { body: 'Yes, to all of South America.' });
  const mail = await mailTo(`davi-${stamp}@example.com`);
  assert.match(mail, /Yes, to all of South America\./);
  assert.match(mail, new RegExp(`${shop.origin}/contact`));
});
