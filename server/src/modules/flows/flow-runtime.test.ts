import { and, eq, sql } from 'drizzle-orm';
import { expect, test } from 'vitest';
import {
  campaignShippings,
  campaigns,
  contactCustomFields,
  contacts,
  files,
  filesOptions,
  flowRuns,
  ticketNotes,
  ticketTags,
} from '../../db/schema/index.js';
import { executeRows } from '../../db/rows.js';
import { manualClock } from '../../lib/clock.js';
import { expectError, testApp, waitFor } from '../../../test/helpers.js';
import { botKit, newNumber } from '../bot/bot-test-kit.js';
import { chain, flowApi, graph } from './flow-test-kit.js';
import { randomizerDice } from './nodes/builtin-nodes.js';

const clock = manualClock(new Date('2026-11-23T15:00:00Z')); // Monday 12:00 in São Paulo
const t = await testApp({ deps: { clock, jobs: { autoStart: false } } });
const kit = botKit(t);
const db = t.database.db;
const jobs = t.app.services.jobs;

const lastRun = async (ticketId: number) =>
  (await db.select().from(flowRuns).where(eq(flowRuns.ticketId, ticketId)).orderBy(flowRuns.id)).at(-1)!;

async function company(name: string, queueNames = ['Fila']) {
  const c = await t.company(name);
  const setup = await kit.setup(
    c.admin,
    queueNames.map((n) => ({ name: n })),
  );
  return { c, ...setup, flows: flowApi(t, c.admin) };
}

test('message, set (variable, contact field, tag), condition on variable/contact field/tag/channel, randomizer, close', async () => {
  const { c, whatsappId, flows } = await company('FlowNodesA');
  const tag = await (await t.as(c.admin).post('/tags', { name: 'VIP flow', color: '#112233' })).json();
  await flows.onConnection(
    whatsappId,
    graph(
      [
        {
          id: 'set',
          type: 'set',
          data: {
            actions: [
              { kind: 'variable', name: 'plano', value: 'ouro' },
              { kind: 'variable', name: 'frase', value: 'Plano {{plano}} para {{contact.number}}' },
              { kind: 'contact_field', field: 'email', value: 'ana@example.com' },
              { kind: 'contact_field', field: 'Cidade', value: 'Recife' },
              { kind: 'tag', op: 'add', tagId: tag.id },
            ],
          },
        },
        {
          id: 'cond',
          type: 'condition',
          data: {
            mode: 'all',
            rules: [
              { id: 'r1', kind: 'variable', name: 'plano', op: 'eq', value: 'OURO' },
              { id: 'r2', kind: 'contact_field', field: 'Cidade', op: 'contains', value: 'rec' },
              { id: 'r3', kind: 'tag', op: 'has', tagId: tag.id },
              { id: 'r4', kind: 'channel', op: 'is', channel: 'simulator' },
            ],
          },
        },
        { id: 'yes', type: 'message', data: { text: '{{frase}} ({{contact.email}})' } },
        { id: 'no', type: 'message', data: { text: 'não' } },
        {
          id: 'dice',
          type: 'randomizer',
          data: {
            branches: [
              { id: 'a', percent: 30 },
              { id: 'b', percent: 70 },
            ],
          },
        },
        { id: 'ma', type: 'message', data: { text: 'A' } },
        { id: 'mb', type: 'close', data: { message: 'B e tchau' } },
      ],
      [
        ['start', 'next', 'set'],
        ['set', 'next', 'cond'],
        ['cond', 'true', 'yes'],
        ['cond', 'false', 'no'],
        ['yes', 'next', 'dice'],
        ['dice', 'branch:a', 'ma'],
        ['dice', 'branch:b', 'mb'],
      ],
    ),
  );
  randomizerDice.roll = () => 0.5; // 50 → the second branch (30 | 70)
  try {
    const number = newNumber();
    expect(await kit.say(c.admin, whatsappId, number, 'oi')).toEqual([
      `Plano ouro para ${number} (ana@example.com)`,
      'B e tchau',
    ]);
    const ticket = await kit.ticketOf(c.id, whatsappId, number);
    expect(ticket.status).toBe('closed');
    expect(await db.select().from(ticketTags).where(eq(ticketTags.ticketId, ticket.id))).toHaveLength(1);
    const [contact] = await db.select().from(contacts).where(eq(contacts.id, ticket.contactId));
    expect(contact!.email).toBe('ana@example.com');
    const fields = await db
      .select()
      .from(contactCustomFields)
      .where(eq(contactCustomFields.contactId, ticket.contactId));
    expect(fields.map((f) => [f.name, f.value])).toEqual([['Cidade', 'Recife']]);
    expect(await lastRun(ticket.id)).toMatchObject({ status: 'completed', currentNodeId: 'mb' });
    randomizerDice.roll = () => 0.1; // 10 → the first branch
    const other = newNumber();
    expect((await kit.say(c.admin, whatsappId, other, 'oi')).at(-1)).toBe('A');
  } finally {
    randomizerDice.roll = () => Math.random();
  }
}, 120_000);

