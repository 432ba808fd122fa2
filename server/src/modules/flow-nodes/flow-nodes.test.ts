import { afterAll, beforeEach, describe, expect, test } from 'vitest';
import type { FlowStats } from '@recado/contracts';
import { expectError, testApp, type Session } from '../../../test/helpers.js';
import { fakeOpenAi } from '../../../test/fake-openai.js';
import { fakeTypebot } from '../../../test/fake-typebot.js';
import { fakeWebhook } from '../../../test/fake-webhook.js';
import { webhookReceiver } from '../../../test/webhook-receiver.js';
import { automationKit } from '../automation/automation-test-kit.js';
import { newNumber } from '../bot/bot-test-kit.js';
import { flowApi, graph } from '../flows/flow-test-kit.js';

/**
 * The flows' integration side (docs/flows.md): ai_prompt / typebot / n8n nodes on the automation engine's
 * hold, the stats route, the queue menu's conversion, flow.failed, and a second company that can reach none
 * of the first's.
 */
const openai = await fakeOpenAi();
const typebot = await fakeTypebot();
const hook = await fakeWebhook();
const receiver = await webhookReceiver();
const t = await testApp({
  env: { ALLOW_PRIVATE_URLS: 'true', OPENAI_BASE_URL: openai.baseUrl },
  // Hook posts and webhook deliveries run here (no poller racing them).
  deps: { jobs: { autoStart: false } },
});
afterAll(() => Promise.all([openai.close(), typebot.close(), hook.close(), receiver.close()]));
const k = automationKit(t);
const a = await t.company('FlowNodesA');
const b = await t.company('FlowNodesB');
const fa = flowApi(t, a.admin);
const fb = flowApi(t, b.admin);

const echo = openai.state.answer;
beforeEach(() => {
  openai.state.answer = echo;
  openai.state.invalidKeys.clear();
  hook.state.status = 200;
  hook.state.body = undefined;
});

/** A simulator connection of the company without queues. */
async function connection(admin: Session) {
  const res = await t.as(admin).post('/whatsapp', { name: `Sim ${newNumber()}`, channel: 'simulator' });
  expect(res.status, await res.clone().text()).toBe(201);
  return ((await res.json()) as { id: number }).id;
}
async function queue(admin: Session) {
  const color = `#${Math.floor(Math.random() * 0xffffff)
    .toString(16)
    .padStart(6, '0')}`;
  const res = await t.as(admin).post('/queue', { name: `Fila ${newNumber()}`, color, greetingMessage: '' });
  expect(res.status, await res.clone().text()).toBe(201);
  return ((await res.json()) as { id: number }).id;
}
async function integration(admin: Session, body: Record<string, unknown>) {
  const res = await t.as(admin).post('/queueIntegration', { name: `I ${newNumber()}`.slice(0, 40), ...body });
  expect(res.status, await res.clone().text()).toBe(201);
  return ((await res.json()) as { id: number }).id;
}
const notes = async (admin: Session, ticketId: number) =>
  (
    (await (await t.as(admin).get(`/ticket-notes/list?ticketId=${ticketId}`)).json()) as { note: string }[]
  ).map((n) => n.note);
const stats = async (admin: Session, flowId: number, q = '') => {
  const res = await t.as(admin).get(`/flows/${flowId}/stats${q}`);
  expect(res.status, await res.clone().text()).toBe(200);
  return (await res.json()) as FlowStats;
};
const nodeStats = (s: FlowStats, id: string) => s.nodes.find((n) => n.nodeId === id);
/** Runs the due jobs (hook posts) until none is left, then waits for the listeners. */
async function drainJobs() {
  for (let i = 0; i < 20 && (await t.app.services.jobs.runDue()) > 0; i++);
  await k.idle();
}

/** start → ask the name → the automation node → a message back in the flow; its error exit → a message. */
const heldFlow = (type: 'ai_prompt' | 'typebot' | 'n8n', data: Record<string, unknown>) =>
  graph(
    [
      { id: 'ask', type: 'question', data: { text: 'Seu nome?', variable: 'customerName' } },
      { id: 'auto', type, data },
      { id: 'back', type: 'message', data: { text: 'De volta ao fluxo, {{customerName}}!' } },
      { id: 'oops', type: 'message', data: { text: 'A automação falhou.' } },
    ],
    [
      ['start', 'next', 'ask'],
      ['ask', 'answered', 'auto'],
      ['auto', 'next', 'back'],
      ['auto', 'error', 'oops'],
    ],
  );

