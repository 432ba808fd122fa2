import { and, desc, eq } from 'drizzle-orm';
import { expect, test } from 'vitest';
import { flowRuns, messages, tickets } from '../../db/schema/index.js';
import { cloudTestApp } from '../../../test/cloud-api-fixtures.js';
import { waitFor } from '../../../test/helpers.js';
import { botKit, newNumber } from '../bot/bot-test-kit.js';
import { flowApi, graph } from './flow-test-kit.js';

/**
 * docs/flows.md#buttons-and-lists: on a Cloud API connection a question's options go out as real WhatsApp
 * interactive messages (reply buttons, or a list), checked by the local Graph double as Meta checks them;
 * the customer's button_reply / list_reply chooses the option by its id. Other channels keep numbered text.
 */
const {
  t,
  db,
  graph: meta,
  signedPost,
  webhookMessage,
  cloudConnection,
} = await cloudTestApp('flow-app-secret');
const kit = botKit(t);
const idle = () => t.app.services.bus.idle();

const menu = graph(
  [
    {
      id: 'ask',
      type: 'question',
      data: {
        text: 'Como podemos ajudar?',
        variable: 'area',
        validation: 'option',
        options: [
          { id: 'o1', label: 'Vendas' },
          { id: 'o2', label: 'Suporte', value: 'suporte' },
          { id: 'o3', label: 'Financeiro' },
        ],
        timeoutMinutes: 30,
      },
    },
    {
      id: 'prod',
      type: 'question',
      data: {
        text: 'Qual produto?',
        variable: 'produto',
        validation: 'option',
        optionsDisplay: 'buttons',
        // Five options: more than three buttons, so a list.
        options: [
          { id: 'p1', label: 'Roteador' },
          { id: 'p2', label: 'Modem' },
          { id: 'p3', label: 'Repetidor' },
          { id: 'p4', label: 'Cabo de rede blindado categoria 6 (5 metros)' },
          { id: 'p5', label: 'Outro' },
        ],
        timeoutMinutes: 30,
      },
    },
    { id: 'sales', type: 'message', data: { text: 'Vendas: um momento.' } },
    { id: 'done', type: 'message', data: { text: 'Suporte para {{produto}} ({{area}}).' } },
  ],
  [
    ['start', 'next', 'ask'],
    ['ask', 'option:o1', 'sales'],
    ['ask', 'option:o2', 'prod'],
    ['prod', 'answered', 'done'],
  ],
);

const sends = (to: string) => meta.accepted.filter((a) => a.to === to);

test('Cloud API: reply buttons and a list go out; the replies choose by id; the stored text is numbered', async () => {
  const c = await cloudConnection('FlowInteractive');
  await flowApi(t, c.admin).onConnection(c.whatsappId, menu);
  const from = newNumber();
  let seq = 0;
  const write = async (message: Record<string, unknown>, expectSends: number) => {
    const before = sends(from).length;
    const res = await signedPost(
      c.whatsappId,
      webhookMessage(from, `wamid.flow${++seq}${from}`, 'Ana', message),
    );
    expect(res.status).toBe(200);
    await waitFor(async () => {
      await idle();
      return sends(from).length >= before + expectSends;
    });
    return sends(from).slice(before);
  };

  const [buttons] = await write({ type: 'text', text: { body: 'Oi' } }, 1);
  expect(buttons).toMatchObject({
    type: 'interactive',
    body: {
      type: 'interactive',
      interactive: {
        type: 'button',
        body: { text: 'Como podemos ajudar?' },
        action: {
          buttons: [
            { type: 'reply', reply: { id: 'ask:o1', title: 'Vendas' } },
            { type: 'reply', reply: { id: 'ask:o2', title: 'Suporte' } },
            { type: 'reply', reply: { id: 'ask:o3', title: 'Financeiro' } },
          ],
        },
      },
    },
  });
  const [ticket] = await db
    .select()
    .from(tickets)
    .where(eq(tickets.whatsappId, c.whatsappId))
    .orderBy(desc(tickets.id))
    .limit(1);
  // What the screens show (and what a channel without buttons would send): the numbered text.
  const [asked] = await db
    .select()
    .from(messages)
    .where(and(eq(messages.ticketId, ticket!.id), eq(messages.fromMe, true)))
    .orderBy(desc(messages.id))
    .limit(1);
  expect(asked!.body).toBe('Como podemos ajudar?\n\n*1* - Vendas\n*2* - Suporte\n*3* - Financeiro');
  expect(asked!.providerId).toBe(buttons!.id);

  // The button's id decides, whatever its title says.
  const [list] = await write(
    {
      type: 'interactive',
      interactive: { type: 'button_reply', button_reply: { id: 'ask:o2', title: 'Vendas' } },
    },
    1,
  );
  expect(list).toMatchObject({
    type: 'interactive',
    body: {
      interactive: {
        type: 'list',
        body: { text: 'Qual produto?' },
        action: {
          button: 'Ver opções',
          sections: [
            {
              rows: [
                { id: 'prod:p1', title: 'Roteador' },
                { id: 'prod:p2', title: 'Modem' },
                { id: 'prod:p3', title: 'Repetidor' },
                {
                  id: 'prod:p4',
                  title: 'Cabo de rede blindado c…',
                  description: 'Cabo de rede blindado categoria 6 (5 metros)',
                },
                { id: 'prod:p5', title: 'Outro' },
              ],
            },
          ],
        },
      },
    },
  });
  // A stale button of the first question is read as its title: not an option here, so the question asks again.
  const [again] = await write(
    {
      type: 'interactive',
      interactive: { type: 'button_reply', button_reply: { id: 'ask:o1', title: 'Vendas' } },
    },
    1,
  );
  expect(again).toMatchObject({ type: 'interactive', body: { interactive: { type: 'list' } } });
  const [done] = await write(
    {
      type: 'interactive',
      interactive: {
        type: 'list_reply',
        list_reply: { id: 'prod:p4', title: 'Cabo de rede blindado c…', description: '' },
      },
    },
    1,
  );
  expect(done).toMatchObject({
    type: 'text',
    body: { text: { body: 'Suporte para Cabo de rede blindado categoria 6 (5 metros) (suporte).' } },
  });
  const [run] = await db.select().from(flowRuns).where(eq(flowRuns.ticketId, ticket!.id));
  expect(run).toMatchObject({ status: 'completed' });
  expect(run!.variables).toEqual({
    area: 'suporte',
    produto: 'Cabo de rede blindado categoria 6 (5 metros)',
  });

  // Typing the number still works (and so does the label).
  const other = newNumber();
  const typed = async (body: string) => {
    const before = sends(other).length;
    const res = await signedPost(
      c.whatsappId,
      webhookMessage(other, `wamid.typed${++seq}${other}`, 'Bia', { type: 'text', text: { body } }),
    );
    expect(res.status).toBe(200);
    await waitFor(async () => {
      await idle();
      return sends(other).length > before;
    });
    return sends(other).slice(before);
  };
  await typed('Oi');
  expect(await typed('1')).toMatchObject([{ type: 'text', body: { text: { body: 'Vendas: um momento.' } } }]);
}, 120_000);