test('question validations: number, e-mail, phone, CNPJ, date, option (numbered text, option exits); timeout exit as a durable job', async () => {
  const { c, whatsappId, flows } = await company('FlowQuestions');
  await flows.onConnection(
    whatsappId,
    graph(
      [
        {
          id: 'qn',
          type: 'question',
          data: { text: 'Quantos?', variable: 'qtd', validation: 'number', maxRetries: 5 },
        },
        {
          id: 'qe',
          type: 'question',
          data: { text: 'E-mail?', variable: 'email', validation: 'email', maxRetries: 5 },
        },
        {
          id: 'qp',
          type: 'question',
          data: { text: 'Telefone?', variable: 'fone', validation: 'phone', maxRetries: 5 },
        },
        {
          id: 'qc',
          type: 'question',
          data: { text: 'CNPJ?', variable: 'cnpj', validation: 'cpf_cnpj', maxRetries: 5 },
        },
        {
          id: 'qd',
          type: 'question',
          data: { text: 'Data?', variable: 'data', validation: 'date', maxRetries: 5 },
        },
        {
          id: 'qo',
          type: 'question',
          data: {
            text: 'Escolha:',
            variable: 'setor',
            validation: 'option',
            maxRetries: 5,
            timeoutMinutes: 10,
            options: [
              { id: 'fin', label: 'Financeiro', value: 'financeiro' },
              { id: 'com', label: 'Comercial' },
            ],
          },
        },
        {
          id: 'fin',
          type: 'message',
          data: { text: 'Financeiro: {{qtd}} {{email}} {{fone}} {{cnpj}} {{data}} {{setor}}' },
        },
        { id: 'other', type: 'message', data: { text: 'Outro: {{setor}}' } },
        { id: 'late', type: 'message', data: { text: 'Sem resposta, {{name}}.' } },
      ],
      [
        ['start', 'next', 'qn'],
        ['qn', 'answered', 'qe'],
        ['qe', 'answered', 'qp'],
        ['qp', 'answered', 'qc'],
        ['qc', 'answered', 'qd'],
        ['qd', 'answered', 'qo'],
        ['qo', 'option:fin', 'fin'],
        ['qo', 'answered', 'other'],
        ['qo', 'timeout', 'late'],
      ],
    ),
  );
  const number = newNumber();
  expect(await kit.say(c.admin, whatsappId, number, 'oi')).toEqual(['Quantos?']);
  expect(await kit.say(c.admin, whatsappId, number, 'dois')).toEqual(['Quantos?']);
  expect(await kit.say(c.admin, whatsappId, number, '1.234,5')).toEqual(['E-mail?']);
  expect(await kit.say(c.admin, whatsappId, number, 'ana@')).toEqual(['E-mail?']);
  expect(await kit.say(c.admin, whatsappId, number, 'Ana@Example.com')).toEqual(['Telefone?']);
  expect(await kit.say(c.admin, whatsappId, number, '123')).toEqual(['Telefone?']);
  expect(await kit.say(c.admin, whatsappId, number, '(11) 98765-4321')).toEqual(['CNPJ?']);
  expect(await kit.say(c.admin, whatsappId, number, '11.222.333/0001-00')).toEqual(['CNPJ?']);
  expect(await kit.say(c.admin, whatsappId, number, '11.222.333/0001-81')).toEqual(['Data?']);
  expect(await kit.say(c.admin, whatsappId, number, '31/02/2026')).toEqual(['Data?']);
  expect(await kit.say(c.admin, whatsappId, number, '01/03/2026')).toEqual([
    'Escolha:\n\n*1* - Financeiro\n*2* - Comercial',
  ]);
  expect(await kit.say(c.admin, whatsappId, number, '1')).toEqual([
    'Financeiro: 1234.5 ana@example.com 11987654321 11222333000181 2026-03-01 financeiro',
  ]);
  // Option by label without an option exit → answered.
  const n2 = newNumber();
  await kit.say(c.admin, whatsappId, n2, 'oi');
  for (const a of ['3', 'a@b.co', '11987654321', '529.982.247-25', '2026-01-05'])
    await kit.say(c.admin, whatsappId, n2, a);
  expect(await kit.say(c.admin, whatsappId, n2, 'comércial')).toEqual(['Outro: Comercial']);
  // No answer in 10 minutes: the timeout exit, from the durable job.
  const n3 = newNumber();
  await kit.say(c.admin, whatsappId, n3, 'oi');
  for (const a of ['3', 'a@b.co', '11987654321', '529.982.247-25', '2026-01-05'])
    await kit.say(c.admin, whatsappId, n3, a);
  const ticket = await kit.ticketOf(c.id, whatsappId, n3);
  expect(await lastRun(ticket.id)).toMatchObject({ status: 'waiting', currentNodeId: 'qo' });
  clock.advance(9 * 60_000);
  await jobs.runDue();
  expect(await lastRun(ticket.id)).toMatchObject({ currentNodeId: 'qo' });
  clock.advance(2 * 60_000);
  await jobs.runDue();
  await kit.idle();
  expect(await lastRun(ticket.id)).toMatchObject({ status: 'completed', currentNodeId: 'late' });
  const phone = await kit.phone(c.admin, whatsappId, n3);
  expect(phone.at(-1)!.body).toMatch(/^Sem resposta, /);
}, 120_000);

