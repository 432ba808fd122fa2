import { expect, test } from 'vitest';
import { manualClock } from '../../lib/clock.js';
import { secondProcess, testApp } from '../../../test/helpers.js';
import { botKit, newNumber } from './bot-test-kit.js';

const clock = manualClock(new Date('2026-11-23T15:00:00Z')); // Monday 12:00 in São Paulo
const t = await testApp({ deps: { clock, jobs: { autoStart: false } } });

test('a restart in the middle of a menu continues where the customer was (new process, same database)', async () => {
  const first = botKit(t);
  const c = await t.company('BotRestart');
  const { whatsappId, queues, options } = await first.setup(c.admin, [
    {
      name: 'Financeiro',
      greetingMessage: 'Financeiro: escolha o assunto.',
      orderQueue: 1,
      options: [
        {
          title: 'Boletos',
          message: 'Sobre boletos:',
          children: [{ title: 'Segunda via', message: 'Enviaremos a segunda via.' }],
        },
      ],
    },
    { name: 'Comercial', greetingMessage: 'Comercial.', orderQueue: 2 },
  ]);
  const number = newNumber();
  await first.say(c.admin, whatsappId, number, 'oi');
  expect(await first.say(c.admin, whatsappId, number, '1')).toEqual([
    'Financeiro: escolha o assunto.\n\n*1* - Boletos\n*0* - Voltar',
  ]);

  // The first process shuts down (its connection's lease is released) and a new one takes over.
  await first.idle();
  await t.app.sessions.stop();
  const proc = await secondProcess(t, {
    clock,
    jobs: { autoStart: false },
    sessions: { processId: 'bot-restart-second' },
  });
  const { app: second, url } = proc;
  try {
    for (let i = 0; i < 200 && !second.sessions.get(whatsappId); i++) {
      await second.sessions.tick();
      await new Promise((r) => setTimeout(r, 25));
    }
    expect(second.sessions.get(whatsappId)).toBeDefined();

    const again = botKit(t, { app: second, url });
    // The menu the customer was in: "1" is Boletos, not the first queue.
    expect(await again.say(c.admin, whatsappId, number, '1')).toEqual([
      'Sobre boletos:\n\n*1* - Segunda via\n*0* - Voltar',
    ]);
    expect(await again.say(c.admin, whatsappId, number, '1')).toEqual(['Enviaremos a segunda via.']);
    expect(await again.ticketOf(c.id, whatsappId, number)).toMatchObject({
      queueId: queues.Financeiro,
      queueOptionId: options['Segunda via'],
      chatbot: false,
    });
    // The whole conversation is on the customer's phone, in order.
    const conv = await again.phone(c.admin, whatsappId, number);
    expect(conv.map((m) => [m.fromMe, m.body.split('\n')[0]])).toEqual([
      [false, 'oi'],
      [true, 'Olá! Escolha um setor:'],
      [false, '1'],
      [true, 'Financeiro: escolha o assunto.'],
      [false, '1'],
      [true, 'Sobre boletos:'],
      [false, '1'],
      [true, 'Enviaremos a segunda via.'],
    ]);
  } finally {
    await proc.close();
  }
});
