import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import type { Browser } from 'playwright-core';
import {
  BASE_URL,
  DEMO_ADMIN,
  DEMO_USER,
  FAKE_MEDIA,
  launch,
  newPage,
  pageApi,
  QUIET_SIMULATOR,
  quietSimulator,
  screenshot,
  signInPage,
  writePng,
  until,
} from './browser.js';

let browser: Browser;
before(async () => {
  browser = await launch();
});
after(async () => {
  await browser.close();
});

/** The server runs on this machine: with ffmpeg, recordings become OGG/Opus voice notes. */
const HAS_FFMPEG = spawnSync('ffmpeg', ['-version'], { stdio: 'ignore' }).status === 0;

const CUSTOMER = { from: '5511999990001', name: 'Cliente Teste', body: 'Olá, preciso de ajuda' };

interface PhoneMessage {
  fromMe: boolean;
  body: string;
  mediaType: string | null;
  ack: number;
}

test('tickets: a customer writes, the attendant accepts, answers with text and an image, and resolves', async () => {
  const page = await newPage(browser);
  try {
    const token = await signInPage(page);
    const http = pageApi(page, token);

    // A simulator connection of the demo company without the demo's menu.
    const simulator = await quietSimulator(http);

    // The attendant's screen: the welcome panel, the pending tab.
    await page.goto('/tickets');
    await page.getByTestId('tickets-welcome').waitFor();
    await page.getByTestId('tab-pending').click();
    const pendingList = page.getByTestId('ticket-list-pending');
    await page.locator('[data-testid="ticket-list-pending"]:not([data-loading])').waitFor();
    const tabCount = () => page.getByTestId('tab-pending').getByTestId('tab-count').innerText();
    const waitingBefore = await tabCount();

    // The customer writes: the ticket arrives without a reload.
    await http.post(`/simulator/${simulator.id}/inbound`, CUSTOMER);
    const row = pendingList.locator('[data-testid="ticket-row"]').filter({ hasText: CUSTOMER.name });
    await row.waitFor();
    assert.equal(await row.getAttribute('data-status'), 'pending');
    await row.getByTestId('ticket-last-message').filter({ hasText: CUSTOMER.body }).waitFor();
    assert.equal(await row.getByTestId('ticket-unread').innerText(), '1');
    assert.equal(await row.getByTestId('ticket-connection').innerText(), QUIET_SIMULATOR);
    // The tab counts the waiting list, this ticket included: one more than before the customer wrote (other
    // files on the same server may have left waiting tickets in the demo company, and the list is virtualised,
    // so its rows in the page are only those near the view: neither a fixed 1 nor the rows counted).
    if (!waitingBefore.endsWith('+'))
      await until(
        tabCount,
        (n) => n === String(Number(waitingBefore) + 1),
        `the pending tab to count ${Number(waitingBefore) + 1}`,
      );
    // Admins may peek at it without accepting.
    await row.getByTestId('ticket-peek').click();
    const peek = page.getByTestId('peek-dialog');
    await peek
      .locator('[data-testid="message"][data-from="contact"]')
      .filter({ hasText: CUSTOMER.body })
      .waitFor();
    assert.equal(await peek.getByTestId('message-text').count(), 0, 'the peek view is read-only');
    await page.keyboard.press('Escape');
    await peek.waitFor({ state: 'detached' });
    await page.mouse.move(0, 0);
    await screenshot(page, 'tickets-manager');

    // Accept: the ticket opens, selected, in the attendant's list.
    await row.getByTestId('ticket-accept').click();
    await page.waitForURL(/\/tickets\/[0-9a-f-]{36}$/);
    const uuid = page.url().split('/').pop()!;
    const chat = page.getByTestId('ticket-chat');
    await chat.locator('[data-status="open"]').first().waitFor();
    assert.equal(await page.getByTestId('chat-contact-name').innerText(), CUSTOMER.name);
    await chat
      .locator('[data-testid="message"][data-from="contact"]')
      .filter({ hasText: CUSTOMER.body })
      .waitFor();
    const assigned = page.getByTestId('ticket-list-open');
    await assigned.locator(`[data-testid="ticket-row"][data-uuid="${uuid}"]`).waitFor();
    await pendingList.waitFor({ state: 'detached' });
    await page.getByTestId('tab-pending').click();
    assert.equal(
      await page.locator(`[data-testid="ticket-list-pending"] [data-uuid="${uuid}"]`).count(),
      0,
      'accepted: no longer pending',
    );
    await page.getByTestId('tab-assigned').click();
    // Opened with an unread message: it is marked read.
    await assigned
      .locator(`[data-uuid="${uuid}"] [data-testid="ticket-unread"]`)
      .waitFor({ state: 'detached' });

    // Reply with text: Enter sends; empty text is not sent.
    const input = page.getByTestId('message-text');
    await input.fill('   ');
    await input.press('Enter');
    await input.fill('Olá! Sou a Ana, como posso ajudar?');
    await input.press('Enter');
    assert.equal(await input.inputValue(), '');
    const text = chat
      .locator('[data-testid="message"][data-from="me"]')
      .filter({ hasText: 'como posso ajudar?' });
    await text.waitFor();
    assert.match(await text.innerText(), /Ana Admin/, 'signed with the user name');

    // Reply with an image and a caption.
    await page.getByTestId('file-input').setInputFiles(writePng());
    await page.getByTestId('attachments').waitFor();
    await input.fill('Segue a imagem do pedido');
    await input.press('Enter');
    const image = chat
      .locator('[data-testid="message"][data-from="me"]')
      .filter({ hasText: 'Segue a imagem do pedido' });
    await image.getByTestId('message-image').waitFor();
    await page.waitForFunction(() => {
      const img = document.querySelector<HTMLImageElement>('[data-testid="message-image"]');
      return Boolean(img?.complete && img.naturalWidth > 0 && img.src.startsWith('blob:'));
    });
    assert.equal(
      await chat.locator('[data-testid="message"][data-from="me"]').count(),
      2,
      'whitespace was not sent',
    );

    // The customer's phone has both; acks reach ✓✓ on the attendant's screen.
    const phone = await until(
      () => http.get<PhoneMessage[]>(`/simulator/${simulator.id}/conversations/${CUSTOMER.from}`),
      (list) =>
        list.some((m) => m.fromMe && m.body.includes('como posso ajudar?') && m.ack >= 2) &&
        list.some(
          (m) => m.fromMe && m.mediaType === 'image' && m.body.includes('Segue a imagem') && m.ack >= 2,
        ),
      "both replies on the customer's phone",
    );
    assert.ok(phone.some((m) => !m.fromMe && m.body === CUSTOMER.body));
    for (const bubble of [text, image])
      await bubble
        .locator('[data-testid="ack"]:is([data-ack="2"],[data-ack="3"],[data-ack="4"],[data-ack="5"])')
        .waitFor();
    // The customer reads: blue ticks.
    await http.post(`/simulator/${simulator.id}/read/${CUSTOMER.from}`);
    await text.locator('[data-testid="ack"][data-ack="3"]').waitFor();
    await image.locator('[data-testid="ack"][data-ack="3"]').waitFor();

    // The customer answers again while the chat is open: it shows at once and is read.
    await http.post(`/simulator/${simulator.id}/inbound`, { ...CUSTOMER, body: 'Obrigado, recebi!' });
    await chat
      .locator('[data-testid="message"][data-from="contact"]')
      .filter({ hasText: 'Obrigado, recebi!' })
      .waitFor();
    await assigned
      .locator(`[data-uuid="${uuid}"] [data-testid="ticket-last-message"]`)
      .filter({ hasText: 'Obrigado' })
      .waitFor();

    await page.mouse.move(0, 0);
    await page.waitForTimeout(400);
    await screenshot(page, 'tickets-chat');

    // The contact drawer: an internal note.
    await page.getByTestId('chat-contact').click();
    const drawer = page.getByTestId('contact-drawer');
    await drawer.getByTestId('drawer-name').filter({ hasText: CUSTOMER.name }).waitFor();
    await drawer.getByTestId('note-input').fill('Cliente pediu retorno amanhã');
    await drawer.getByTestId('note-save').click();
    await page.getByText('Observação salva.').waitFor();
    await drawer.getByTestId('note').filter({ hasText: 'Cliente pediu retorno amanhã' }).waitFor();
    await drawer.getByTestId('history').getByText('Aceito').first().waitFor();
    await page.getByText('Observação salva.').waitFor({ state: 'detached' });
    await screenshot(page, 'tickets-contact-drawer');
    await page.keyboard.press('Escape');
    await drawer.waitFor({ state: 'detached' });

    // Dark theme.
    await page.evaluate(() => localStorage.setItem('preferredTheme', 'dark'));
    await page.reload();
    await image.getByTestId('message-image').waitFor();
    await page.waitForTimeout(500);
    await screenshot(page, 'tickets-chat-dark');
    await page.getByTestId('tab-pending').click();
    await page.waitForTimeout(200);
    await screenshot(page, 'tickets-manager-dark');
    await page.getByTestId('tab-assigned').click();
    await page.evaluate(() => localStorage.setItem('preferredTheme', 'light'));

    // Narrow: two tabs, the chat first.
    await page.setViewportSize({ width: 500, height: 860 });
    await page.reload();
    await image.getByTestId('message-image').waitFor();
    await page.waitForTimeout(500);
    await screenshot(page, 'tickets-narrow');
    await page.getByRole('tab', { name: 'Tickets' }).click();
    await page.getByTestId('ticket-list-open').waitFor();
    await page.waitForTimeout(300);
    await screenshot(page, 'tickets-narrow-list');
    // Medium: the menu collapses to icons and the chat header moves its secondary actions to "more".
    await page.setViewportSize({ width: 1024, height: 768 });
    await chat.waitFor();
    await image.getByTestId('message-image').waitFor();
    await page.waitForTimeout(300);
    await screenshot(page, 'tickets-medium');
    await page.setViewportSize({ width: 1366, height: 800 });

    // Resolve: back to /tickets, and the ticket leaves the open list for the closed one.
    await page.getByTestId('chat-resolve').click();
    await page.waitForURL(/\/tickets$/);
    await page.getByText('Atendimento resolvido.').waitFor();
    await assigned.locator(`[data-uuid="${uuid}"]`).waitFor({ state: 'detached' });
    await page.getByRole('tab', { name: 'Resolvidos' }).click();
    await page.locator(`[data-testid="ticket-list-closed"] [data-uuid="${uuid}"]`).waitFor();
    const closed = await http.get<{ status: string }>(`/tickets/u/${uuid}`);
    assert.equal(closed.status, 'closed');
  } catch (err) {
    await screenshot(page, 'tickets-failure');
    throw err;
  } finally {
    await page.context().close();
  }
});

