import { afterAll, beforeEach, describe, expect, test } from 'vitest';
import { testApp } from '../../../test/helpers.js';
import { fakeOpenAi } from '../../../test/fake-openai.js';
import { newNumber } from '../bot/bot-test-kit.js';
import { automationKit, PROMPT_TEXT } from './automation-test-kit.js';

const openai = await fakeOpenAi();
afterAll(() => openai.close());
const t = await testApp({ env: { OPENAI_BASE_URL: openai.baseUrl, ALLOW_PRIVATE_URLS: 'true' } });
const k = automationKit(t);
const c = await t.company('Autom');

const echo = openai.state.answer;
beforeEach(() => {
  openai.state.answer = echo;
});

/** A connection whose only queue has a prompt. */
async function onePromptQueue(o: Record<string, unknown> = {}) {
  const { whatsappId, queues } = await k.setup(c.admin, [
    { name: `Loja ${newNumber()}`, greetingMessage: '' },
  ]);
  const queueId = Object.values(queues)[0]!;
  const prompt = await k.prompt(c.admin, queueId, o);
  return { whatsappId, queueId, promptId: prompt.id };
}

describe('AI prompts (OpenAI) through the simulator', () => {
  test('a customer reaching a queue with a prompt is answered by the model, with the prompt as system message', async () => {
    const { whatsappId, queueId, promptId } = await onePromptQueue();
    const number = newNumber();
    const before = openai.completions.length;
    expect(await k.say(c.admin, whatsappId, number, 'Oi, vocês têm camisetas?')).toEqual([
      'Eco: Oi, vocês têm camisetas?',
    ]);
    const seen = openai.completions[before]!;
    expect(seen.authorization).toBe('Bearer sk-company-key');
    expect(seen.body).toMatchObject({ model: 'gpt-4o-mini', max_tokens: 120, temperature: 0.5 });
    expect(seen.body.messages).toEqual([
      { role: 'system', content: PROMPT_TEXT },
      { role: 'user', content: 'Oi, vocês têm camisetas?' },
    ]);
    const ticket = await k.ticketOf(c.id, whatsappId, number);
    expect(ticket).toMatchObject({
      status: 'pending',
      userId: null,
      queueId,
      useIntegration: true,
      promptId,
    });

    // The answer is a company message without a user, marked as the automation's.
    const res = await t.as(c.admin).get(`/messages/${ticket.id}`);
    const { messages } = (await res.json()) as {
      messages: {
        body: string;
        fromMe: boolean;
        userId: number | null;
        data: Record<string, unknown> | null;
      }[];
    };
    expect(messages.find((m) => m.fromMe)).toMatchObject({
      body: 'Eco: Oi, vocês têm camisetas?',
      userId: null,
      data: { automation: 'prompt' },
    });
  });

  test('the conversation sent is the last maxMessages messages, oldest first', async () => {
    const { whatsappId } = await onePromptQueue({ maxMessages: 3 });
    const number = newNumber();
    await k.say(c.admin, whatsappId, number, 'primeira');
    await k.say(c.admin, whatsappId, number, 'segunda');
    const before = openai.completions.length;
    await k.say(c.admin, whatsappId, number, 'terceira');
    expect(openai.completions[before]!.body.messages).toEqual(
      [
        { role: 'system', content: PROMPT_TEXT },
        { role: 'assistant', content: 'Eco: primeira' },
        { role: 'user', content: 'segunda' },
        { role: 'assistant', content: 'Eco: segunda' },
      ]
        .slice(0, 1)
        .concat([
          { role: 'user', content: 'segunda' },
          { role: 'assistant', content: 'Eco: segunda' },
          { role: 'user', content: 'terceira' },
        ]),
    );
  });

  test('the action line hands the ticket to people: not sent, flags reset, no more AI and no bot menu', async () => {
    const { whatsappId, queueId } = await onePromptQueue();
    const number = newNumber();
    await k.say(c.admin, whatsappId, number, 'oi');
    openai.state.answer = () => ({
      content: 'Claro, vou chamar alguém.\nAção: Transferir para o setor de atendimento',
    });
    expect(await k.say(c.admin, whatsappId, number, 'quero falar com uma pessoa')).toEqual([
      'Claro, vou chamar alguém.',
    ]);
    const ticket = await k.ticketOf(c.id, whatsappId, number);
    expect(ticket).toMatchObject({
      status: 'pending',
      userId: null,
      queueId,
      useIntegration: false,
      promptId: null,
      integrationId: null,
    });
    expect(
      await k.call(c.admin, 'GET', `/ticket-notes/list?ticketId=${ticket.id}`).then((r) => r.json()),
    ).toEqual([]);
    const before = openai.completions.length;
    expect(await k.say(c.admin, whatsappId, number, 'alô?')).toEqual([]);
    expect(openai.completions.length).toBe(before);
    expect((await k.ticketOf(c.id, whatsappId, number)).useIntegration).toBe(false);
  });

  test('an attendant accepting the ticket ends the automation (flags reset as for resolve)', async () => {
    const { whatsappId } = await onePromptQueue();
    const number = newNumber();
    await k.say(c.admin, whatsappId, number, 'oi');
    const ticket = await k.ticketOf(c.id, whatsappId, number);
    const res = await t.as(c.admin).put(`/tickets/${ticket.id}`, { status: 'open', userId: c.admin.user.id });
    expect(res.status, await res.clone().text()).toBe(200);
    expect(await res.json()).toMatchObject({ status: 'open', useIntegration: false, promptId: null });
    const before = openai.completions.length;
    expect(await k.say(c.admin, whatsappId, number, 'ainda aí?')).toEqual([]);
    expect(openai.completions.length).toBe(before);
    expect(await k.ticketOf(c.id, whatsappId, number)).toMatchObject({
      status: 'open',
      useIntegration: false,
    });
    expect((await t.app.services.automation.state(c.id, ticket.id))?.endReason).toBe('accepted');
  });

  test("two customers answered at the same time never see each other's conversation", async () => {
    const { whatsappId } = await onePromptQueue();
    const [a, b] = [newNumber(), newNumber()];
    const before = openai.completions.length;
    const [ra, rb] = await Promise.all([
      k.say(c.admin, whatsappId, a, 'sou a Ana'),
      k.say(c.admin, whatsappId, b, 'sou o Bruno'),
    ]);
    const [ra2, rb2] = await Promise.all([
      k.say(c.admin, whatsappId, a, 'Ana de novo'),
      k.say(c.admin, whatsappId, b, 'Bruno de novo'),
    ]);
    expect([...ra, ...ra2]).toEqual(['Eco: sou a Ana', 'Eco: Ana de novo']);
    expect([...rb, ...rb2]).toEqual(['Eco: sou o Bruno', 'Eco: Bruno de novo']);
    for (const r of openai.completions.slice(before)) {
      const text = r.body.messages.map((m) => m.content).join('|');
      expect(text.includes('Ana') && text.includes('Bruno')).toBe(false);
    }
  });

  test.each([
    ['an invalid key', 'invalidKeys', 'sk-wrong', '401 invalid_api_key'],
    ['a spent quota', 'quotaKeys', 'sk-spent', '429 insufficient_quota'],
  ] as const)(
    '%s: the customer sees no error, people take the ticket and admins read why',
    async (_n, set, key, reason) => {
      openai.state[set].add(key);
      const { whatsappId, queueId } = await onePromptQueue({ apiKey: key });
      const number = newNumber();
      expect(await k.say(c.admin, whatsappId, number, 'oi')).toEqual([]);
      const ticket = await k.ticketOf(c.id, whatsappId, number);
      expect(ticket).toMatchObject({ status: 'pending', queueId, useIntegration: false, promptId: null });
      const notes = (await k
        .call(c.admin, 'GET', `/ticket-notes/list?ticketId=${ticket.id}`)
        .then((r) => r.json())) as { note: string }[];
      expect(notes.map((n) => n.note)).toEqual([
        `Automação (OpenAI) falhou: ${reason}. O ticket foi passado para atendimento humano.`,
      ]);
      expect(notes[0]!.note).not.toContain(key);
    },
  );

  test('a voice note is transcribed through the same client and answered', async () => {
    const { whatsappId } = await onePromptQueue();
    const number = newNumber();
    openai.state.transcript = 'qual o horário de vocês?';
    const tBefore = openai.transcriptions.length;
    const replies = await k.send(c.admin, whatsappId, number, {
      media: {
        mimetype: 'audio/ogg',
        filename: 'voz.ogg',
        data: Buffer.from('OggS-fake-voice').toString('base64'),
      },
    });
    expect(replies).toEqual(['Eco: qual o horário de vocês?']);
    const seen = openai.transcriptions[tBefore]!;
    expect(seen.authorization).toBe('Bearer sk-company-key');
    expect(seen.raw).toContain('whisper-1');
    expect(seen.raw).toContain('OggS-fake-voice');
  });

  test('the bot menu leads to a queue with a prompt: from then on the model answers', async () => {
    const { whatsappId, queues } = await k.setup(c.admin, [
      { name: `Suporte ${newNumber()}`, greetingMessage: 'Suporte aqui.', orderQueue: 1 },
      { name: `IA ${newNumber()}`, greetingMessage: 'Você fala com nosso assistente.', orderQueue: 2 },
    ]);
    const [, aiQueue] = Object.values(queues);
    await k.prompt(c.admin, aiQueue!);
    const number = newNumber();
    const menu = await k.say(c.admin, whatsappId, number, 'oi');
    expect(menu[0]).toContain('*2*');
    expect(await k.say(c.admin, whatsappId, number, '2')).toEqual(['Você fala com nosso assistente.']);
    expect(await k.ticketOf(c.id, whatsappId, number)).toMatchObject({
      queueId: aiQueue,
      useIntegration: true,
    });
    expect(await k.say(c.admin, whatsappId, number, 'preciso de ajuda')).toEqual(['Eco: preciso de ajuda']);
  });

  test('a connection-level prompt takes new tickets before the queue menu', async () => {
    const { queues } = await k.setup(c.admin, [{ name: `Base ${newNumber()}` }]);
    const prompt = await k.prompt(c.admin, Object.values(queues)[0]!);
    const { whatsappId } = await k.setup(
      c.admin,
      [{ name: `X ${newNumber()}` }, { name: `Y ${newNumber()}` }],
      { promptId: prompt.id },
    );
    const number = newNumber();
    expect(await k.say(c.admin, whatsappId, number, 'olá')).toEqual(['Eco: olá']);
    expect(await k.ticketOf(c.id, whatsappId, number)).toMatchObject({
      queueId: null,
      useIntegration: true,
      promptId: prompt.id,
    });
  });

  test('a transfer by a person into a queue with a prompt hands the ticket to it', async () => {
    const { whatsappId, queues } = await k.setup(c.admin, [
      { name: `Humanos ${newNumber()}`, greetingMessage: '' },
    ]);
    const { queues: other } = await k.setup(c.admin, [{ name: `Robô ${newNumber()}` }]);
    const aiQueue = Object.values(other)[0]!;
    const prompt = await k.prompt(c.admin, aiQueue);
    const number = newNumber();
    expect(await k.say(c.admin, whatsappId, number, 'oi')).toEqual([]);
    const ticket = await k.ticketOf(c.id, whatsappId, number);
    expect(ticket.queueId).toBe(Object.values(queues)[0]);
    const res = await t.as(c.admin).put(`/tickets/${ticket.id}`, { queueId: aiQueue });
    expect(res.status).toBe(200);
    await k.idle();
    expect(await k.ticketOf(c.id, whatsappId, number)).toMatchObject({
      status: 'pending',
      queueId: aiQueue,
      useIntegration: true,
      promptId: prompt.id,
    });
    expect(await k.say(c.admin, whatsappId, number, 'e agora?')).toEqual(['Eco: e agora?']);
  });

  test("tenant isolation: each company's key answers only its own customers", async () => {
    const other = await t.company('AutomOther');
    const ko = automationKit(t);
    const { whatsappId: wA } = await onePromptQueue({ apiKey: 'sk-company-a' });
    const { whatsappId: wB, queues } = await ko.setup(other.admin, [
      { name: 'Outra loja', greetingMessage: '' },
    ]);
    await ko.prompt(other.admin, Object.values(queues)[0]!, {
      apiKey: 'sk-company-b',
      prompt: PROMPT_TEXT + ' (B)',
    });
    const before = openai.completions.length;
    await Promise.all([
      k.say(c.admin, wA, newNumber(), 'cliente de A'),
      ko.say(other.admin, wB, newNumber(), 'cliente de B'),
    ]);
    const seen = openai.completions.slice(before);
    expect(seen).toHaveLength(2);
    for (const r of seen) {
      const user = r.body.messages.find((m) => m.role === 'user')!.content;
      if (user === 'cliente de A') {
        expect(r.authorization).toBe('Bearer sk-company-a');
        expect(r.body.messages[0]!.content).toBe(PROMPT_TEXT);
      } else {
        expect(r.authorization).toBe('Bearer sk-company-b');
        expect(r.body.messages[0]!.content).toBe(PROMPT_TEXT + ' (B)');
      }
    }
    // The other company can neither read nor use the first one's prompt.
    const [promptA] = (
      (await t
        .as(c.admin)
        .get('/prompt')
        .then((r) => r.json())) as { prompts: { id: number }[] }
    ).prompts;
    expect((await t.as(other.admin).get(`/prompt/${promptA!.id}`)).status).toBe(404);
    const res = await t
      .as(other.admin)
      .post('/whatsapp', { name: 'Roubo', channel: 'simulator', promptId: promptA!.id });
    expect(res.status).toBeGreaterThanOrEqual(400);
  });

  test('a queue with both a prompt and an integration: the prompt answers (integrations.test.ts runs them)', async () => {
    const { whatsappId, queues } = await k.setup(c.admin, [
      { name: `Fluxo ${newNumber()}`, greetingMessage: '' },
    ]);
    const queueId = Object.values(queues)[0]!;
    const created = await t.as(c.admin).post('/queueIntegration', {
      type: 'webhook',
      name: `Hook ${newNumber()}`,
      urlN8N: 'https://hooks.example.com/recado',
    });
    expect(created.status, await created.clone().text()).toBe(201);
    const { id: integrationId } = (await created.json()) as { id: number };
    expect((await t.as(c.admin).put(`/queue/${queueId}`, { integrationId })).status).toBe(200);
    const prompt = await k.prompt(c.admin, queueId);
    const number = newNumber();
    expect(await k.say(c.admin, whatsappId, number, 'oi')).toEqual(['Eco: oi']);
    const ticket = await k.ticketOf(c.id, whatsappId, number);
    expect(ticket).toMatchObject({ queueId, useIntegration: true, promptId: prompt.id, integrationId: null });
    expect((await t.app.services.automation.state(c.id, ticket.id))?.kind).toBe('prompt');
  });

  test('a prompt base URL is checked like every tenant URL (cloud metadata stays refused)', async () => {
    const { queues } = await k.setup(c.admin, [{ name: `Meta ${newNumber()}` }]);
    const res = await t.as(c.admin).post('/prompt', {
      name: 'Metadata model',
      prompt: PROMPT_TEXT,
      maxTokens: 50,
      temperature: 1,
      apiKey: 'sk-x',
      queueId: Object.values(queues)[0],
      maxMessages: 5,
      baseUrl: 'http://169.254.169.254/v1',
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: 'ERR_URL_NOT_ALLOWED' });
  });

  test('a prompt with its own base URL is served by that OpenAI-compatible server', async () => {
    const compatible = await fakeOpenAi();
    try {
      compatible.state.answer = () => ({ content: 'resposta do servidor compatível' });
      const { whatsappId } = await onePromptQueue({ baseUrl: compatible.baseUrl, apiKey: 'ollama' });
      const before = openai.completions.length;
      expect(await k.say(c.admin, whatsappId, newNumber(), 'oi')).toEqual([
        'resposta do servidor compatível',
      ]);
      expect(openai.completions.length).toBe(before);
      expect(compatible.completions[0]!.authorization).toBe('Bearer ollama');
    } finally {
      await compatible.close();
    }
  });
});

