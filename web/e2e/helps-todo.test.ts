import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { apiLogin, BASE_URL, launch, newPage, screenshot, signInPage, SUPER_USER } from './browser.js';

let browser: Browser;
before(async () => {
  browser = await launch();
});
after(async () => {
  await browser.close();
});

/** No YouTube from the closed network: thumbnails fail (the fallback shows), the player is a stub page. */
async function stubYoutube(page: Page) {
  await page.route('https://img.youtube.com/**', (route) => route.abort('internetdisconnected'));
  await page.route('https://www.youtube.com/**', (route) =>
    route.fulfill({
      contentType: 'text/html',
      body: '<body style="margin:0;background:#111;color:#eee;font:16px sans-serif;display:grid;place-items:center;height:100vh">YouTube player</body>',
    }),
  );
}

test('help videos: grid, thumbnail fallback, player modal closed with Escape', async () => {
  const suffix = Date.now().toString(36);
  const title = `Primeiros passos ${suffix}`;
  const page = await newPage(browser);
  try {
    await stubYoutube(page);
    const token = await signInPage(page);

    // Empty state, when this server has no helps yet.
    const existing = (await (
      await page.request.get('/api/helps', { headers: { authorization: `Bearer ${token}` } })
    ).json()) as unknown[];
    if (existing.length === 0) {
      await page.goto('/helps');
      await page.getByTestId('helps-empty').waitFor();
      assert.match(await page.getByTestId('helps-empty').innerText(), /Nenhum vídeo de ajuda/);
      await screenshot(page, 'helps-empty');
    }

    // The super user publishes videos.
    const superToken = await apiLogin(SUPER_USER.email, SUPER_USER.password);
    for (const help of [
      {
        title,
        description: 'Como entrar, conhecer o menu e atender o primeiro cliente pelo WhatsApp.',
        video: 'dQw4w9WgXcQ',
      },
      {
        title: `Respostas rápidas ${suffix}`,
        description:
          'Crie atalhos para as mensagens que você mais envia e use-os digitando / na conversa. Um texto longo para ver o corte em três linhas no cartão da grade de vídeos.',
        video: 'aqz-KE-bpKQ',
      },
    ]) {
      const res = await fetch(`${BASE_URL}/api/helps`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${superToken}` },
        body: JSON.stringify(help),
      });
      assert.equal(res.status, 201);
    }

    await page.goto('/helps');
    const card = page.getByTestId('help-card').filter({ hasText: title });
    await card.waitFor();
    assert.match(await card.innerText(), /Como entrar, conhecer o menu/);
    // The thumbnail could not load: the play-icon fallback stands in for it, no broken image.
    await card.getByTestId('help-thumbnail-fallback').waitFor();
    assert.equal(await card.locator('img').count(), 0);
    await screenshot(page, 'helps-grid');

    await card.getByRole('button').click();
    const dialog = page.getByRole('dialog');
    await dialog.waitFor();
    assert.match(await dialog.innerText(), new RegExp(title));
    const frame = dialog.locator('iframe');
    assert.equal(await frame.getAttribute('src'), 'https://www.youtube.com/embed/dQw4w9WgXcQ?autoplay=1');
    await page.waitForTimeout(400); // the dialog's fade-in
    await screenshot(page, 'helps-player');

    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    assert.equal(await page.locator('iframe').count(), 0, 'the player stops when closed');

    // The close button closes it too.
    await card.getByRole('button').click();
    await page.getByRole('dialog').getByRole('button', { name: 'Fechar vídeo' }).click();
    await page.getByRole('dialog').waitFor({ state: 'detached' });

    // Dark theme, English, and a phone-sized screen.
    await page.evaluate(() => {
      localStorage.setItem('preferredTheme', 'dark');
      localStorage.setItem('language', 'en');
    });
    await page.reload();
    await card.waitFor();
    assert.ok(await page.getByRole('heading', { name: 'Help', exact: true }).isVisible());
    await screenshot(page, 'helps-grid-dark-en');
    await card.getByRole('button').click();
    await page.getByRole('dialog').waitFor();
    await page.waitForTimeout(400);
    await screenshot(page, 'helps-player-dark-en');
    await page.keyboard.press('Escape');
    await page.getByRole('dialog').waitFor({ state: 'detached' });
    await page.setViewportSize({ width: 390, height: 800 });
    await page.mouse.move(0, 0);
    await screenshot(page, 'helps-grid-mobile');
    await card.getByRole('button').click();
    await page.getByRole('dialog').waitFor();
    await page.waitForTimeout(400);
    await screenshot(page, 'helps-player-mobile');
    await page.keyboard.press('Escape');
    await page.getByRole('dialog').waitFor({ state: 'detached' });
  } finally {
    await page.context().close();
  }
});

test('to-do list: add, edit, delete, blank ignored, kept in localStorage only', async () => {
  const page = await newPage(browser);
  try {
    await signInPage(page);
    const sent: string[] = [];
    page.on('request', (req) => sent.push(`${req.url()} ${req.postData() ?? ''}`));

    await page.goto('/todolist');
    await page.getByTestId('todo-empty').waitFor();
    await screenshot(page, 'todo-empty');

    const input = page.getByRole('textbox', { name: 'Nova tarefa' });
    const items = page.getByTestId('todo-item');
    const texts = () => page.getByTestId('todo-text').allInnerTexts();

    await input.fill('Comprar café para a equipe');
    await input.press('Enter');
    await input.fill('Ligar para a Ana sobre o contrato');
    await page.getByRole('button', { name: 'Adicionar' }).click();
    assert.deepEqual(await texts(), ['Comprar café para a equipe', 'Ligar para a Ana sobre o contrato']);
    assert.equal(await input.inputValue(), '');

    // Blank and whitespace-only text is ignored, by Enter and by the button.
    await input.fill('   ');
    await input.press('Enter');
    await page.getByRole('button', { name: 'Adicionar' }).click();
    await input.press('Enter');
    assert.equal(await items.count(), 2);

    // Edit in place: the text and updatedAt change.
    await page.waitForTimeout(20);
    await items.nth(0).getByRole('button', { name: 'Editar tarefa' }).click();
    const editor = items.nth(0).getByRole('textbox', { name: 'Texto da tarefa' });
    assert.equal(await editor.inputValue(), 'Comprar café para a equipe');
    await screenshot(page, 'todo-editing');
    await editor.fill('Comprar café e açúcar');
    await editor.press('Enter');
    assert.deepEqual(await texts(), ['Comprar café e açúcar', 'Ligar para a Ana sobre o contrato']);
    assert.match(await items.nth(0).innerText(), /Criada em .*Editada em /s);
    assert.doesNotMatch(await items.nth(1).innerText(), /Editada em/);

    // Escape cancels an edit.
    await items.nth(1).getByRole('button', { name: 'Editar tarefa' }).click();
    await items.nth(1).getByRole('textbox').fill('não deve ficar');
    await items.nth(1).getByRole('textbox').press('Escape');
    assert.deepEqual(await texts(), ['Comprar café e açúcar', 'Ligar para a Ana sobre o contrato']);
    await page.mouse.move(0, 0);
    await page.waitForTimeout(300);
    await screenshot(page, 'todo-list');

    // Delete, then reload: what remains comes back from localStorage.
    await items.nth(1).getByRole('button', { name: 'Excluir tarefa' }).click();
    assert.deepEqual(await texts(), ['Comprar café e açúcar']);
    await page.reload();
    await items.first().waitFor();
    assert.deepEqual(await texts(), ['Comprar café e açúcar']);

    const stored = JSON.parse((await page.evaluate(() => localStorage.getItem('todos'))) ?? 'null') as {
      text: string;
      createdAt: string;
      updatedAt: string;
    }[];
    assert.equal(stored.length, 1);
    assert.deepEqual(Object.keys(stored[0]!).sort(), ['createdAt', 'text', 'updatedAt']);
    assert.equal(stored[0]!.text, 'Comprar café e açúcar');
    assert.ok(Date.parse(stored[0]!.updatedAt) > Date.parse(stored[0]!.createdAt));
    assert.deepEqual(
      sent.filter((s) => /café|Ana sobre/.test(decodeURIComponent(s))),
      [],
      'no task ever reaches the network',
    );

    // Dates follow the language; both themes are readable.
    await input.fill('Revisar respostas rápidas');
    await input.press('Enter');
    await page.evaluate(() => {
      localStorage.setItem('preferredTheme', 'dark');
      localStorage.setItem('language', 'en');
    });
    await page.reload();
    await items.first().waitFor();
    assert.match(await items.nth(0).innerText(), /Created .*Edited /s);
    await screenshot(page, 'todo-list-dark-en');
    await page.evaluate(() => localStorage.setItem('language', 'es'));
    await page.reload();
    await items.first().waitFor();
    assert.match(await items.nth(0).innerText(), /Creada el .*Editada el /s);
    await page.setViewportSize({ width: 390, height: 800 });
    await screenshot(page, 'todo-list-mobile-es');
  } finally {
    await page.context().close();
  }
});