test('wait: a message meanwhile does not advance; the durable job does. Business hours and weekday/time conditions', async () => {
  const { c, whatsappId, flows } = await company('FlowWait');
  // Company hours: Monday 08:00–18:00 (São Paulo); now is Monday 12:00.
  const week = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'].map((d) => ({
    weekday: d,
    weekdayEn: d,
    startTime: d === 'monday' ? '08:00' : '',
    endTime: d === 'monday' ? '18:00' : '',
  }));
  expect(
    (await t.as(await t.superuser()).put(`/companies/${c.id}/schedules`, { schedules: week })).status,
  ).toBeLessThan(300);
  await flows.onConnection(
    whatsappId,
    graph(
      [
        { id: 'w', type: 'wait', data: { minutes: 30 } },
        {
          id: 'h',
          type: 'condition',
          data: {
            mode: 'switch',
            rules: [
              { id: 'open', kind: 'business_hours', op: 'open' },
              { id: 'mon', kind: 'weekday_time', weekdays: ['monday'], from: '18:00', to: '00:00' },
            ],
          },
        },
        { id: 'o', type: 'message', data: { text: 'aberto' } },
        { id: 'm', type: 'message', data: { text: 'segunda à noite' } },
        { id: 'x', type: 'message', data: { text: 'fechado' } },
      ],
      [
        ['start', 'next', 'w'],
        ['w', 'next', 'h'],
        ['h', 'rule:open', 'o'],
        ['h', 'rule:mon', 'm'],
        ['h', 'else', 'x'],
      ],
    ),
  );
  const number = newNumber();
  expect(await kit.say(c.admin, whatsappId, number, 'oi')).toEqual([]);
  expect(await kit.say(c.admin, whatsappId, number, 'alô?')).toEqual([]);
  const ticket = await kit.ticketOf(c.id, whatsappId, number);
  expect(await lastRun(ticket.id)).toMatchObject({ status: 'waiting', currentNodeId: 'w' });
  clock.advance(31 * 60_000);
  await jobs.runDue();
  await kit.idle();
  expect((await kit.phone(c.admin, whatsappId, number)).at(-1)!.body).toBe('aberto');

  // Monday 19:00 local: closed, but the weekday/time rule matches.
  const n2 = newNumber();
  clock.set(new Date('2026-11-23T21:30:00Z'));
  await kit.say(c.admin, whatsappId, n2, 'oi');
  clock.advance(31 * 60_000);
  await jobs.runDue();
  await kit.idle();
  expect((await kit.phone(c.admin, whatsappId, n2)).at(-1)!.body).toBe('segunda à noite');
  clock.set(new Date('2026-11-23T15:00:00Z'));
}, 120_000);

