import { eq } from 'drizzle-orm';
import { expect, test } from 'vitest';
import { flowRuns, ticketNotes } from '../../db/schema/index.js';
import { manualClock } from '../../lib/clock.js';
import { expectError, testApp } from '../../../test/helpers.js';
import { botKit, newNumber } from '../bot/bot-test-kit.js';
import { chain, flowApi, graph } from './flow-test-kit.js';

const clock = manualClock(new Date('2026-11-23T15:00:00Z')); // Monday 12:00 in São Paulo
const t = await testApp({ deps: { clock, jobs: { autoStart: false } } });
const kit = botKit(t);
const db = t.database.db;

const runOf = async (ticketId: number) =>
  (await db.select().from(flowRuns).where(eq(flowRuns.ticketId, ticketId)).orderBy(flowRuns.id)).at(-1)!;

test('a connection flow greets, asks and validates (CPF check digits, retries), then hands over to a queue with a note', async () => {
  const c = await t.company('FlowBasic');
  const { whatsappId, queues } = await kit.setup(c.admin, [{ name: 'Vendas' }, { name: 'Suporte' }]);
  const flows = flowApi(t, c.admin);
  await flows.onConnection(
    whatsappId,
    graph(
      [
        { id: 'hello', type: 'message', data: { text: 'Olá! Bem-vindo.' } },
        { id: 'askName', type: 'question', data: { text: 'Qual é o seu nome?', variable: 'nome' } },
        {
          id: 'askCpf',
          type: 'question',
          data: {
            text: 'Seu CPF, {{nome}}?',
            variable: 'cpf',
            validation: 'cpf',
            retryMessage: 'CPF inválido, de novo:',
            maxRetries: 1,
          },
        },
        {
          id: 'toQueue',
          type: 'transfer',
          data: {
            target: 'queue',
            queueId: queues.Suporte,
            note: 'Cliente {{nome}}, CPF {{cpf}} (ticket {{ticket.id}})',
          },
        },
        {
          id: 'giveUp',
          type: 'transfer',
          data: { target: 'queue', queueId: queues.Vendas, note: 'CPF não informado' },
        },
      ],
      [
        ['start', 'next', 'hello'],
        ['hello', 'next', 'askName'],
        ['askName', 'answered', 'askCpf'],
        ['askCpf', 'answered', 'toQueue'],
        ['askCpf', 'invalid', 'giveUp'],
      ],
    ),
  );
  const number = newNumber();
  // In place of the queue menu: the flow's messages.
  expect(await kit.say(c.admin, whatsappId, number, 'oi')).toEqual(['Olá! Bem-vindo.', 'Qual é o seu nome?']);
  expect(await kit.say(c.admin, whatsappId, number, 'Ana')).toEqual(['Seu CPF, Ana?']);
  expect(await kit.say(c.admin, whatsappId, number, '123.456.789-00')).toEqual(['CPF inválido, de novo:']);
  expect(await kit.say(c.admin, whatsappId, number, '529.982.247-25')).toEqual([]);
  const ticket = await kit.ticketOf(c.id, whatsappId, number);
  expect(ticket).toMatchObject({ queueId: queues.Suporte, status: 'pending', chatbot: false, userId: null });
  const run = await runOf(ticket.id);
  expect(run).toMatchObject({
    status: 'completed',
    currentNodeId: 'toQueue',
    variables: { nome: 'Ana', cpf: '52998224725' },
  });
  const notes = await db.select().from(ticketNotes).where(eq(ticketNotes.ticketId, ticket.id));
  expect(notes.map((n) => n.note)).toEqual([`Cliente Ana, CPF 52998224725 (ticket ${ticket.id})`]);

  // Another customer gives up after the retries: the invalid exit.
  const other = newNumber();
  await kit.say(c.admin, whatsappId, other, 'oi');
  await kit.say(c.admin, whatsappId, other, 'Bia');
  expect(await kit.say(c.admin, whatsappId, other, '111')).toEqual(['CPF inválido, de novo:']);
  expect(await kit.say(c.admin, whatsappId, other, '222')).toEqual([]);
  expect(await kit.ticketOf(c.id, whatsappId, other)).toMatchObject({ queueId: queues.Vendas });
}, 120_000);

