import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { createCompany, launch, newPage, screenshot, until } from './browser.js';
import { fakeOpenAi } from '../../server/test/fake-openai.js';

/**
 * AI prompts at run time, end to end: an admin creates a prompt for a queue on the prompts screen; a customer
 * of the simulator connection chats with it (the local OpenAI server answers, as OPENAI_BASE_URL points there,
 * run.mjs), asks for a person; the attendant finds the ticket in pending with the AI's answers marked.
 */
let browser: Browser;
let openai: Awaited<ReturnType<typeof fakeOpenAi>>;
before(async () => {
  browser = await launch();
  openai = await fakeOpenAi(Number(process.env.E2E_OPENAI_PORT ?? 0));
});
after(async () => {
  await browser.close();
  await openai.close();
});

const stamp = Date.now().toString(36);
const LONG = { timeout: 30_000 };
/** Seed plan 3 (Ouro) has useOpenAi. */
const PLAN_WITH_AI = 3;
const PROMPT =
  'Você é o assistente da loja. Responda em português e com educação. Quando o cliente pedir um atendente, ' +
  'responda: Ação: Transferir para o setor de atendimento';

async function signIn(page: Page, email: string): Promise<string> {
  await page.goto('/login');
  await page.locator('input[name="email"]').fill(email);
  await page.locator('input[name="password"]').fill('Admin@123');
  await page.getByTestId('login-submit').click();
  await page.getByTestId('greeting').waitFor(LONG);
  return page.evaluate(() => JSON.parse(localStorage.getItem('token') ?? '""') as string);
}

test('automation: a prompt made on the screen answers a simulator customer until they ask for a person', async () => {
  openai.state.answer = (req) => {
    const last = [...req.body.messages].reverse().find((m) => m.role === 'user')?.content ?? '';
    if (/atendente|pessoa/i.test(last))
      return { content: 'Vou chamar um atendente.\nAção: Transferir para o setor de atendimento' };
    return { content: `Temos sim! Você perguntou: ${last}` };
  };
  const adminEmail = await createCompany('Automacao', PLAN_WITH_AI, stamp);
  const page = await newPage(browser);
  try {
    const token = await signIn(page, adminEmail);
    const call = async <T>(method: string, path: string, data?: unknown) => {
      const res = await page.request.fetch(`/api${path}`, {
        method,
        data,
        headers: { authorization: `Bearer ${token}` },
      });
      assert.ok(res.ok(), `${method} ${path}: ${res.status()} ${await res.text()}`);
      return (await res.json()) as T;
    };
    const queueName = `Loja IA ${stamp}`;
    const queue = await call<{ id: number }>('POST', '/queue', { name: queueName, color: '#1976D2' });
    const connection = await call<{ id: number }>('POST', '/whatsapp', {
      name: `Simulador IA ${stamp}`,
      channel: 'simulator',
      queueIds: [queue.id],
    });

    // The prompt, on the screen.
    await page.goto('/prompts');
    await page.getByTestId('prompt-add').click();
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('heading', { name: 'Adicionar prompt' }).waitFor(LONG);
    await dialog.locator('input[data-field="name"]').fill(`Assistente ${stamp}`);
    await dialog.locator('textarea[data-field="prompt"]').fill(PROMPT);
    await dialog.locator('input[data-field="apiKey"]').fill(`sk-e2e-${stamp}`);
    await dialog.getByRole('combobox', { name: 'Fila' }).click();
    await page.getByRole('option', { name: queueName }).click();
    await dialog.getByRole('button', { name: 'Salvar', exact: true }).click();
    await dialog.waitFor({ state: 'hidden', ...LONG });

    // The customer chats through the simulator's entry.
    const number = `55119${String(Date.now()).slice(-8)}`;
    const conversation = () =>
      call<{ fromMe: boolean; body: string }[]>('GET', `/simulator/${connection.id}/conversations/${number}`);
    await call('POST', `/simulator/${connection.id}/inbound`, {
      from: number,
      name: 'Camila Cliente',
      body: 'Vocês têm camisetas azuis?',
    });
    await until(
      conversation,
      (c) => c.some((m) => m.fromMe && m.body === 'Temos sim! Você perguntou: Vocês têm camisetas azuis?'),
      'the AI answer on the phone',
    );
    const seen = openai.completions.at(-1)!;
    assert.equal(seen.authorization, `Bearer sk-e2e-${stamp}`);
    assert.equal(seen.body.messages[0]!.content, PROMPT);

    await call('POST', `/simulator/${connection.id}/inbound`, {
      from: number,
      body: 'Quero falar com um atendente',
    });
    await until(
      conversation,
      (c) => c.some((m) => m.fromMe && m.body === 'Vou chamar um atendente.'),
      'the hand-off answer',
    );
    const phone = await conversation();
    assert.ok(!phone.some((m) => m.body.includes('Ação:')), 'the action line never reaches the customer');

    // The attendant: the ticket waits in pending, the AI's messages marked.
    await page.goto('/tickets');
    await page.getByTestId('tab-pending').click();
    const row = page
      .getByTestId('ticket-list-pending')
      .locator('[data-testid="ticket-row"]')
      .filter({ hasText: 'Camila Cliente' });
    await row.waitFor(LONG);
    const { tickets } = await call<{ tickets: { id: number; useIntegration: boolean; queueId: number }[] }>(
      'GET',
      '/tickets?status=pending&showAll=true',
    );
    assert.equal(tickets.length, 1);
    assert.equal(tickets[0]!.useIntegration, false);
    assert.equal(tickets[0]!.queueId, queue.id);
    // The attendant looks before accepting (the peek view of a pending ticket).
    await row.getByTestId('ticket-peek').click();
    const peek = page.getByTestId('peek-dialog');
    await peek
      .locator('[data-testid="message"]')
      .filter({ hasText: 'Vou chamar um atendente.' })
      .waitFor(LONG);
    const marks = peek.getByTestId('message-automation');
    await until(
      () => marks.count(),
      (n) => n === 2,
      'two AI messages marked',
    );
    assert.equal((await marks.first().innerText()).trim(), 'Enviada pela IA');
    await page.mouse.move(1, 1);
    await screenshot(page, 'automation-ticket-ai-messages');
  } finally {
    await page.context().close();
  }
});