describe('ai_prompt', () => {
  test('the prompt holds the conversation until its hand-off line; then the flow goes on by next', async () => {
    const w = await connection(a.admin);
    const prompt = await k.prompt(a.admin, await queue(a.admin));
    const flow = await fa.onConnection(w, heldFlow('ai_prompt', { promptId: prompt.id }));
    const number = newNumber();
    expect(await k.say(a.admin, w, number, 'Oi')).toEqual(['Seu nome?']);
    // The node hands the ticket over; the prompt answers from the next message on.
    expect(await k.say(a.admin, w, number, 'Ana')).toEqual([]);
    const ticket = await k.ticketOf(a.id, w, number);
    expect(ticket).toMatchObject({ useIntegration: true, promptId: prompt.id });
    expect(await k.say(a.admin, w, number, 'Quanto custa?')).toEqual(['Eco: Quanto custa?']);
    // The model's turns are the conversation since the hold, not the flow's own questions only.
    expect(openai.completions.at(-1)!.body.messages.at(-1)).toEqual({
      role: 'user',
      content: 'Quanto custa?',
    });
    openai.state.answer = () => ({ content: 'Claro!\nAção: Transferir para o setor de atendimento' });
    expect(await k.say(a.admin, w, number, 'Quero um atendente')).toEqual([
      'Claro!',
      'De volta ao fluxo, Ana!',
    ]);
    expect(await k.ticketOf(a.id, w, number)).toMatchObject({ useIntegration: false, promptId: null });
    const run = await t.app.services.flowsRuntime.activeRun(a.id, ticket.id);
    expect(run).toBeNull();
    const s = await stats(a.admin, flow.id);
    expect(nodeStats(s, 'auto')).toMatchObject({ entered: 1, exits: { next: 1 }, dropped: 0 });
    expect(s.runs).toMatchObject({ started: 1, completed: 1 });
  }, 120_000);

  test('a failing prompt: its note and people, and the flow goes on by error', async () => {
    const w = await connection(a.admin);
    const prompt = await k.prompt(a.admin, await queue(a.admin), { apiKey: 'sk-revoked' });
    openai.state.invalidKeys.add('sk-revoked');
    await fa.onConnection(w, heldFlow('ai_prompt', { promptId: prompt.id }));
    const number = newNumber();
    await k.say(a.admin, w, number, 'Oi');
    await k.say(a.admin, w, number, 'Bia');
    expect(await k.say(a.admin, w, number, 'Olá?')).toEqual(['A automação falhou.']);
    const ticket = await k.ticketOf(a.id, w, number);
    expect(ticket).toMatchObject({ status: 'pending', useIntegration: false });
    expect((await notes(a.admin, ticket.id)).join('\n')).toMatch(/Automação \(OpenAI\) falhou: 401/);
  }, 120_000);
});

describe('typebot and n8n', () => {
  test('typebot: the Typebot conversation runs until it ends, then next', async () => {
    const w = await connection(a.admin);
    const id = await integration(a.admin, {
      type: 'typebot',
      urlN8N: typebot.url,
      typebotSlug: 'loja',
      typebotDelayMessage: 0,
      typebotExpires: 10,
      typebotKeywordFinish: '#sair',
      typebotKeywordRestart: '#reiniciar',
      typebotUnknownMessage: 'Não entendi.',
    });
    await fa.onConnection(w, heldFlow('typebot', { integrationId: id }));
    const number = newNumber();
    await k.say(a.admin, w, number, 'Oi');
    expect(await k.say(a.admin, w, number, 'Caio')).toEqual([]);
    const greeting = await k.say(a.admin, w, number, 'Olá');
    expect(greeting.join('\n')).toMatch(/Vendas/);
    // "Suporte" ends the Typebot flow (no input): the hold ends by hand-off.
    expect(await k.say(a.admin, w, number, 'Suporte')).toEqual([
      'Um atendente vai falar com você.',
      'De volta ao fluxo, Caio!',
    ]);
  }, 120_000);

  test("n8n: the workflow's handoff action gives the conversation back", async () => {
    const w = await connection(a.admin);
    const id = await integration(a.admin, { type: 'n8n', urlN8N: `${hook.url}/hook/flow` });
    await fa.onConnection(w, heldFlow('n8n', { integrationId: id }));
    const number = newNumber();
    await k.say(a.admin, w, number, 'Oi');
    expect(await k.say(a.admin, w, number, 'Duda')).toEqual([]);
    hook.state.body = () => ({
      text: JSON.stringify({ actions: [{ type: 'reply', text: 'Pedido recebido.' }, { type: 'handoff' }] }),
    });
    const before = (await k.phone(a.admin, w, number)).length;
    await k.say(a.admin, w, number, 'Pedido 123');
    await drainJobs();
    const after = (await k.phone(a.admin, w, number)).slice(before).filter((m) => m.fromMe);
    expect(after.map((m) => m.body)).toEqual(['Pedido recebido.', 'De volta ao fluxo, Duda!']);
    expect(hook.seen.at(-1)!.body).toMatchObject({ message: { body: 'Pedido 123' } });
  }, 120_000);

  test('an integration of the wrong type fails the node by its error exit', async () => {
    const w = await connection(a.admin);
    const n8n = await integration(a.admin, { type: 'n8n', urlN8N: `${hook.url}/hook/x` });
    // A typebot node naming an n8n integration (saved: it is the company's; refused at run time).
    await fa.onConnection(w, heldFlow('typebot', { integrationId: n8n }));
    const number = newNumber();
    await k.say(a.admin, w, number, 'Oi');
    expect(await k.say(a.admin, w, number, 'Eli')).toEqual(['A automação falhou.']);
  }, 120_000);
});