describe('voice notes transcribed for attendants (company setting)', () => {
  const voice = {
    media: { mimetype: 'audio/ogg', filename: 'nota.ogg', data: Buffer.from('OggS-note').toString('base64') },
  };
  /** A connection whose only queue has no automation: the ticket waits for people. */
  async function plainQueue(kit = k, admin = c.admin) {
    const { whatsappId } = await kit.setup(admin, [{ name: `Gente ${newNumber()}`, greetingMessage: '' }]);
    return whatsappId;
  }
  async function lastAudio(admin = c.admin, companyId = c.id, whatsappId: number, number: string, kit = k) {
    const ticket = await kit.ticketOf(companyId, whatsappId, number);
    const { messages } = (await t
      .as(admin)
      .get(`/messages/${ticket.id}`)
      .then((r) => r.json())) as {
      messages: { mediaType: string | null; data: Record<string, unknown> | null }[];
    };
    return { ticket, audio: messages.find((m) => m.mediaType === 'audio')! };
  }

  test('off by default; on: the text is kept under the audio, with a prompt key or the company key (sealed)', async () => {
    const whatsappId = await plainQueue();
    const n1 = newNumber();
    const seen = openai.transcriptions.length;
    await k.send(c.admin, whatsappId, n1, voice);
    expect(openai.transcriptions.length).toBe(seen);
    expect((await lastAudio(c.admin, c.id, whatsappId, n1)).audio.data?.transcription).toBeUndefined();

    expect((await t.as(c.admin).put('/settings/transcribeAudio', { value: 'enabled' })).status).toBe(200);
    // A prompt on another queue of the company: its key serves while the company has none of its own.
    const { queues } = await k.setup(c.admin, [{ name: `IA ${newNumber()}` }]);
    await k.prompt(c.admin, Object.values(queues)[0]!);
    openai.state.transcript = 'me liga depois';
    const n2 = newNumber();
    await k.send(c.admin, whatsappId, n2, voice);
    const { ticket, audio } = await lastAudio(c.admin, c.id, whatsappId, n2);
    expect(audio.data).toMatchObject({ transcription: 'me liga depois' });
    expect(ticket).toMatchObject({ useIntegration: false, status: 'pending' });
    // No company key yet: a prompt of the company lends its key.
    expect(openai.transcriptions.at(-1)!.authorization).toBe('Bearer sk-company-key');

    const put = await t.as(c.admin).put('/settings/transcriptionApiKey', { value: 'sk-transcribe-only' });
    expect(await put.json()).toEqual({ key: 'transcriptionApiKey', value: '********' });
    const list = (await t
      .as(c.admin)
      .get('/settings')
      .then((r) => r.json())) as { key: string; value: string }[];
    expect(list.find((s) => s.key === 'transcriptionApiKey')!.value).toBe('********');
    const { settings } = await import('../../db/schema/index.js');
    const rows = await t.database.db.select().from(settings);
    expect(JSON.stringify(rows)).not.toContain('sk-transcribe-only');
    // Sending the mask back keeps the key.
    await t.as(c.admin).put('/settings/transcriptionApiKey', { value: '********' });
    const n3 = newNumber();
    await k.send(c.admin, whatsappId, n3, voice);
    expect(openai.transcriptions.at(-1)!.authorization).toBe('Bearer sk-transcribe-only');
    expect((await lastAudio(c.admin, c.id, whatsappId, n3)).audio.data).toMatchObject({
      transcription: 'me liga depois',
    });
  });

  test("another company's setting and key are never used for its voice notes", async () => {
    const other = await t.company('TranscribeOther');
    const ko = automationKit(t);
    const whatsappId = await plainQueue(ko, other.admin);
    const number = newNumber();
    const seen = openai.transcriptions.length;
    // Its own setting on, but it has neither a key nor a prompt: nothing is transcribed.
    expect((await t.as(other.admin).put('/settings/transcribeAudio', { value: 'enabled' })).status).toBe(200);
    await ko.send(other.admin, whatsappId, number, voice);
    expect(openai.transcriptions.length).toBe(seen);
    expect(
      (await lastAudio(other.admin, other.id, whatsappId, number, ko)).audio.data?.transcription,
    ).toBeUndefined();
    const list = (await t
      .as(other.admin)
      .get('/settings')
      .then((r) => r.json())) as { key: string; value: string }[];
    expect(list.find((s) => s.key === 'transcriptionApiKey')!.value).toBe('');
  });
});