test('transfer to an attendant and to another flow (variables carried); a failing node hands over with a note naming it', async () => {
  const { c, whatsappId, queues, flows } = await company('FlowTransfer', ['Atendimento']);
  const agent = await t.user(c.admin, 'user');
  const second = await flows.create(
    chain([{ id: 'bye', type: 'message', data: { text: 'Segundo fluxo, {{nome}}' } }]),
    'Segundo',
  );
  await flows.publish(second.id);
  /** Asks a name and routes on it: to the agent, to the second flow, else a set node adding the tag. */
  const routing = (tagId: number) =>
    graph(
      [
        { id: 'q', type: 'question', data: { text: 'Nome?', variable: 'nome' } },
        {
          id: 'route',
          type: 'condition',
          data: {
            mode: 'switch',
            rules: [
              { id: 'ag', kind: 'variable', name: 'nome', op: 'eq', value: 'agente' },
              { id: 'fl', kind: 'variable', name: 'nome', op: 'eq', value: 'fluxo' },
            ],
          },
        },
        {
          id: 'toUser',
          type: 'transfer',
          data: { target: 'user', userId: agent.user.id, queueId: queues.Atendimento },
        },
        { id: 'toFlow', type: 'transfer', data: { target: 'flow', flowId: second.id } },
        {
          id: 'broken',
          type: 'set',
          label: 'Etiqueta',
          data: { actions: [{ kind: 'tag', op: 'add', tagId }] },
        },
      ],
      [
        ['start', 'next', 'q'],
        ['q', 'answered', 'route'],
        ['route', 'rule:ag', 'toUser'],
        ['route', 'rule:fl', 'toFlow'],
        ['route', 'else', 'broken'],
      ],
    );
  // A tag that is not this company's: the graph is refused (400 naming the node), nothing saved.
  const refused = await expectError(
    await flows.api.post('/flows', {
      name: 'Quebrado',
      graph: routing(999999),
    }),
    400,
    'ERR_FLOW_INVALID',
  );
  expect(refused.issues.filter((i: { severity: string }) => i.severity === 'error')).toMatchObject([
    { nodeId: 'broken', code: 'foreign_reference' },
  ]);
  // With a tag of its own it saves; the tag is deleted later, behind validation's back.
  const all = await (await flows.api.get('/flows/list')).json();
  expect(all.map((f: { name: string }) => f.name)).toEqual(['Segundo']);
  const tag = await (await t.as(c.admin).post('/tags', { name: 'Temp flow', color: '#112244' })).json();
  const g = routing(tag.id);
  await flows.onConnection(whatsappId, g);
  const a = newNumber();
  await kit.say(c.admin, whatsappId, a, 'oi');
  await kit.say(c.admin, whatsappId, a, 'agente');
  expect(await kit.ticketOf(c.id, whatsappId, a)).toMatchObject({
    status: 'open',
    userId: agent.user.id,
    queueId: queues.Atendimento,
  });

  const b = newNumber();
  await kit.say(c.admin, whatsappId, b, 'oi');
  expect(await kit.say(c.admin, whatsappId, b, 'fluxo')).toEqual(['Segundo fluxo, fluxo']);
  const tb = await kit.ticketOf(c.id, whatsappId, b);
  const runs = await db.select().from(flowRuns).where(eq(flowRuns.ticketId, tb.id)).orderBy(flowRuns.id);
  expect(runs.map((r) => [r.flowId, r.status, r.trigger])).toEqual([
    [runs[0]!.flowId, 'completed', 'connection'],
    [second.id, 'completed', 'flow'],
  ]);

  // The tag disappears: the set node fails at run time → people, with a note naming the node and why.
  await t.as(c.admin).del(`/tags/${tag.id}`);
  const d = newNumber();
  await kit.say(c.admin, whatsappId, d, 'oi');
  await kit.say(c.admin, whatsappId, d, 'qualquer');
  const td = await kit.ticketOf(c.id, whatsappId, d);
  expect(td).toMatchObject({ status: 'pending', chatbot: false });
  expect(await lastRun(td.id)).toMatchObject({ status: 'failed', currentNodeId: 'broken' });
  const notes = await db.select().from(ticketNotes).where(eq(ticketNotes.ticketId, td.id));
  expect(notes[0]!.note).toMatch(/node "Etiqueta" \(broken\) \(set\) failed: tag \d+ not found/);
}, 120_000);