test('display "list" sends a list even for three options; "text" and other channels keep numbered text', async () => {
  const c = await cloudConnection('FlowInteractiveList');
  const base = menu.nodes.find((n) => n.id === 'ask')!;
  const g = (display: string) =>
    ({
      ...menu,
      nodes: menu.nodes.map((n) =>
        n.id === 'ask' ? { ...base, data: { ...base.data, optionsDisplay: display } } : n,
      ),
    }) as typeof menu;
  const f = flowApi(t, c.admin);
  await f.onConnection(c.whatsappId, g('list'));
  const from = newNumber();
  const res = await signedPost(
    c.whatsappId,
    webhookMessage(from, `wamid.list${from}`, 'Caio', { type: 'text', text: { body: 'Oi' } }),
  );
  expect(res.status).toBe(200);
  await waitFor(async () => {
    await idle();
    return sends(from).length > 0;
  });
  expect(sends(from)[0]).toMatchObject({
    type: 'interactive',
    body: { interactive: { type: 'list', action: { sections: [{ rows: [{ id: 'ask:o1' }, {}, {}] }] } } },
  });

  await f.onConnection(c.whatsappId, g('text'));
  const plain = newNumber();
  await signedPost(
    c.whatsappId,
    webhookMessage(plain, `wamid.text${plain}`, 'Duda', { type: 'text', text: { body: 'Oi' } }),
  );
  await waitFor(async () => {
    await idle();
    return sends(plain).length > 0;
  });
  expect(sends(plain)[0]).toMatchObject({
    type: 'text',
    body: { text: { body: 'Como podemos ajudar?\n\n*1* - Vendas\n*2* - Suporte\n*3* - Financeiro' } },
  });

  // A simulator connection (like Baileys: no interactive messages) gets the numbered text.
  const w = await t.as(c.admin).post('/whatsapp', { name: `Sim ${newNumber()}`, channel: 'simulator' });
  const simId = ((await w.json()) as { id: number }).id;
  await f.onConnection(simId, menu);
  const number = newNumber();
  expect(await kit.say(c.admin, simId, number, 'Oi')).toEqual([
    'Como podemos ajudar?\n\n*1* - Vendas\n*2* - Suporte\n*3* - Financeiro',
  ]);
  expect(await kit.say(c.admin, simId, number, 'Suporte')).toEqual([
    'Qual produto?\n\n*1* - Roteador\n*2* - Modem\n*3* - Repetidor\n*4* - Cabo de rede blindado categoria 6 (5 metros)\n*5* - Outro',
  ]);
}, 120_000);
