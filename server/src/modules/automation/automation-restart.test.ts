import { afterAll, expect, test } from 'vitest';
import { buildApp } from '../../app.js';
import { testApp } from '../../../test/helpers.js';
import { fakeOpenAi } from '../../../test/fake-openai.js';
import { newNumber } from '../bot/bot-test-kit.js';
import { automationKit, PROMPT_TEXT } from './automation-test-kit.js';

const openai = await fakeOpenAi();
afterAll(() => openai.close());
const t = await testApp({ env: { OPENAI_BASE_URL: openai.baseUrl, ALLOW_PRIVATE_URLS: 'true' } });

test('a restart in the middle of an AI conversation continues it (new process, same database)', async () => {
  const first = automationKit(t);
  const c = await t.company('AutomRestart');
  const { whatsappId, queues } = await first.setup(c.admin, [{ name: 'Loja', greetingMessage: '' }]);
  await first.prompt(c.admin, queues.Loja!);
  const number = newNumber();
  expect(await first.say(c.admin, whatsappId, number, 'antes do reinício')).toEqual([
    'Eco: antes do reinício',
  ]);

  await first.idle();
  await t.app.sessions.stop();
  const second = await buildApp({
    config: t.config,
    database: t.database,
    logger: false,
    sessions: { processId: 'automation-restart-second' },
  });
  try {
    await second.app.listen({ port: 0, host: '127.0.0.1' });
    const address = second.app.server.address();
    const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
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
  } finally {
    await second.close();
  }
});