test("a transfer whose queue is not the company's (changed behind validation's back) fails the node: nothing moves", async () => {
  const a = await company('FlowXferA', ['Minha']);
  const b = await company('FlowXferB', ['Alheia']);
  const f = await a.flows.onConnection(
    a.whatsappId,
    chain([
      { id: 'hi', type: 'message', data: { text: 'Um momento.' } },
      { id: 'go', type: 'transfer', data: { target: 'queue', queueId: a.queues.Minha, note: 'x' } },
    ]),
  );
  // The published version now names the other company's queue (no route allows this: the database does).
  await executeRows(
    db,
    sql`update flow_versions set graph = regexp_replace(graph::text, '"queueId": ?${sql.raw(String(a.queues.Minha))}\\y',
      '"queueId": ${sql.raw(String(b.queues.Alheia))}')::jsonb where flow_id = ${f.id}`,
  );
  const n = newNumber();
  expect(await kit.say(a.c.admin, a.whatsappId, n, 'oi')).toEqual(['Um momento.']);
  const ticket = await kit.ticketOf(a.c.id, a.whatsappId, n);
  expect(ticket).toMatchObject({ status: 'pending', chatbot: false });
  expect(ticket.queueId).not.toBe(b.queues.Alheia);
  expect(await lastRun(ticket.id)).toMatchObject({ status: 'failed', currentNodeId: 'go' });
  const notes = await db.select().from(ticketNotes).where(eq(ticketNotes.ticketId, ticket.id));
  expect(notes.map((x) => x.note)).toEqual([
    expect.stringMatching(new RegExp(`go.*\\(transfer\\) failed: queue ${b.queues.Alheia} not found`)),
  ]);
}, 120_000);

test('a redelivered message never advances the run twice (the event again, and the channel again)', async () => {
  const { c, whatsappId, flows } = await company('FlowIdem');
  await flows.onConnection(
    whatsappId,
    chain([
      { id: 'q1', type: 'question', data: { text: 'Primeira?', variable: 'a' } },
      { id: 'q2', type: 'question', data: { text: 'Segunda?', variable: 'b' } },
      { id: 'q3', type: 'question', data: { text: 'Terceira?', variable: 'c' } },
    ]),
  );
  const number = newNumber();
  await kit.say(c.admin, whatsappId, number, 'oi');
  expect(await kit.say(c.admin, whatsappId, number, 'um')).toEqual(['Segunda?']);
  const ticket = await kit.ticketOf(c.id, whatsappId, number);
  const run = await lastRun(ticket.id);
  const phone = await kit.phone(c.admin, whatsappId, number);
  const answered = phone.filter((m) => !m.fromMe).at(-1)!;
  // The same stored message handed to the runtime again (a redelivered event).
  const [stored] = await t.database.db
    .execute<{ id: number; body: string }>(
      // the message row of "um"
      (await import('drizzle-orm'))
        .sql`select id, body from messages where ticket_id = ${ticket.id} and body = 'um'`,
    )
    .then(
      (r) =>
        (r as unknown as { rows?: { id: number; body: string }[] }).rows ??
        (r as unknown as { id: number; body: string }[]),
    );
  await t.app.services.flowsRuntime.onStored({ id: whatsappId, companyId: c.id }, ticket.id, {
    id: Number(stored!.id),
    body: 'um',
    fromMe: false,
  });
  await t.app.services.flowsRuntime.onStored({ id: whatsappId, companyId: c.id }, ticket.id, {
    id: Number(stored!.id),
    body: 'um',
    fromMe: false,
  });
  // The channel delivering the same message again (same provider id).
  const again = await t
    .as(c.admin)
    .post(`/simulator/${whatsappId}/inbound`, { id: answered.id, from: number, body: 'um' });
  expect(again.status).toBe(202);
  await kit.idle();
  const after = await lastRun(ticket.id);
  expect(after).toMatchObject({ currentNodeId: 'q2', variables: { a: 'um' }, seq: run.seq });
  expect((await kit.phone(c.admin, whatsappId, number)).filter((m) => m.fromMe).map((m) => m.body)).toEqual([
    'Primeira?',
    'Segunda?',
  ]);
  expect(await kit.say(c.admin, whatsappId, number, 'dois')).toEqual(['Terceira?']);
}, 120_000);

test('publishing a change leaves conversations in progress on their version', async () => {
  const { c, whatsappId, flows } = await company('FlowVersions');
  const f = await flows.onConnection(
    whatsappId,
    chain([
      { id: 'q1', type: 'question', data: { text: 'Nome?', variable: 'n' } },
      { id: 'm', type: 'message', data: { text: 'Versão 1, {{n}}' } },
    ]),
  );
  const old = newNumber();
  expect(await kit.say(c.admin, whatsappId, old, 'oi')).toEqual(['Nome?']);
  expect(
    (
      await flows.api.put(`/flows/${f.id}`, {
        graph: chain([
          { id: 'q1', type: 'question', data: { text: 'Seu nome?', variable: 'n' } },
          { id: 'm', type: 'message', data: { text: 'Versão 2, {{n}}' } },
        ]),
      })
    ).status,
  ).toBe(200);
  expect((await flows.publish(f.id)).publishedVersion).toBe(2);
  expect(await kit.say(c.admin, whatsappId, old, 'Ana')).toEqual(['Versão 1, Ana']);
  const fresh = newNumber();
  expect(await kit.say(c.admin, whatsappId, fresh, 'oi')).toEqual(['Seu nome?']);
  expect(await kit.say(c.admin, whatsappId, fresh, 'Bia')).toEqual(['Versão 2, Bia']);
  const runs = await db.select().from(flowRuns).where(eq(flowRuns.flowId, f.id)).orderBy(flowRuns.id);
  expect(runs.map((r) => r.version)).toEqual([1, 2]);
}, 120_000);

