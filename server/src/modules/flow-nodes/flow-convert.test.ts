import { describe, expect, test } from 'vitest';
import type { FlowGraph } from '@recado/contracts';
import { expectError, testApp } from '../../../test/helpers.js';
import { botKit, newNumber, type QueueSpec } from '../bot/bot-test-kit.js';

/**
 * POST /flows/convert (docs/flows.md "From the queue menu"): a connection's queue menu becomes an equivalent
 * flow; on the simulator the converted flow leads the customer to the same queue, with the same texts, as the
 * bot on a connection that was not converted (and keeps its bot).
 */
const t = await testApp({ deps: { jobs: { autoStart: false } } });
const k = botKit(t);
const c = await t.company('FlowConvert');

const MENU: QueueSpec[] = [
  {
    name: 'Suporte',
    greetingMessage: 'Você está no Suporte. Escolha:',
    orderQueue: 1,
    options: [
      { title: 'Boletos', message: 'Vamos ver seu boleto.', option: '1' },
      {
        title: 'Internet',
        message: 'Qual o problema?',
        option: '2',
        children: [
          { title: 'Lenta', message: 'Um técnico vai ajudar com a lentidão.', option: '1' },
          { title: 'Sem sinal', message: 'Vamos verificar o sinal.', option: '2' },
        ],
      },
    ],
  },
  { name: 'Vendas', greetingMessage: 'Você está em Vendas.', orderQueue: 2 },
];

/** Two connections with the same queues: the first keeps its bot, the second is converted and assigned. */
const bot = await k.setup(c.admin, MENU);
const second = await t.as(c.admin).post('/whatsapp', {
  name: 'Convertida',
  channel: 'simulator',
  greetingMessage: 'Olá! Escolha um setor:',
  queueIds: Object.values(bot.queues),
});
expect(second.status, await second.clone().text()).toBe(201);
const converted = ((await second.json()) as { id: number }).id;

describe('the queue menu as a flow', () => {
  test('convert: a valid draft of the company; assign publishes it and sets it on the connection', async () => {
    const draft = await t.as(c.admin).post('/flows/convert', { whatsappId: bot.whatsappId });
    expect(draft.status, await draft.clone().text()).toBe(201);
    const flow = (await draft.json()) as { id: number; status: string; name: string; graph: FlowGraph };
    expect(flow).toMatchObject({ status: 'draft', name: expect.stringMatching(/menu/) });
    const types = flow.graph.nodes.map((n) => n.type);
    expect(types.filter((x) => x === 'question')).toHaveLength(3); // queues, Suporte, Internet
    expect(types.filter((x) => x === 'transfer')).toHaveLength(4); // Boletos, Lenta, Sem sinal, Vendas
    // A draft only: the connection keeps its bot.
    const conn = (await (await t.as(c.admin).get(`/whatsapp/${bot.whatsappId}`)).json()) as {
      flowId: unknown;
    };
    expect(conn.flowId ?? null).toBeNull();

    const assigned = await t.as(c.admin).post('/flows/convert', {
      whatsappId: converted,
      name: 'Menu convertido',
      assign: true,
    });
    expect(assigned.status, await assigned.clone().text()).toBe(201);
    const f = (await assigned.json()) as { id: number; status: string; publishedVersion: number };
    expect(f).toMatchObject({ status: 'published', publishedVersion: 1 });
    const w = (await (await t.as(c.admin).get(`/whatsapp/${converted}`)).json()) as { flowId: number };
    expect(w.flowId).toBe(f.id);
  }, 120_000);

  test('the converted flow and the bot lead the same answers to the same queue with the same texts', async () => {
    const walk = async (whatsappId: number, answers: string[]) => {
      const number = newNumber();
      const replies: string[][] = [];
      for (const a of answers) replies.push(await k.say(c.admin, whatsappId, number, a));
      return { replies, ticket: await k.ticketOf(c.id, whatsappId, number) };
    };
    // By name, an invalid answer, back up a level, a nested leaf.
    const answers = ['Oi', 'Suporte', 'Internet', 'banana', 'Voltar', 'Internet', 'Lenta'];
    const old = await walk(bot.whatsappId, answers);
    const now = await walk(converted, answers);
    expect(old.ticket).toMatchObject({ status: 'pending', queueId: bot.queues['Suporte'] });
    expect(now.ticket).toMatchObject({ status: 'pending', queueId: bot.queues['Suporte'], userId: null });
    for (const r of [old.replies, now.replies]) {
      expect(r[0]!.join('\n')).toMatch(/Olá! Escolha um setor:[\s\S]*Suporte[\s\S]*Vendas/);
      expect(r[1]!.join('\n')).toMatch(/Você está no Suporte\. Escolha:[\s\S]*Boletos[\s\S]*Internet/);
      expect(r[2]!.join('\n')).toMatch(/Qual o problema\?[\s\S]*Lenta[\s\S]*Sem sinal[\s\S]*Voltar/);
      expect(r[3]!.join('\n')).toMatch(/Opção inválida/);
      expect(r[4]!.join('\n')).toMatch(/Você está no Suporte\. Escolha:/);
      expect(r[6]).toEqual(['Um técnico vai ajudar com a lentidão.']);
    }
    // A queue without options: its greeting, then the ticket waits in it.
    const sales = await walk(converted, ['Oi', '2', 'Obrigado']);
    expect(sales.replies[1]).toEqual(['Você está em Vendas.']);
    expect(sales.ticket.queueId).toBe(bot.queues['Vendas']);
    // Nothing more from the flow once it handed over.
    expect(sales.replies[2]).toEqual([]);
  }, 120_000);

  test('invalid answers past the bot limit end the flow with the ticket waiting, as the bot does', async () => {
    const number = newNumber();
    await k.say(c.admin, converted, number, 'Oi');
    await k.say(c.admin, converted, number, 'x');
    await k.say(c.admin, converted, number, 'y');
    expect(await k.say(c.admin, converted, number, 'z')).toEqual([]);
    expect(await k.ticketOf(c.id, converted, number)).toMatchObject({ status: 'pending', queueId: null });
    expect(await k.say(c.admin, converted, number, 'Alguém?')).toEqual([]);
  }, 120_000);

  test('bad input: an unknown connection is 404; a body without whatsappId is 400 naming it', async () => {
    await expectError(
      await t.as(c.admin).post('/flows/convert', { whatsappId: 999999 }),
      404,
      'ERR_NO_WAPP_FOUND',
    );
    const res = await t.as(c.admin).post('/flows/convert', {});
    expect(res.status).toBe(400);
    expect(JSON.stringify(await res.json())).toMatch(/whatsappId/);
    const user = await t.user(c.admin, 'user');
    expect((await t.as(user).post('/flows/convert', { whatsappId: bot.whatsappId })).status).toBe(403);
  }, 120_000);
});
