import { afterAll, expect, test } from 'vitest';
import { secondProcess, testApp } from '../../../test/helpers.js';
import { fakeOpenAi } from '../../../test/fake-openai.js';
import { fakeTypebot } from '../../../test/fake-typebot.js';
import { newNumber } from '../bot/bot-test-kit.js';
import { automationKit, PROMPT_TEXT } from './automation-test-kit.js';

const openai = await fakeOpenAi();
const typebot = await fakeTypebot();
afterAll(() => Promise.all([openai.close(), typebot.close()]));
const t = await testApp({ env: { OPENAI_BASE_URL: openai.baseUrl, ALLOW_PRIVATE_URLS: 'true' } });

test('a restart in the middle of an AI conversation and of a Typebot flow continues them (new process, same database)', async () => {
  const first = automationKit(t);
  const c = await t.company('AutomRestart');
  const { whatsappId, queues } = await first.setup(c.admin, [{ name: 'Loja', greetingMessage: '' }]);
  await first.prompt(c.admin, queues.Loja!);
  const number = newNumber();
  expect(await first.say(c.admin, whatsappId, number, 'antes do reinício')).toEqual([
    'Eco: antes do reinício',
  ]);
  // A second connection whose queue runs a Typebot flow, left waiting for a choice.
  const { whatsappId: wTypebot, queues: tq } = await first.setup(c.admin, [
    { name: 'Fluxo', greetingMessage: '' },
  ]);
  const created = await t.as(c.admin).post('/queueIntegration', {
    type: 'typebot',
    name: 'Fluxo loja',
    urlN8N: typebot.url,
    typebotSlug: 'loja',
    typebotDelayMessage: 0,
  });
  expect(created.status).toBe(201);
  const { id: integrationId } = (await created.json()) as { id: number };
  expect((await t.as(c.admin).put(`/queue/${tq.Fluxo}`, { integrationId })).status).toBe(200);
  const flowNumber = newNumber();
  expect(await first.say(c.admin, wTypebot, flowNumber, 'oi')).toHaveLength(2);
  const flowTicket = await first.ticketOf(c.id, wTypebot, flowNumber);
  const sessionId = (await t.app.services.automation.state(c.id, flowTicket.id))!.sessionId;
  expect(sessionId).toMatch(/^sess-/);

  await first.idle();
  await t.app.sessions.stop();
  const proc = await secondProcess(t, { sessions: { processId: 'automation-restart-second' } });
  const { app: second, url } = proc;
  try {
    for (let i = 0; i < 200 && !second.sessions.get(whatsappId); i++) {
      await second.sessions.tick();
      await new Promise((r) => setTimeout(r, 25));
    }
    expect(second.sessions.get(whatsappId)).toBeDefined();
    const again = automationKit(t, { app: second, url });
    const before = openai.completions.length;
    expect(await again.say(c.admin, whatsappId, number, 'depois do reinício')).toEqual([
      'Eco: depois do reinício',
    ]);
    // The same conversation goes on: the model sees what was said before the restart.
    expect(openai.completions[before]!.body.messages).toEqual([
      { role: 'system', content: PROMPT_TEXT },
      { role: 'user', content: 'antes do reinício' },
      { role: 'assistant', content: 'Eco: antes do reinício' },
      { role: 'user', content: 'depois do reinício' },
    ]);
    expect(await again.ticketOf(c.id, whatsappId, number)).toMatchObject({ useIntegration: true });

    // The Typebot session id came from the database: the flow goes on where it was.
    for (let i = 0; i < 200 && !second.sessions.get(wTypebot); i++) {
      await second.sessions.tick();
      await new Promise((r) => setTimeout(r, 25));
    }
    // The text, then the image bubble (sent as an image: no text on the phone).
    expect(await again.say(c.admin, wTypebot, flowNumber, '1')).toEqual(['Veja nossa _*oferta*_', '']);
    expect(typebot.seen.at(-1)).toMatchObject({
      call: 'continueChat',
      id: sessionId,
      body: { message: { type: 'text', text: 'Vendas' } },
    });
  } finally {
    await proc.close();
  }
});