test('triggers: keywords by precedence, campaign reply, out of hours; a connection without flow keeps the queue bot', async () => {
  const { c, whatsappId, flows } = await company('FlowTriggers', ['Um', 'Dois']);
  const mk = async (name: string, start: Record<string, unknown>, text: string) => {
    const g = chain([{ id: 'm', type: 'message', data: { text } }]);
    (g.nodes[0]!.data as Record<string, unknown>) = { ...g.nodes[0]!.data, ...start };
    const f = await flows.create(g, name);
    await flows.publish(f.id);
    return f;
  };
  await mk(
    'Orçamento geral',
    { keywords: ['orcamento'], keywordMatch: 'contains', priority: 50 },
    'fluxo geral',
  );
  await mk('Orçamento VIP', { keywords: ['orçamento'], keywordMatch: 'contains', priority: 10 }, 'fluxo vip');
  const n1 = newNumber();
  expect(await kit.say(c.admin, whatsappId, n1, 'Quero um ORCAMENTO, por favor')).toEqual(['fluxo vip']);
  // No keyword: the connection has no flow, the queue menu as before.
  const n2 = newNumber();
  expect((await kit.say(c.admin, whatsappId, n2, 'oi'))[0]).toMatch(/^Olá! Escolha um setor:/);

  // A reply to a campaign.
  await mk('Resposta de campanha', { campaignReply: true }, 'obrigado por responder');
  const n3 = newNumber();
  await kit.say(c.admin, whatsappId, n3, 'primeiro contato');
  const t3 = await kit.ticketOf(c.id, whatsappId, n3);
  await t.as(c.admin).put(`/tickets/${t3.id}`, { status: 'closed' });
  const [camp] = await db
    .insert(campaigns)
    .values({ companyId: c.id, name: 'Promo', status: 'FINALIZADA', whatsappId } as never)
    .returning();
  await db.insert(campaignShippings).values({
    companyId: c.id,
    campaignId: camp!.id,
    contactId: t3.contactId,
    number: n3,
    message: 'promo',
    sentAt: clock.now(),
  } as never);
  expect(await kit.say(c.admin, whatsappId, n3, 'gostei')).toEqual(['obrigado por responder']);

  // Out of hours (company schedules, closed on Sundays... and every day here).
  const sup = await t.superuser();
  const closed = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'].map((d) => ({
    weekday: d,
    weekdayEn: d,
    startTime: '',
    endTime: '',
  }));
  await t.as(sup).put(`/companies/${c.id}/schedules`, { schedules: closed });
  await t.as(c.admin).put('/settings/scheduleType', { value: 'company' });
  await mk('Fora do horário', { outOfHours: true }, 'estamos fechados, deixe seu recado');
  const n4 = newNumber();
  expect(await kit.say(c.admin, whatsappId, n4, 'oi')).toEqual(['estamos fechados, deixe seu recado']);
}, 120_000);