describe('stats', () => {
  test('entries, exits by name, drops where a person took the ticket; the period and its validation', async () => {
    const w = await connection(a.admin);
    const flow = await fa.onConnection(
      w,
      graph(
        [
          { id: 'ask', type: 'question', data: { text: 'Sim ou não?', variable: 'yn', validation: 'text' } },
          {
            id: 'check',
            type: 'condition',
            data: { rules: [{ id: 'y', kind: 'variable', name: 'yn', op: 'eq', value: 'sim' }] },
          },
          { id: 'yes', type: 'message', data: { text: 'Ótimo.' } },
        ],
        [
          ['start', 'next', 'ask'],
          ['ask', 'answered', 'check'],
          ['check', 'true', 'yes'],
        ],
      ),
    );
    const walk = async (answer: string | null) => {
      const number = newNumber();
      await k.say(a.admin, w, number, 'Oi');
      if (answer !== null) await k.say(a.admin, w, number, answer);
      return k.ticketOf(a.id, w, number);
    };
    await walk('sim');
    await walk('não');
    const left = await walk(null);
    // A person takes the third conversation while it waits on the question: a drop there.
    const accepted = await t
      .as(a.admin)
      .put(`/tickets/${left.id}`, { status: 'open', userId: a.admin.user.id });
    expect(accepted.status, await accepted.clone().text()).toBe(200);
    await k.idle();

    const s = await stats(a.admin, flow.id);
    expect(s.runs).toEqual({ started: 3, completed: 2, failed: 0, dropped: 1 });
    expect(nodeStats(s, 'start')).toMatchObject({ entered: 3, exits: { next: 3 } });
    expect(nodeStats(s, 'ask')).toMatchObject({
      entered: 3,
      conversations: 3,
      exits: { answered: 2 },
      dropped: 1,
    });
    expect(nodeStats(s, 'check')).toMatchObject({ entered: 2, exits: { true: 1, false: 1 }, dropped: 0 });
    expect(nodeStats(s, 'yes')).toMatchObject({ entered: 1, exits: { next: 1 } });

    const today = new Date().toISOString().slice(0, 10);
    expect((await stats(a.admin, flow.id, `?from=${today}&to=${today}`)).runs.started).toBe(3);
    expect(await stats(a.admin, flow.id, '?from=2020-01-01&to=2020-01-31')).toMatchObject({
      from: '2020-01-01',
      to: '2020-01-31',
      runs: { started: 0, completed: 0, failed: 0, dropped: 0 },
      nodes: [],
    });
    const bad = await t.as(a.admin).get(`/flows/${flow.id}/stats?from=2026-02-30`);
    await expectError(bad, 400, 'ERR_VALIDATION');
    const reversed = await t.as(a.admin).get(`/flows/${flow.id}/stats?from=2026-03-02&to=2026-03-01`);
    expect(reversed.status).toBe(400);
    expect(JSON.stringify(await reversed.json())).toMatch(/from/);
    const long = await t.as(a.admin).get(`/flows/${flow.id}/stats?from=2024-01-01&to=2026-01-01`);
    expect(long.status).toBe(400);
    // Another company's flow: as if it did not exist.
    await expectError(await t.as(b.admin).get(`/flows/${flow.id}/stats`), 404, 'ERR_NO_FLOW_FOUND');
    // Attendants do not read flows' analytics.
    const user = await t.user(a.admin, 'user');
    expect((await t.as(user).get(`/flows/${flow.id}/stats`)).status).toBe(403);
  }, 120_000);

  test('a failed run: flow.failed with the node and why, and a drop on that node', async () => {
    const hookRes = await t.as(a.admin).post('/webhooks', { url: receiver.url, events: ['flow.failed'] });
    expect(hookRes.status).toBe(201);
    const w = await connection(a.admin);
    const flow = await fa.onConnection(
      w,
      graph(
        [
          { id: 'ask', type: 'question', data: { text: 'Código?', variable: 'code' } },
          // Nothing listens there: the error exit leads nowhere, so the run fails.
          {
            id: 'call',
            type: 'http',
            data: { url: 'http://127.0.0.1:9/nothing/{{code}}', timeoutSeconds: 2 },
          },
        ],
        [
          ['start', 'next', 'ask'],
          ['ask', 'answered', 'call'],
        ],
      ),
    );
    const number = newNumber();
    await k.say(a.admin, w, number, 'Oi');
    await k.say(a.admin, w, number, 'X1');
    const ticket = await k.ticketOf(a.id, w, number);
    expect((await notes(a.admin, ticket.id)).join('\n')).toMatch(/call.*request failed: ECONNREFUSED/);
    const end = Date.now() + 15_000;
    let hit;
    while (!(hit = receiver.received.find((r) => r.json.event === 'flow.failed'))) {
      if (Date.now() > end) throw new Error('no flow.failed delivery');
      await t.app.services.jobs.runDue();
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(hit.json.data).toMatchObject({
      flow: { id: flow.id },
      nodeId: 'call',
      variables: { code: 'X1' },
      ticket: { id: ticket.id },
    });
    expect(String(hit.json.data.error)).toMatch(/ECONNREFUSED/);
    const s = await stats(a.admin, flow.id);
    expect(s.runs.failed).toBe(1);
    expect(nodeStats(s, 'call')).toMatchObject({ entered: 1, dropped: 1, exits: {} });
  }, 120_000);
});

describe('a second company', () => {
  test("cannot convert the first's bot, point a flow at its prompts or integrations, or engage them", async () => {
    const wa = await connection(a.admin);
    await expectError(
      await t.as(b.admin).post('/flows/convert', { whatsappId: wa }),
      404,
      'ERR_NO_WAPP_FOUND',
    );
    const promptA = await k.prompt(a.admin, await queue(a.admin));
    const integrationA = await integration(a.admin, { type: 'n8n', urlN8N: `${hook.url}/hook/a` });
    for (const [type, data] of [
      ['ai_prompt', { promptId: promptA.id }],
      ['n8n', { integrationId: integrationA }],
      ['typebot', { integrationId: integrationA }],
    ] as const) {
      const res = await fb.api.post('/flows', { name: `Alheio ${type}`, graph: heldFlow(type, data) });
      expect(res.status, `${type}: ${await res.clone().text()}`).toBe(400);
      const body = (await res.json()) as { error: string; issues: { nodeId: string; code: string }[] };
      expect(body.error).toBe('ERR_FLOW_INVALID');
      expect(body.issues).toContainEqual(
        expect.objectContaining({ nodeId: 'auto', code: 'foreign_reference' }),
      );
    }
    // Below the validation: the engine refuses a prompt or integration of another company.
    const wb = await connection(b.admin);
    const number = newNumber();
    await k.say(b.admin, wb, number, 'Oi');
    const ticketB = await k.ticketOf(b.id, wb, number);
    const automation = t.app.services.automation;
    expect(await automation.engageForFlow(b.id, ticketB.id, { kind: 'prompt', promptId: promptA.id })).toBe(
      false,
    );
    expect(
      await automation.engageForFlow(b.id, ticketB.id, { kind: 'n8n', integrationId: integrationA }),
    ).toBe(false);
    expect(await k.ticketOf(b.id, wb, number)).toMatchObject({ useIntegration: false, promptId: null });
  }, 120_000);
});