test('automation: an admin turns on voice-note transcription; the attendant reads the text under the audio', async () => {
  const adminEmail = await createCompany('Transcricao', PLAN_WITH_AI, stamp);
  const page = await newPage(browser);
  try {
    const token = await signIn(page, adminEmail);
    const call = async <T>(method: string, path: string, data?: unknown) => {
      const res = await page.request.fetch(`/api${path}`, {
        method,
        data,
        headers: { authorization: `Bearer ${token}` },
      });
      assert.ok(res.ok(), `${method} ${path}: ${res.status()} ${await res.text()}`);
      return (await res.json()) as T;
    };
    const queue = await call<{ id: number }>('POST', '/queue', { name: `Gente ${stamp}`, color: '#2E7D32' });
    const connection = await call<{ id: number }>('POST', '/whatsapp', {
      name: `Simulador áudio ${stamp}`,
      channel: 'simulator',
      queueIds: [queue.id],
    });

    // Settings → Options: transcription on, with the company's own key (shown masked once saved).
    await page.goto('/settings');
    const toggle = page.getByRole('combobox', { name: /Transcrever áudios/ });
    await toggle.waitFor(LONG);
    await toggle.click();
    const [savedToggle] = await Promise.all([
      page.waitForResponse(
        (r) => r.url().endsWith('/api/settings/transcribeAudio') && r.request().method() === 'PUT',
      ),
      page.getByRole('option', { name: 'Ativado', exact: true }).click(),
    ]);
    assert.equal(savedToggle.status(), 200);
    const keyField = page.locator('input[name="transcriptionApiKey"]');
    await keyField.fill(`sk-voice-${stamp}`);
    const [savedKey] = await Promise.all([
      page.waitForResponse(
        (r) => r.url().endsWith('/api/settings/transcriptionApiKey') && r.request().method() === 'PUT',
      ),
      keyField.press('Enter'),
    ]);
    assert.equal(savedKey.status(), 200);
    await until(
      () => keyField.inputValue(),
      (v) => v === '********',
      'the key shown masked',
    );

    openai.state.transcript = 'Oi, queria saber o preço da entrega';
    const number = `55118${String(Date.now()).slice(-8)}`;
    await call('POST', `/simulator/${connection.id}/inbound`, {
      from: number,
      name: 'Bruna Áudio',
      media: {
        mimetype: 'audio/ogg',
        filename: 'nota.ogg',
        data: Buffer.from('OggS-e2e-voice').toString('base64'),
      },
    });

    // The server has transcribed it (the text is kept with the message).
    await until(
      async () => {
        const { tickets } = await call<{ tickets: { id: number }[] }>(
          'GET',
          '/tickets?status=pending&showAll=true',
        );
        if (!tickets[0]) return [];
        const { messages } = await call<{ messages: { data: { transcription?: string } | null }[] }>(
          'GET',
          `/messages/${tickets[0].id}`,
        );
        return messages.map((m) => m.data?.transcription ?? '');
      },
      (t) => t.includes('Oi, queria saber o preço da entrega'),
      'the transcription stored',
    );
    await page.goto('/tickets');
    await page.getByTestId('tab-pending').click();
    const row = page
      .getByTestId('ticket-list-pending')
      .locator('[data-testid="ticket-row"]')
      .filter({ hasText: 'Bruna Áudio' });
    await row.waitFor(LONG);
    await row.getByTestId('ticket-peek').click();
    const peek = page.getByTestId('peek-dialog');
    const text = peek.getByTestId('message-transcription');
    await text.waitFor(LONG);
    assert.match(await text.innerText(), /Transcrição:\s*Oi, queria saber o preço da entrega/);
    assert.equal(openai.transcriptions.at(-1)!.authorization, `Bearer sk-voice-${stamp}`);
    await page.mouse.move(1, 1);
    await screenshot(page, 'automation-voice-transcription');
  } finally {
    await page.context().close();
  }
});