test('tickets: new ticket, older pages, reply, emoji, edit, delete, audio, return, search and delete', async () => {
  const micBrowser = await launch(FAKE_MEDIA);
  const context = await micBrowser.newContext({
    baseURL: BASE_URL,
    viewport: { width: 1366, height: 800 },
    locale: 'pt-BR',
    permissions: ['microphone'],
  });
  const page = await context.newPage();
  try {
    const token = await signInPage(page);
    const http = pageApi(page, token);
    const simulator = (await http.get<{ id: number; name: string }[]>('/whatsapp')).find(
      (w) => w.name === 'Simulador',
    )!;

    // New ticket for the customer (the first test resolved the last one).
    await page.goto('/tickets');
    await page.getByTestId('new-ticket').click();
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('combobox', { name: 'Contato' }).fill('Cliente');
    await page.getByRole('option', { name: /Cliente Teste/ }).click();
    await page.waitForTimeout(200);
    await screenshot(page, 'tickets-new-dialog');
    await dialog.getByRole('button', { name: 'Iniciar' }).click();
    await page.waitForURL(/\/tickets\/[0-9a-f-]{36}$/);
    const uuid = page.url().split('/').pop()!;
    await page.getByText('Atendimento iniciado.').waitFor();
    const chat = page.getByTestId('ticket-chat');
    await chat.locator('[data-testid="chat-status"][data-status="open"]').waitFor();

    // A second ticket for the same contact is refused, naming who holds it.
    await page.getByTestId('new-ticket').click();
    await dialog.getByRole('combobox', { name: 'Contato' }).fill('Cliente');
    await page.getByRole('option', { name: /Cliente Teste/ }).click();
    await dialog.getByRole('button', { name: 'Iniciar' }).click();
    const other = page.getByTestId('other-open-ticket');
    await other.getByText(/Ana Admin/).waitFor();
    await other.getByRole('button', { name: 'Ver atendimento' }).click();
    await other.waitFor({ state: 'detached' });
    await page.waitForURL(`**/tickets/${uuid}`);

    // 35 customer messages: the newest page shows 30; scrolling up brings the older ones.
    for (let i = 1; i <= 35; i++)
      await http.post(`/simulator/${simulator.id}/inbound`, { from: CUSTOMER.from, body: `Mensagem ${i}` });
    const bubble = (text: string) =>
      chat
        .locator('[data-testid="message"]')
        .filter({ has: page.locator('[data-testid="message-body"]', { hasText: new RegExp(`^${text}$`) }) });
    await bubble('Mensagem 35').waitFor();
    // Read again from the server: the newest page only.
    await page.reload();
    await bubble('Mensagem 35').waitFor();
    assert.equal(await bubble('Mensagem 1').count(), 0, 'page 2 not loaded yet');
    const scroller = chat.locator('[data-testid="message-list"] [data-virtuoso-scroller]');
    // Scroll to the top until the older page arrives; the check and the scroll happen together in the page,
    // so a page that arrives in between is never scrolled away again.
    const atTopUntilLoaded = () =>
      scroller.evaluate((el) => {
        const loaded = [...el.querySelectorAll('[data-testid="message-body"]')].some(
          (b) => b.textContent?.trim() === 'Mensagem 1',
        );
        if (!loaded) el.scrollTop = 0;
        return loaded;
      });
    for (let i = 0; i < 40 && !(await atTopUntilLoaded()); i++)
      await bubble('Mensagem 1')
        .first()
        .waitFor({ timeout: 500 })
        .catch(() => undefined);
    await bubble('Mensagem 1').first().waitFor();
    // The view kept its place: older rows went above it, and the newest page's first message is still in view.
    await until(
      () => scroller.evaluate((el) => el.scrollTop),
      (top) => top > 0,
      'older rows were added above the view',
    );
    const view = (await scroller.boundingBox())!;
    const kept = (await bubble('Mensagem 6').boundingBox())!;
    assert.ok(
      kept.y >= view.y - 2 && kept.y < view.y + view.height / 2,
      `kept in view: ${kept.y} in ${view.y}+${view.height}`,
    );

    // Back to the bottom; reply to the last message through its menu.
    await scroller.evaluate((el) => (el.scrollTop = el.scrollHeight));
    await bubble('Mensagem 35').hover();
    await bubble('Mensagem 35').getByTestId('message-menu').click();
    await page.getByRole('menuitem', { name: 'Responder' }).click();
    await page.getByTestId('reply-preview').filter({ hasText: 'Mensagem 35' }).waitFor();
    const input = page.getByTestId('message-text');
    await input.fill('Respondendo à última');
    await input.press('Enter');
    const reply = chat
      .locator('[data-testid="message"][data-from="me"]')
      .filter({ hasText: 'Respondendo à última' });
    await reply.getByTestId('message-quote').filter({ hasText: 'Mensagem 35' }).waitFor();
    assert.equal(await page.getByTestId('reply-preview').count(), 0);

    // Emoji from the picker.
    await page.getByRole('button', { name: 'Emojis' }).click();
    await page.getByTestId('emoji-grid').getByRole('option', { name: '👍' }).click();
    assert.equal(await input.inputValue(), '👍');
    await input.press('Enter');
    const thumbs = chat.locator('[data-testid="message"][data-from="me"]').filter({ hasText: '👍' });
    await thumbs.waitFor();

    // Edit one's own message (the simulator channel allows it), then delete another.
    await reply.hover();
    await reply.getByTestId('message-menu').click();
    await page.getByRole('menuitem', { name: 'Editar' }).click();
    const edit = page.getByRole('dialog');
    await edit.getByRole('textbox').fill('Respondendo à última (corrigido)');
    await edit.getByRole('button', { name: 'Salvar' }).click();
    await edit.waitFor({ state: 'detached' });
    await reply.getByTestId('message-edited').waitFor();
    await reply.filter({ hasText: '(corrigido)' }).waitFor();
    await thumbs.hover();
    await thumbs.getByTestId('message-menu').click();
    await page.getByRole('menuitem', { name: 'Apagar' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Excluir' }).click();
    await chat
      .locator('[data-testid="message"][data-from="me"]')
      .filter({ hasText: 'Esta mensagem foi apagada' })
      .waitFor();

    // "/" + 2 characters asks for quick replies; none of the company's (other tests add some with random
    // letters in their shortcodes) contains these two characters.
    await input.fill('/§§');
    await page.waitForTimeout(500);
    assert.equal(await page.getByTestId('quick-replies').count(), 0);
    await input.fill('');

    // An audio recording (fake microphone), sent as a file.
    await page.getByRole('button', { name: 'Gravar áudio' }).click();
    await page.getByTestId('recorder').waitFor();
    await page.getByTestId('recorder-time').filter({ hasText: '00:02' }).waitFor();
    await page.getByRole('button', { name: 'Enviar áudio' }).click();
    await chat.locator('[data-testid="message"][data-from="me"] [data-testid="message-audio"]').waitFor();
    await page.mouse.move(0, 0);
    await page.waitForTimeout(300);
    await screenshot(page, 'tickets-chat-features');

    // The customer's phone gets it as audio: an OGG/Opus voice note when the server has ffmpeg.
    type PhoneMedia = PhoneMessage & { id: string; mediaUrl: string | null };
    const phone = await until(
      () => http.get<PhoneMedia[]>(`/simulator/${simulator.id}/conversations/${CUSTOMER.from}`),
      (list) => list.some((m) => m.fromMe && m.mediaType === 'audio' && m.mediaUrl),
      "the voice note on the customer's phone",
    );
    const voice = phone.find((m) => m.fromMe && m.mediaType === 'audio')!;
    const voiceFile = await page.request.get(voice.mediaUrl!, {
      headers: { authorization: `Bearer ${token}` },
    });
    assert.equal(voiceFile.status(), 200);
    const magic = (await voiceFile.body()).subarray(0, 4).toString('latin1');
    if (HAS_FFMPEG) assert.equal(magic, 'OggS', 'the recording was converted to OGG/Opus');
    else console.log('ffmpeg is not installed here: the voice note went unconverted (plain audio)');

    // The campaign-source strip, for a ticket that came from an ad (the tracking is added to the answer:
    // nothing in the product creates it yet).
    await page.route(`**/api/tickets/u/${uuid}`, async (route) => {
      const res = await route.fetch();
      const body = (await res.json()) as Record<string, unknown>;
      body.ticketSourceTracking = [
        {
          id: 1,
          uuid: 'e2e',
          campaign: 'Black Friday 2024',
          source: 'facebook',
          medium: 'cpc',
          metadata: { sourceUrl: 'https://fb.me/ads/recado-black-friday' },
          createdAt: new Date().toISOString(),
        },
      ];
      await route.fulfill({ response: res, json: body });
    });
    // Read again: only the newest page of messages, for the search below.
    await page.reload();
    await bubble('Mensagem 35').waitFor();
    const strip = page.getByTestId('source-strip');
    await strip.waitFor();
    assert.equal(await strip.getByTestId('source-origin').innerText(), 'Origem: facebook / cpc');
    assert.equal(await strip.getByTestId('source-campaign').innerText(), 'Campanha: Black Friday 2024');
    assert.equal(
      await strip.getByTestId('source-link').getAttribute('href'),
      'https://fb.me/ads/recado-black-friday',
    );
    await page.unroute(`**/api/tickets/u/${uuid}`);

    // Search inside the conversation: the loaded page first, then older pages on demand.
    assert.equal(await bubble('Mensagem 1').count(), 0, 'page 2 not loaded yet');
    await page.getByTestId('chat-search-button').click();
    const search = page.getByTestId('chat-search-input');
    await search.fill('mensagem 1');
    const status = page.getByTestId('chat-search-status');
    const current = (text: string) =>
      chat.locator('[data-testid="message"][data-highlighted="true"]').filter({
        has: page.locator('[data-testid="message-body"]', { hasText: new RegExp(`^${text}$`) }),
      });
    // The newest match first: of the loaded page, "Mensagem 10" to "Mensagem 19".
    await current('Mensagem 19').waitFor();
    // (11 of 11 when scrolling to it brought the older page already.)
    await status.filter({ hasText: /^(10 de 10|11 de 11)$/ }).waitFor();
    assert.ok((await chat.getByTestId('search-mark').count()) > 0, 'the term is marked');
    await page.getByTestId('chat-search-older').click();
    await current('Mensagem 18').waitFor();
    await page.getByTestId('chat-search-newer').click();
    await current('Mensagem 19').waitFor();
    // Back through the matches (Enter): past the oldest loaded one, the older page is read and searched.
    for (let i = 0; i < 15 && (await current('Mensagem 1').count()) === 0; i++) {
      await search.press('Enter');
      await page.waitForTimeout(150);
    }
    await current('Mensagem 1').waitFor();
    await status.filter({ hasText: /^1 de 11$/ }).waitFor();
    await page.waitForTimeout(300);
    await page.mouse.move(0, 0);
    await screenshot(page, 'tickets-search');
    await search.press('Enter');
    await page.getByText('Não há resultados mais antigos.').waitFor();
    await search.press('Escape');
    await page.getByTestId('chat-search').waitFor({ state: 'detached' });
    assert.equal(await chat.getByTestId('search-mark').count(), 0);

    // Schedule and transfer dialogs.
    await page.getByTestId('chat-schedule').click();
    await page.getByTestId('schedule-dialog').getByRole('button', { name: 'Cancelar' }).click();
    await page.getByTestId('chat-transfer').click();
    await page.getByRole('dialog').getByText('Transferir atendimento').waitFor();
    await page.getByRole('dialog').getByRole('button', { name: 'Cancelar' }).click();

    // Search finds it by name.
    await page.getByRole('tab', { name: 'Busca' }).click();
    await page.getByTestId('ticket-search').locator('input').fill('Cliente Tes');
    await page.locator(`[data-testid="ticket-list-search"] [data-uuid="${uuid}"]`).waitFor();
    await page.getByRole('tab', { name: 'Abertos' }).click();

    // Return to the queue: it waits in the pending list, to be accepted again.
    await page.getByTestId('chat-return').click();
    await page.waitForURL(/\/tickets$/);
    await page.getByTestId('tab-pending').click();
    const row = page.locator(`[data-testid="ticket-list-pending"] [data-uuid="${uuid}"]`);
    await row.waitFor();
    await row.getByTestId('ticket-accept').click();
    await page.waitForURL(`**/tickets/${uuid}`);

    // Delete (admins), with confirmation: back to /tickets, gone from the lists.
    await page.getByTestId('chat-more').click();
    await page.getByRole('menuitem', { name: 'Excluir atendimento' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Excluir' }).click();
    await page.waitForURL(/\/tickets$/);
    await page.getByText('Atendimento excluído.').waitFor();
    await page
      .locator(`[data-testid="ticket-list-open"] [data-uuid="${uuid}"]`)
      .waitFor({ state: 'detached' });
    const gone = await page.request.get(`/api/tickets/u/${uuid}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    assert.equal(gone.status(), 404);

    // 45 waiting customers: the pending list shows a page of 40 and the next one at its end.
    for (let i = 0; i < 45; i++)
      await http.post(`/simulator/${simulator.id}/inbound`, {
        from: `55119777700${String(i).padStart(2, '0')}`,
        name: `Cliente ${String(i + 1).padStart(2, '0')}`,
        body: `Bom dia, sou o cliente ${i + 1}`,
      });
    await page.reload();
    await page.getByTestId('tab-pending').click();
    const pendingTab = page.getByTestId('tab-pending');
    await pendingTab.filter({ hasText: '40+' }).waitFor();
    await page.mouse.move(0, 0);
    await screenshot(page, 'tickets-pending-many');
    const list = page.locator('[data-testid="ticket-list-pending"] [data-virtuoso-scroller]');
    await until(
      async () => {
        await list.evaluate((el) => (el.scrollTop = el.scrollHeight));
        return pendingTab.innerText();
      },
      (label) => !label.includes('+') && Number(/\d+/.exec(label)?.[0]) >= 45,
      'the second page of pending tickets',
    );
  } catch (err) {
    await screenshot(page, 'tickets-features-failure');
    throw err;
  } finally {
    await context.close();
    await micBrowser.close();
  }
});

test('tickets: a ticket the user may not see shows the unauthorized toast and goes back to /tickets', async () => {
  const adminPage = await newPage(browser);
  const page = await newPage(browser);
  try {
    const admin = pageApi(adminPage, await signInPage(adminPage, DEMO_ADMIN));
    const waiting = await admin.get<{ tickets: { uuid: string; queueId: number | null }[] }>(
      '/tickets?status=pending&showAll=true',
    );
    const queueless = waiting.tickets.find((tk) => tk.queueId === null);
    assert.ok(queueless, 'a waiting ticket without a queue');
    const users = await admin.get<{ id: number; email: string }[]>('/users/list');
    const attendant = users.find((u) => u.email === DEMO_USER.email)!;
    await admin.put(`/users/${attendant.id}`, { showQueuelessTickets: false });

    // The attendant (no queues, no queueless tickets) opens that ticket's address.
    await signInPage(page, DEMO_USER);
    await page.goto(`/tickets/${queueless.uuid}`);
    await page.getByText('Você não tem permissão para acessar este atendimento.').waitFor();
    await page.waitForURL(/\/tickets$/);
    await page.getByTestId('tab-pending').click();
    await page.getByTestId('ticket-list-pending').getByText('Nenhum atendimento aguardando.').waitFor();
    assert.equal(await page.getByTestId('show-all').count(), 0, 'no show-all switch for attendants');
    assert.equal(await page.getByTestId('ticket-peek').count(), 0);
    await admin.put(`/users/${attendant.id}`, { showQueuelessTickets: true });
  } catch (err) {
    await screenshot(page, 'tickets-unauthorized-failure');
    throw err;
  } finally {
    await adminPage.context().close();
    await page.context().close();
  }
});
