import { afterAll, describe, expect, test } from 'vitest';
import { PROMPT_HANDOFF_LINE, SECRET_MASK } from '@recado/contracts';
import { expectError, testApp, unique } from '../../../test/helpers.js';
import { fakeOpenAi } from '../../../test/fake-openai.js';

// No ALLOW_PRIVATE_URLS: a prompt's own base URL on a private address is refused by the outbound guard,
// while the operator's OPENAI_BASE_URL (the local fake) is trusted.
const openai = await fakeOpenAi();
afterAll(() => openai.close());
const t = await testApp({ env: { OPENAI_BASE_URL: openai.baseUrl } });
const c = await t.company('PromptTest');
const other = await t.company('PromptTestOther');

const TEXT =
  'Você é o assistente da loja. Responda em português, com educação e em poucas palavras, por favor.';

let colors = 0;
async function queueOf(admin: typeof c.admin) {
  const color = `#0A0B${(++colors).toString(16).padStart(2, '0').toUpperCase()}`;
  const res = await t.as(admin).post('/queue', { name: unique('Fila '), color });
  expect(res.status).toBe(201);
  return ((await res.json()) as { id: number }).id;
}

const body = (queueId: number, o: Record<string, unknown> = {}) => ({
  name: unique('Assistente '),
  prompt: TEXT,
  model: 'gpt-4o-mini',
  maxTokens: 50,
  temperature: 0.2,
  apiKey: 'sk-test-company',
  queueId,
  maxMessages: 5,
  ...o,
});

describe('the model with a custom base URL (#29.7)', () => {
  test('is free text with a base URL of its own; one of the OpenAI names without one', async () => {
    const queueId = await queueOf(c.admin);
    const created = await t
      .as(c.admin)
      .post('/prompt', body(queueId, { model: 'llama3.1:8b', baseUrl: 'https://openrouter.ai/api/v1' }));
    expect(created.status, await created.clone().text()).toBe(201);
    const prompt = (await created.json()) as { id: number; model: string };
    expect(prompt.model).toBe('llama3.1:8b');
    // Another free name on the same server is fine.
    const renamed = await t.as(c.admin).put(`/prompt/${prompt.id}`, { model: 'meta-llama/llama-3.1-70b' });
    expect(renamed.status).toBe(200);
    expect(await renamed.json()).toMatchObject({ model: 'meta-llama/llama-3.1-70b' });
    // An edit that leaves the model out keeps it.
    const kept = await t.as(c.admin).put(`/prompt/${prompt.id}`, { maxTokens: 60 });
    expect(await kept.json()).toMatchObject({ model: 'meta-llama/llama-3.1-70b', maxTokens: 60 });
    // Dropping the base URL while the model is not OpenAI's: refused (the server's OpenAI would not know it).
    await expectError(
      await t.as(c.admin).put(`/prompt/${prompt.id}`, { baseUrl: '' }),
      400,
      'ERR_VALIDATION',
    );
    await expectError(
      await t.as(c.admin).post('/prompt', body(queueId, { model: 'llama3.1:8b' })),
      400,
      'ERR_VALIDATION',
    );
    await expectError(
      await t.as(c.admin).post('/prompt', body(queueId, { model: 'two words', baseUrl: 'https://x.ai/v1' })),
      400,
      'ERR_VALIDATION',
    );
  });
});

describe('POST /prompt/test (#29.7)', () => {
  const test1 = {
    prompt: TEXT,
    model: 'gpt-4o-mini',
    maxTokens: 40,
    temperature: 0.3,
    apiKey: 'sk-test-typed',
    message: 'Vocês abrem sábado?',
  };

  test('runs one exchange with the dialog’s values and answers the reply', async () => {
    const before = openai.completions.length;
    const res = await t.as(c.admin).post('/prompt/test', test1);
    expect(res.status, await res.clone().text()).toBe(200);
    expect(await res.json()).toEqual({ reply: 'Eco: Vocês abrem sábado?', handoff: false });
    const seen = openai.completions[before]!;
    expect(seen.authorization).toBe('Bearer sk-test-typed');
    expect(seen.body).toMatchObject({ model: 'gpt-4o-mini', max_tokens: 40, temperature: 0.3 });
    expect(seen.body.messages).toEqual([
      { role: 'system', content: TEXT },
      { role: 'user', content: 'Vocês abrem sábado?' },
    ]);
  });

  test('a saved prompt’s key is used when the dialog sends the mask; the hand-off line is recognised', async () => {
    const queueId = await queueOf(c.admin);
    const created = await t.as(c.admin).post('/prompt', body(queueId, { apiKey: 'sk-stored-key' }));
    const { id } = (await created.json()) as { id: number };
    const saved = openai.state.answer;
    openai.state.answer = () => ({ content: `Vou chamar alguém.\n${PROMPT_HANDOFF_LINE}` });
    try {
      const before = openai.completions.length;
      const res = await t
        .as(c.admin)
        .post('/prompt/test', { ...test1, promptId: id, apiKey: SECRET_MASK, message: 'quero um humano' });
      expect(res.status, await res.clone().text()).toBe(200);
      expect(await res.json()).toEqual({ reply: 'Vou chamar alguém.', handoff: true });
      expect(openai.completions[before]!.authorization).toBe('Bearer sk-stored-key');
    } finally {
      openai.state.answer = saved;
    }
    // Another company cannot borrow that key.
    await expectError(
      await t.as(other.admin).post('/prompt/test', { ...test1, promptId: id, apiKey: SECRET_MASK }),
      404,
      'ERR_NOT_FOUND',
    );
  });

  test('a refused key is a clear 422 with the provider’s status, never the key', async () => {
    openai.state.invalidKeys.add('sk-test-revoked');
    const res = await t.as(c.admin).post('/prompt/test', { ...test1, apiKey: 'sk-test-revoked' });
    const answer = await expectError(res, 422, 'ERR_PROMPT_TEST');
    expect(answer.reason).toBe('401 invalid_api_key');
    expect(JSON.stringify(answer)).not.toContain('sk-test-revoked');
  });

  test('a private base URL is refused by the outbound guard; bad input and non-admins are refused', async () => {
    const before = openai.completions.length;
    await expectError(
      await t.as(c.admin).post('/prompt/test', { ...test1, baseUrl: openai.baseUrl, model: 'llama3' }),
      400,
      'ERR_URL_NOT_ALLOWED',
    );
    expect(openai.completions.length).toBe(before);
    await expectError(
      await t.as(c.admin).post('/prompt/test', { ...test1, message: '' }),
      400,
      'ERR_VALIDATION',
    );
    await expectError(
      await t.as(c.admin).post('/prompt/test', { ...test1, apiKey: '' }),
      400,
      'ERR_VALIDATION',
    );
    const attendant = await t.user(c.admin, 'user');
    await expectError(await t.as(attendant).post('/prompt/test', test1), 403, 'ERR_NO_PERMISSION');
  });
});