test('automation: the list and the chat say "IA respondendo" (no Aceitar) while the AI has the ticket, then why it failed; admins see repeated failures in the top bar', async () => {
  const key = `sk-e2e-state-${stamp}`;
  openai.state.answer = (req) => {
    const last = [...req.body.messages].reverse().find((m) => m.role === 'user')?.content ?? '';
    return { content: `Claro! ${last}` };
  };
  const adminEmail = await createCompany('EstadoIA', PLAN_WITH_AI, stamp);
  for (const dark of [false, true]) {
    const page = await newPage(browser, { width: 500, height: 900 });
    try {
      await page.goto('/login');
      await page.evaluate((d) => localStorage.setItem('preferredTheme', d ? 'dark' : 'light'), dark);
      const token = await signIn(page, adminEmail);
      const call = async <T>(method: string, path: string, data?: unknown) => {
        const res = await page.request.fetch(`/api${path}`, {
          method,
          data,
          headers: { authorization: `Bearer ${token}` },
        });
        assert.ok(res.ok(), `${method} ${path}: ${res.status()} ${await res.text()}`);
        return (await res.json()) as T;
      };
      const suffix = dark ? 'escuro' : 'claro';
      const queue = await call<{ id: number }>('POST', '/queue', {
        name: `IA ${suffix} ${stamp}`,
        color: dark ? '#6A1B9A' : '#00838F',
      });
      const connection = await call<{ id: number }>('POST', '/whatsapp', {
        name: `Simulador ${suffix} ${stamp}`,
        channel: 'simulator',
        queueIds: [queue.id],
      });
      await call('POST', '/prompt', {
        name: `Assistente ${suffix} ${stamp}`,
        prompt: PROMPT,
        model: 'gpt-4o-mini',
        maxTokens: 100,
        temperature: 0.5,
        apiKey: `${key}-${suffix}`,
        queueId: queue.id,
        maxMessages: 10,
      });
      const customer = `Cliente ${suffix}`;
      const say = (number: string, body: string, name = customer) =>
        call('POST', `/simulator/${connection.id}/inbound`, { from: number, name, body });
      const number = `55117${String(Date.now()).slice(-8)}`;

      await page.goto('/tickets');
      await page.getByTestId('tab-pending').click();
      await say(number, 'Oi, tudo bem?');
      const row = page
        .getByTestId('ticket-list-pending')
        .locator('[data-testid="ticket-row"]')
        .filter({ hasText: customer });
      await row.getByTestId('ticket-automation').filter({ hasText: 'IA respondendo' }).waitFor(LONG);
      assert.equal(await row.getByTestId('ticket-accept').count(), 0, 'no Aceitar while the AI answers');
      await page.mouse.move(1, 1);
      await screenshot(page, `automation-state-list-${suffix}-500`);
      await row.getByTestId('ticket-open').click();
      const line = page.getByTestId('chat-automation');
      await line.filter({ hasText: 'IA respondendo' }).waitFor(LONG);
      assert.equal((await page.getByTestId('chat-accept').textContent())?.trim(), 'Assumir');
      await page.mouse.move(1, 1);
      await screenshot(page, `automation-state-answering-${suffix}-500`);

      // The key stops working: the next message fails, people take the ticket, the line says why (live).
      openai.state.invalidKeys.add(`${key}-${suffix}`);
      await say(number, 'Ainda está aí?');
      await line.filter({ hasText: 'IA falhou: 401 invalid_api_key' }).waitFor(LONG);
      assert.equal((await page.getByTestId('chat-accept').textContent())?.trim(), 'Aceitar');
      await page.mouse.move(1, 1);
      await screenshot(page, `automation-state-failed-${suffix}-500`);
      await page.goto('/tickets');
      await page.getByTestId('tab-pending').click();
      await row.getByTestId('ticket-automation').filter({ hasText: 'IA falhou' }).waitFor(LONG);
      await row.getByTestId('ticket-accept').waitFor(LONG);

      // Two more customers fail: three in a row, the admins' top bar shows the incident, live.
      for (const n of [1, 2])
        await say(`55115${String(Date.now()).slice(-7)}${n}`, 'Olá', `Outro ${n} ${suffix}`);
      const alerts = page.getByTestId('automation-alerts');
      await alerts.waitFor(LONG);
      await alerts.click();
      const card = page.getByTestId('automation-alert').filter({ hasText: `Assistente ${suffix} ${stamp}` });
      await card.waitFor(LONG);
      assert.match(await card.innerText(), /3 falhas seguidas/);
      await page.waitForTimeout(300);
      await screenshot(page, `automation-alerts-${suffix}-500`);
      await page.keyboard.press('Escape');
      openai.state.invalidKeys.delete(`${key}-${suffix}`);
    } finally {
      await page.context().close();
    }
  }
});