test('CRUD, publish and validation: 400 naming the node, nothing saved', async () => {
  const c = await t.company('FlowCrud');
  const flows = flowApi(t, c.admin);
  const f = await flows.create(chain([{ id: 'm', type: 'message', data: { text: 'oi' } }]), 'Primeiro');
  expect((await (await flows.api.get(`/flows/${f.id}`)).json()).status).toBe('draft');
  const list = await (await flows.api.get('/flows')).json();
  expect(list).toMatchObject({ count: 1, hasMore: false, flows: [{ id: f.id, name: 'Primeiro' }] });

  // A loop with no question or wait.
  const loop = graph(
    [
      { id: 'a', type: 'message', data: { text: 'a' } },
      { id: 'b', type: 'message', data: { text: 'b' }, label: 'Volta' },
    ],
    [
      ['start', 'next', 'a'],
      ['a', 'next', 'b'],
      ['b', 'next', 'a'],
    ],
  );
  let body = await expectError(
    await flows.api.put(`/flows/${f.id}`, { graph: loop }),
    400,
    'ERR_FLOW_INVALID',
  );
  expect(
    body.issues
      .filter((i: { code: string }) => i.code === 'loop_without_wait')
      .map((i: { nodeId: string }) => i.nodeId)
      .sort(),
  ).toEqual(['a', 'b']);
  expect(body.message).toMatch(/Node a|Node "Volta"/);
  // Schema failure names the node.
  const bad = chain([{ id: 'q1', type: 'question', data: { text: 'x', variable: '1nome' } }]);
  body = await expectError(await flows.api.put(`/flows/${f.id}`, { graph: bad }), 400, 'ERR_FLOW_INVALID');
  expect(body.issues[0]).toMatchObject({ nodeId: 'q1', code: 'schema' });
  // More than 500 nodes.
  const big = chain(
    Array.from({ length: 501 }, (_, i) => ({ id: `n${i}`, type: 'message', data: { text: 'x' } })),
  );
  body = await expectError(await flows.api.put(`/flows/${f.id}`, { graph: big }), 400, 'ERR_FLOW_INVALID');
  expect(body.issues[0].code).toBe('too_many_nodes');
  // Nothing was saved.
  expect(
    (await (await flows.api.get(`/flows/${f.id}`)).json()).graph.nodes.map((n: { id: string }) => n.id),
  ).toEqual(['start', 'm']);

  // Warnings do not block: unreachable, dangling, variable before set, question without timeout.
  const warn = graph(
    [
      { id: 'say', type: 'message', data: { text: 'Oi {{nome}}' } },
      { id: 'ask', type: 'question', data: { text: 'Nome?', variable: 'nome' } },
      { id: 'lost', type: 'message', data: { text: 'nunca' } },
    ],
    [
      ['start', 'next', 'say'],
      ['say', 'next', 'ask'],
    ],
  );
  const v = await (await flows.api.post(`/flows/${f.id}/validate`, { graph: warn })).json();
  expect(v.valid).toBe(true);
  const codes = v.issues.map((i: { code: string; nodeId: string }) => `${i.code}:${i.nodeId}`);
  expect(codes).toEqual(
    expect.arrayContaining([
      'unreachable:lost',
      'variable_before_set:say',
      'question_without_timeout:ask',
      'dangling_exit:ask',
    ]),
  );

  const p1 = await flows.publish(f.id);
  expect(p1.publishedVersion).toBe(1);
  const shown = await (await flows.api.get(`/flows/${f.id}`)).json();
  expect(shown).toMatchObject({ status: 'published', publishedVersion: 1, draftChanged: false });
  expect((await flows.api.put(`/flows/${f.id}`, { graph: warn })).status).toBe(200);
  expect((await (await flows.api.get(`/flows/${f.id}`)).json()).draftChanged).toBe(true);
  expect((await flows.publish(f.id)).publishedVersion).toBe(2);
  const v1 = await (await flows.api.get(`/flows/${f.id}/versions/1`)).json();
  expect(v1.graph.nodes.map((n: { id: string }) => n.id)).toEqual(['start', 'm']);

  // A user (not admin) reads but does not change.
  const user = await t.user(c.admin, 'user');
  expect((await t.as(user).get(`/flows/${f.id}`)).status).toBe(200);
  expect((await t.as(user).put(`/flows/${f.id}`, { name: 'Mudou' })).status).toBe(403);
  expect((await flows.api.del(`/flows/${f.id}`)).status).toBe(200);
  await expectError(await flows.api.get(`/flows/${f.id}`), 404, 'ERR_NO_FLOW_FOUND');
}, 120_000);