test('POST /tickets/{id}/flow: an attendant sends the customer to a flow; a person taking the ticket ends the run', async () => {
  const { c, whatsappId, flows } = await company('FlowSend', ['Solo']);
  const f = await flows.create(
    chain([
      {
        id: 'q',
        type: 'question',
        data: { text: 'Qual o seu e-mail?', variable: 'email', validation: 'email' },
      },
    ]),
    'Coleta',
  );
  const number = newNumber();
  await kit.say(c.admin, whatsappId, number, 'oi');
  const ticket = await kit.ticketOf(c.id, whatsappId, number);
  await t.as(c.admin).put(`/tickets/${ticket.id}`, { status: 'open', userId: c.admin.user.id });
  await expectError(
    await flows.api.post(`/tickets/${ticket.id}/flow`, { flowId: f.id }),
    400,
    'ERR_FLOW_NOT_PUBLISHED',
  );
  await flows.publish(f.id);
  await expectError(await flows.api.post(`/tickets/${ticket.id}/flow`, { flowId: 0 }), 400, 'ERR_VALIDATION');
  const res = await flows.api.post(`/tickets/${ticket.id}/flow`, { flowId: f.id });
  expect(res.status, await res.clone().text()).toBe(200);
  expect(await res.json()).toMatchObject({
    flowId: f.id,
    status: 'waiting',
    currentNodeId: 'q',
    ticketId: ticket.id,
  });
  await kit.idle();
  expect((await kit.phone(c.admin, whatsappId, number)).at(-1)!.body).toBe('Qual o seu e-mail?');
  expect(await kit.ticketOf(c.id, whatsappId, number)).toMatchObject({
    status: 'pending',
    userId: null,
    chatbot: true,
  });
  // The attendant takes it back: the run is cancelled, the customer's answer goes to the person.
  await t.as(c.admin).put(`/tickets/${ticket.id}`, { status: 'open', userId: c.admin.user.id });
  await kit.idle();
  await waitFor(async () => (await lastRun(ticket.id)).status === 'cancelled');
  expect(await kit.say(c.admin, whatsappId, number, 'ana@example.com')).toEqual([]);
}, 120_000);