test("a second company cannot read, change, publish, run, try or name the first one's flows and ids", async () => {
  const a = await t.company('FlowTenantA');
  const b = await t.company('FlowTenantB');
  const { whatsappId, queues } = await kit.setup(a.admin, [{ name: 'Fila A' }]);
  const fa = flowApi(t, a.admin);
  const f = await fa.create(chain([{ id: 'm', type: 'message', data: { text: 'oi' } }]));
  const fb = flowApi(t, b.admin);
  await expectError(await fb.api.get(`/flows/${f.id}`), 404, 'ERR_NO_FLOW_FOUND');
  await expectError(await fb.api.put(`/flows/${f.id}`, { name: 'Roubado' }), 404, 'ERR_NO_FLOW_FOUND');
  await expectError(await fb.api.post(`/flows/${f.id}/publish`), 404, 'ERR_NO_FLOW_FOUND');
  await expectError(await fb.api.post(`/flows/${f.id}/try`, {}), 404, 'ERR_NO_FLOW_FOUND');
  await expectError(await fb.api.get(`/flows/${f.id}/export`), 404, 'ERR_NO_FLOW_FOUND');
  await expectError(await fb.api.del(`/flows/${f.id}`), 404, 'ERR_NO_FLOW_FOUND');
  expect((await (await fb.api.get('/flows')).json()).count).toBe(0);
  // B's flow naming A's queue: 400 naming the node.
  const body = await expectError(
    await fb.api.post('/flows', {
      name: 'Alheio',
      graph: chain([{ id: 'xfer', type: 'transfer', data: { target: 'queue', queueId: queues['Fila A'] } }]),
    }),
    400,
    'ERR_FLOW_INVALID',
  );
  expect(body.issues[0]).toMatchObject({
    nodeId: 'xfer',
    code: 'foreign_reference',
    reference: { kind: 'queue' },
  });
  // B cannot point its connection at A's flow, nor send its ticket to it.
  const { whatsappId: wb } = await botKit(t).setup(b.admin, [{ name: 'Fila B' }]);
  await expectError(await fb.api.put(`/whatsapp/${wb}`, { flowId: f.id }), 404, 'ERR_NO_FLOW_FOUND');
  // A's connection, A's ticket: B cannot send it anywhere.
  const number = newNumber();
  await kit.say(a.admin, whatsappId, number, 'oi');
  const ticket = await kit.ticketOf(a.id, whatsappId, number);
  expect((await fb.api.post(`/tickets/${ticket.id}/flow`, { flowId: f.id })).status).toBe(404);
  // The try room: B's socket is refused, A's admin joins.
  const sb = await t.socket(b.admin.token);
  const refused = await new Promise<{ ok: boolean }>((r) => sb.emit('joinFlowTry', { flowId: f.id }, r));
  expect(refused.ok).toBe(false);
  const sa = await t.socket(a.admin.token);
  const joined = await new Promise<{ ok: boolean }>((r) => sa.emit('joinFlowTry', { flowId: f.id }, r));
  expect(joined.ok).toBe(true);
}, 120_000);

test('the plan flag useFlows: a plan without it answers 403', async () => {
  const sup = await t.superuser();
  const plan = await (
    await t.as(sup).post('/plans', {
      name: `SemFluxos${Date.now()}`,
      users: 5,
      connections: 5,
      queues: 5,
      value: 0,
      useFlows: false,
    })
  ).json();
  const c = await t.company('FlowNoPlan', { planId: plan.id });
  expect((await t.as(c.admin).get('/flows')).status).toBe(403);
  expect((await t.as(c.admin).post('/flows', { name: 'Nada' })).status).toBe(403);
}, 120_000);