test("import/export: ids that are not this company's are listed to map, never guessed", async () => {
  const a = await company('FlowExportA', ['Origem']);
  const b = await company('FlowExportB', ['Destino']);
  const g = chain([
    { id: 'go', type: 'transfer', data: { target: 'queue', queueId: a.queues.Origem, note: 'x' } },
  ]);
  const f = await a.flows.create(g, 'Exportável');
  const res = await a.flows.api.get(`/flows/${f.id}/export`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-disposition')).toMatch(/attachment; filename=".+\.flow\.json"/);
  const file = JSON.parse(await res.text());
  expect(file).toMatchObject({ format: 'recado-flow', formatVersion: 1, name: 'Exportável' });
  const refused = await expectError(
    await b.flows.api.post('/flows/import', { file }),
    400,
    'ERR_FLOW_IMPORT_UNMAPPED',
  );
  expect(refused.missing).toEqual([{ kind: 'queue', id: a.queues.Origem, nodeIds: ['go'] }]);
  expect((await (await b.flows.api.get('/flows')).json()).count).toBe(0);
  // Mapped to another company's id: still refused.
  await expectError(
    await b.flows.api.post('/flows/import', {
      file,
      mapping: { queue: { [String(a.queues.Origem)]: a.queues.Origem } },
    }),
    400,
    'ERR_FLOW_IMPORT_UNMAPPED',
  );
  const ok = await b.flows.api.post('/flows/import', {
    file,
    mapping: { queue: { [String(a.queues.Origem)]: b.queues.Destino } },
  });
  expect(ok.status, await ok.clone().text()).toBe(201);
  const imported = await ok.json();
  expect(imported.graph.nodes.find((n: { id: string }) => n.id === 'go').data.queueId).toBe(b.queues.Destino);
  expect(imported.status).toBe('draft');
  await expectError(
    await b.flows.api.post('/flows/import', { file: { ...file, format: 'x' } }),
    400,
    'ERR_VALIDATION',
  );
}, 120_000);

test('try it: the draft runs in a simulator conversation; the try room hears the node light up', async () => {
  const { c, flows } = await company('FlowTry');
  const f = await flows.create(
    chain([
      { id: 'ask', type: 'question', data: { text: 'Como se chama?', variable: 'nome' } },
      { id: 'hi', type: 'message', data: { text: 'Oi, {{nome}}!' } },
    ]),
  );
  const socket = await t.socket(c.admin.token);
  expect(
    (await new Promise<{ ok: boolean }>((r) => socket.emit('joinFlowTry', { flowId: f.id }, r))).ok,
  ).toBe(true);
  const events: { nodeId: string | null; status: string; runId: number }[] = [];
  socket.on('flowTry', (e) => events.push(e));
  const res = await flows.api.post(`/flows/${f.id}/try`, {});
  expect(res.status, await res.clone().text()).toBe(201);
  const tried = await res.json();
  expect(tried.run).toMatchObject({ isTry: true, version: null, status: 'waiting', currentNodeId: 'ask' });
  await waitFor(() => events.some((e) => e.nodeId === 'ask' && e.status === 'waiting'));
  expect(await kit.say(c.admin, tried.whatsappId, tried.contactNumber, 'Caio')).toEqual(['Oi, Caio!']);
  await waitFor(() => events.some((e) => e.status === 'completed' && e.nodeId === null));
  expect(events.every((e) => e.runId === tried.run.id)).toBe(true);
  // A second try reuses the simulator connection.
  const again = await (await flows.api.post(`/flows/${f.id}/try`, {})).json();
  expect(again.whatsappId).toBe(tried.whatsappId);
  expect(again.contactNumber).not.toBe(tried.contactNumber);
  const notes = await db
    .select()
    .from(ticketNotes)
    .where(and(eq(ticketNotes.ticketId, tried.ticketId)));
  expect(notes).toEqual([]);
}, 120_000);

test('a message sends a file of a file list (caption = the text); a step longer than the bound fails and hands over', async () => {
  const { c, whatsappId, flows } = await company('FlowFiles');
  const path = await t.app.services.media.save(c.id, Buffer.from('%PDF-1.4 tabela'), 'tabela.pdf');
  const [list] = await db.insert(files).values({ companyId: c.id, name: 'Tabelas', message: '' }).returning();
  const [opt] = await db
    .insert(filesOptions)
    .values({
      companyId: c.id,
      fileId: list!.id,
      name: 'Tabela',
      path,
      mediaType: 'application/pdf',
      fileName: 'tabela.pdf',
    })
    .returning();
  await flows.onConnection(
    whatsappId,
    chain([
      {
        id: 'doc',
        type: 'message',
        data: { text: 'Segue a tabela, {{name}}', fileListId: list!.id, fileId: opt!.id },
      },
    ]),
  );
  const number = newNumber();
  await kit.say(c.admin, whatsappId, number, 'oi');
  const sent = (
    await (await t.as(c.admin).get(`/simulator/${whatsappId}/conversations/${number}`)).json()
  ).filter((m: { fromMe: boolean }) => m.fromMe);
  expect(sent).toHaveLength(1);
  expect(sent[0]).toMatchObject({
    mediaName: 'tabela.pdf',
    body: expect.stringMatching(/^Segue a tabela, /),
  });

  // 60 messages in a row: valid (no loop), but beyond the 50 nodes one step may run.
  const long = await flows.create(
    chain(
      Array.from({ length: 60 }, (_, i) => ({ id: `m${i}`, type: 'message', data: { text: `linha ${i}` } })),
    ),
  );
  const tried = await (await flows.api.post(`/flows/${long.id}/try`, {})).json();
  expect(tried.run).toMatchObject({ status: 'failed' });
  const notes = await db.select().from(ticketNotes).where(eq(ticketNotes.ticketId, tried.ticketId));
  expect(notes[0]!.note).toMatch(/more than 50 nodes in one step/);
}, 120_000);

test("a step's messages stored and not sent (the network fails): the run fails at the node, its steps on the timeline once", async () => {
  const { c, whatsappId, flows } = await company('FlowSendFail');
  await flows.onConnection(
    whatsappId,
    chain([
      { id: 'hi', type: 'message', data: { text: 'Olá!' } },
      { id: 'q', type: 'question', data: { text: 'Seu nome?', variable: 'nome' } },
    ]),
  );
  // The channel (the WhatsApp network) refuses every text for a moment.
  const channel = t.app.sessions.get(whatsappId) as unknown as { sendText: (...a: unknown[]) => unknown };
  const sendText = channel.sendText;
  channel.sendText = async () => {
    throw new Error('network down');
  };
  const n = newNumber();
  try {
    expect(await kit.say(c.admin, whatsappId, n, 'oi')).toEqual([]);
  } finally {
    channel.sendText = sendText;
  }
  const ticket = await kit.ticketOf(c.id, whatsappId, n);
  const run = await lastRun(ticket.id);
  // (The step's texts go together: the run stands on the last node that spoke.)
  expect(run).toMatchObject({ status: 'failed', currentNodeId: 'q' });
  // The sweep replays whatever event row is left: the step's entry is still there once.
  const bus = t.app.services.bus;
  await bus.recover({ olderThanMs: 0 });
  await bus.idle();
  const entries = await executeRows<{ data: { runId: number; nodes: { id: string }[] } }>(
    db,
    sql`select data from ticket_events where ticket_id = ${ticket.id} and type = 'flow'`,
  );
  expect(entries).toHaveLength(1);
  expect(entries[0]!.data).toMatchObject({ runId: run.id, nodes: [{ id: 'hi' }, { id: 'q' }] });
  const left = await executeRows(db, sql`select id from event_outbox where event = 'flow.steps'`);
  expect(left).toHaveLength(0);
}, 120_000);
