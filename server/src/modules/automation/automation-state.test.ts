import { afterAll, beforeEach, describe, expect, test } from 'vitest';
import { AUTOMATION_ALERT_THRESHOLD } from '@recado/contracts';
import { expectError, testApp, waitFor, type Session } from '../../../test/helpers.js';
import { fakeWebhook } from '../../../test/fake-webhook.js';
import { fakeOpenAi } from '../../../test/fake-openai.js';
import { browserKeys, pushEndpoint } from '../../../test/push-endpoint.js';
import { newNumber } from '../bot/bot-test-kit.js';
import { automationKit } from './automation-test-kit.js';

/**
 * #29.6 (an n8n / webhook answer carries actions; the later hand-off call) and #29.9 (the automation's state
 * on the ticket, people at the first failure, admins alerted once per incident), against local servers that
 * stand in for n8n, OpenAI and a browser's push service.
 */
const hook = await fakeWebhook();
const openai = await fakeOpenAi();
const pushService = await pushEndpoint();
afterAll(() => Promise.all([hook.close(), openai.close(), pushService.close()]));
const t = await testApp({
  env: { ALLOW_PRIVATE_URLS: 'true', OPENAI_BASE_URL: openai.baseUrl },
  deps: { jobs: { autoStart: false } },
});
const k = automationKit(t);
const c = await t.company('AutoState');
const other = await t.company('AutoStateOther');
const runJobs = () => t.app.services.jobs.runDue();

beforeEach(() => {
  hook.state.status = 200;
  hook.state.body = undefined;
});

let colors = 0;
const color = () => `#1B${(++colors).toString(16).padStart(4, '0').toUpperCase()}`;

async function queue(admin: Session, name = `Fila ${newNumber()}`) {
  const res = await t.as(admin).post('/queue', { name, color: color() });
  expect(res.status, await res.clone().text()).toBe(201);
  return ((await res.json()) as { id: number }).id;
}

/** A connection whose only queue hands its tickets to a new n8n integration. */
async function hookQueue(admin: Session) {
  const { whatsappId, queues } = await k.setup(admin, [{ name: `Fila ${newNumber()}`, greetingMessage: '' }]);
  const queueId = Object.values(queues)[0]!;
  const path = `/flow-${newNumber()}`;
  const created = await t.as(admin).post('/queueIntegration', {
    type: 'n8n',
    name: `N ${newNumber()}`.slice(0, 40),
    urlN8N: `${hook.url}${path}`,
  });
  expect(created.status, await created.clone().text()).toBe(201);
  const { id: integrationId } = (await created.json()) as { id: number };
  expect((await t.as(admin).put(`/queue/${queueId}`, { integrationId })).status).toBe(200);
  return { whatsappId, queueId, integrationId, path };
}

const answer = (actions: unknown) => () => ({ text: JSON.stringify({ actions }) });

const notes = async (admin: Session, ticketId: number) =>
  (
    (await (await t.as(admin).get(`/ticket-notes/list?ticketId=${ticketId}`)).json()) as { note: string }[]
  ).map((n) => n.note);

/** The customer's phone, once it shows `text` from the company. */
const phoneShows = (whatsappId: number, number: string, text: string) =>
  waitFor(async () => (await k.phone(c.admin, whatsappId, number)).some((m) => m.fromMe && m.body === text));

describe('an n8n / webhook answer acts (#29.6)', () => {
  test('reply, tag and transfer to a queue, in order; the hook lets the ticket go', async () => {
    const { whatsappId, integrationId } = await hookQueue(c.admin);
    const sales = await queue(c.admin);
    const tag = (await (await t.as(c.admin).post('/tags', { name: `VIP ${newNumber()}` })).json()) as {
      id: number;
    };
    hook.state.body = answer([
      { type: 'reply', text: 'Olá! Vou te passar para Vendas.' },
      { type: 'tag', tagId: tag.id },
      { type: 'transfer', queueId: sales },
    ]);
    const number = newNumber();
    await k.say(c.admin, whatsappId, number, 'quero comprar');
    let ticket = await k.ticketOf(c.id, whatsappId, number);
    expect(ticket).toMatchObject({ useIntegration: true, integrationId });
    expect(ticket.automation).toMatchObject({ status: 'active', kind: 'n8n', error: null });
    // The hook's call (other listeners, e.g. routing or presence, may have a job due in the same pass).
    expect(await runJobs()).toBeGreaterThanOrEqual(1);
    await phoneShows(whatsappId, number, 'Olá! Vou te passar para Vendas.');
    ticket = await k.ticketOf(c.id, whatsappId, number);
    expect(ticket).toMatchObject({
      status: 'pending',
      queueId: sales,
      userId: null,
      useIntegration: false,
      integrationId: null,
      automation: null,
    });
    const view = (await (await t.as(c.admin).get(`/tickets/${ticket.id}`)).json()) as {
      tags: { id: number }[];
    };
    expect(view.tags.map((g) => g.id)).toEqual([tag.id]);
    // The message was the flow's, from the automation (no user).
    const { messages } = (await (await t.as(c.admin).get(`/messages/${ticket.id}`)).json()) as {
      messages: { body: string; userId: number | null; data: Record<string, unknown> | null }[];
    };
    expect(messages.find((m) => m.body === 'Olá! Vou te passar para Vendas.')).toMatchObject({
      userId: null,
      data: { automation: 'n8n' },
    });
    // Later messages are not posted to the flow any more.
    const before = hook.seen.length;
    await k.say(c.admin, whatsappId, number, 'obrigado');
    await runJobs();
    expect(hook.seen.length).toBe(before);
  });

  test('transfer to an attendant, resolve, and hand to people', async () => {
    const attendant = await t.user(c.admin, 'user');
    const cases = [
      {
        actions: [{ type: 'transfer', userId: attendant.user.id }],
        expect: { status: 'open', userId: attendant.user.id },
      },
      { actions: [{ type: 'resolve' }], expect: { status: 'closed' } },
      { actions: [{ type: 'handoff' }], expect: { status: 'pending', userId: null } },
    ];
    for (const x of cases) {
      const { whatsappId, queueId } = await hookQueue(c.admin);
      hook.state.body = answer(x.actions);
      const number = newNumber();
      await k.say(c.admin, whatsappId, number, 'oi');
      expect(await runJobs()).toBe(1);
      const ticket = await k.ticketOf(c.id, whatsappId, number);
      expect(ticket, JSON.stringify(x.actions)).toMatchObject({
        ...x.expect,
        queueId,
        useIntegration: false,
        integrationId: null,
        automation: null,
      });
    }
  });

  test("another company's queue, user or tag is refused: nothing runs, people take the ticket", async () => {
    const foreignQueue = await queue(other.admin);
    const foreignTag = (await (
      await t.as(other.admin).post('/tags', { name: `Outra ${newNumber()}` })
    ).json()) as {
      id: number;
    };
    for (const [action, reason] of [
      [{ type: 'transfer', queueId: foreignQueue }, `fila ${foreignQueue} não encontrada`],
      [{ type: 'transfer', userId: other.admin.user.id }, `usuário ${other.admin.user.id} não encontrado`],
      [{ type: 'tag', tagId: foreignTag.id }, `etiqueta ${foreignTag.id} não encontrada`],
    ] as const) {
      const { whatsappId, queueId } = await hookQueue(c.admin);
      hook.state.body = answer([{ type: 'reply', text: 'não deveria sair' }, action]);
      const number = newNumber();
      await k.say(c.admin, whatsappId, number, 'oi');
      expect(await runJobs()).toBe(1);
      const ticket = await k.ticketOf(c.id, whatsappId, number);
      expect(ticket).toMatchObject({ status: 'pending', queueId, useIntegration: false });
      expect(ticket.automation).toMatchObject({ status: 'failed', kind: 'n8n', error: reason });
      expect(await notes(c.admin, ticket.id)).toEqual([
        `Automação (n8n) falhou: ${reason}. O ticket foi passado para atendimento humano.`,
      ]);
      expect((await k.phone(c.admin, whatsappId, number)).filter((m) => m.fromMe)).toEqual([]);
    }
  });

  test('an answer that does not fit is a visible failure, not retried and not a crash; plain text is no action', async () => {
    const { whatsappId, path } = await hookQueue(c.admin);
    hook.state.body = answer([{ type: 'explode' }]);
    const number = newNumber();
    await k.say(c.admin, whatsappId, number, 'oi');
    expect(await runJobs()).toBe(1);
    const ticket = await k.ticketOf(c.id, whatsappId, number);
    expect(ticket.useIntegration).toBe(false);
    expect(ticket.automation?.error).toMatch(/^resposta inválida em actions\.0\.type/);
    expect(await runJobs()).toBe(0);
    expect(hook.hits.filter((h) => h === path)).toHaveLength(1);

    // Broken JSON announced as JSON: a failure too.
    const second = await hookQueue(c.admin);
    hook.state.body = () => ({ text: '{"actions": [', contentType: 'application/json' });
    const n2 = newNumber();
    await k.say(c.admin, second.whatsappId, n2, 'oi');
    await runJobs();
    expect((await k.ticketOf(c.id, second.whatsappId, n2)).automation).toMatchObject({
      status: 'failed',
      error: 'resposta não é um JSON válido',
    });

    // n8n's "Workflow was started" (text) or `{ ok: true }`: no actions, the flow keeps the ticket.
    const third = await hookQueue(c.admin);
    hook.state.body = () => ({ text: 'Workflow was started', contentType: 'text/plain' });
    const n3 = newNumber();
    await k.say(c.admin, third.whatsappId, n3, 'oi');
    await runJobs();
    expect(await k.ticketOf(c.id, third.whatsappId, n3)).toMatchObject({
      useIntegration: true,
      automation: { status: 'active' },
    });
  });

  test('actions that come back after a person took the ticket are ignored', async () => {
    const { whatsappId } = await hookQueue(c.admin);
    hook.state.body = answer([{ type: 'resolve' }]);
    const number = newNumber();
    await k.say(c.admin, whatsappId, number, 'oi');
    const ticket = await k.ticketOf(c.id, whatsappId, number);
    const accepted = await t
      .as(c.admin)
      .put(`/tickets/${ticket.id}`, { status: 'open', userId: c.admin.user.id });
    expect(accepted.status).toBe(200);
    expect(await runJobs()).toBe(1);
    expect(await k.ticketOf(c.id, whatsappId, number)).toMatchObject({
      status: 'open',
      userId: c.admin.user.id,
    });
  });

  test('POST /tickets/{id}/handoff hands the ticket to people later; another company and a user outside the queue get 404', async () => {
    const { whatsappId, queueId } = await hookQueue(c.admin);
    const number = newNumber();
    await k.say(c.admin, whatsappId, number, 'oi');
    const ticket = await k.ticketOf(c.id, whatsappId, number);
    await expectError(
      await t.as(other.admin).post(`/tickets/${ticket.id}/handoff`),
      404,
      'ERR_NO_TICKET_FOUND',
    );
    // A plain user of the same company outside the ticket's queue may not see it, so may not hand it over.
    const outsider = await t.user(c.admin);
    await expectError(await t.as(outsider).post(`/tickets/${ticket.id}/handoff`), 404, 'ERR_NO_TICKET_FOUND');
    expect((await k.ticketOf(c.id, whatsappId, number)).useIntegration).toBe(true);
    const res = await t.as(c.admin).post(`/tickets/${ticket.id}/handoff`);
    expect(res.status, await res.clone().text()).toBe(200);
    expect(await res.json()).toMatchObject({
      status: 'pending',
      queueId,
      useIntegration: false,
      automation: null,
    });
    await expectError(await t.as(c.admin).post('/tickets/abc/handoff'), 400, 'ERR_VALIDATION');
  });
});

describe('automation trouble is visible (#29.9)', () => {
  test('the ticket carries "answering" live, then "failed: …" when the AI fails; an accept clears it', async () => {
    const { whatsappId, queues } = await k.setup(c.admin, [
      { name: `IA ${newNumber()}`, greetingMessage: '' },
    ]);
    const queueId = Object.values(queues)[0]!;
    await k.prompt(c.admin, queueId, { apiKey: 'sk-state-good' });
    const socket = await t.socket(c.admin.token);
    socket.emit('joinTickets', 'pending');
    const events: { ticket: { id: number; automation: unknown } }[] = [];
    socket.on(`company-${c.id}-ticket`, (e: (typeof events)[number]) => events.push(e));
    const number = newNumber();
    expect(await k.say(c.admin, whatsappId, number, 'oi')).toEqual(['Eco: oi']);
    const ticket = await k.ticketOf(c.id, whatsappId, number);
    expect(ticket.automation).toMatchObject({ status: 'active', kind: 'prompt', error: null });
    await waitFor(() => events.some((e) => e.ticket.id === ticket.id));
    expect(events.filter((e) => e.ticket.id === ticket.id).map((e) => e.ticket.automation)).toContainEqual(
      expect.objectContaining({ status: 'active', kind: 'prompt' }),
    );

    // The key is revoked: the next message fails, people take it, the line says why.
    openai.state.invalidKeys.add('sk-state-good');
    try {
      expect(await k.say(c.admin, whatsappId, number, 'ainda aí?')).toEqual([]);
    } finally {
      openai.state.invalidKeys.delete('sk-state-good');
    }
    const failed = (await (await t.as(c.admin).get(`/tickets/${ticket.id}`)).json()) as Record<
      string,
      unknown
    >;
    expect(failed).toMatchObject({
      status: 'pending',
      useIntegration: false,
      automation: { status: 'failed', kind: 'prompt', error: '401 invalid_api_key' },
    });
    const accepted = await t
      .as(c.admin)
      .put(`/tickets/${ticket.id}`, { status: 'open', userId: c.admin.user.id });
    expect(await accepted.json()).toMatchObject({ status: 'open', automation: null });
    socket.disconnect();
  });

  test("a company's first prompt answers the very next message (the engine's 'no automations' memory is forgotten)", async () => {
    const co = await t.company('AutoFirst');
    const { whatsappId, queues } = await k.setup(co.admin, [{ name: 'IA first', greetingMessage: '' }]);
    const queueId = Object.values(queues)[0]!;
    // A customer before any prompt: the engine remembers "none" for a few seconds.
    const before = newNumber();
    await k.say(co.admin, whatsappId, before, 'oi');
    expect((await k.ticketOf(co.id, whatsappId, before)).automation ?? null).toBeNull();
    await k.prompt(co.admin, queueId, { apiKey: 'sk-first-prompt' });
    const after = newNumber();
    expect(await k.say(co.admin, whatsappId, after, 'olá')).toEqual(['Eco: olá']);
    expect((await k.ticketOf(co.id, whatsappId, after)).automation).toMatchObject({ status: 'active' });
  });

  test('admins are alerted once per incident (top bar event, list, push); a success closes it', async () => {
    const co = await t.company('AutoAlert');
    const attendant = await t.user(co.admin, 'user');
    const keys = browserKeys();
    const sub = await t
      .as(co.admin)
      .post('/push/subscriptions', { endpoint: `${pushService.base}/admin-${co.id}`, keys: keys.keys });
    expect(sub.status, await sub.clone().text()).toBe(201);
    const { whatsappId, queues } = await k.setup(co.admin, [{ name: 'IA alert', greetingMessage: '' }]);
    const queueId = Object.values(queues)[0]!;
    const prompt = await k.prompt(co.admin, queueId, { apiKey: 'sk-alert-bad', name: 'Assistente alerta' });
    openai.state.invalidKeys.add('sk-alert-bad');
    const adminSocket = await t.socket(co.admin.token);
    const userSocket = await t.socket(attendant.token);
    // The admin's pushes about automations (customers waiting are pushed too).
    const pushesTo = () =>
      pushService.received
        .filter((r) => r.path === `/admin-${co.id}`)
        .map((r) => JSON.parse(keys.decrypt(r.body)) as { title: string; body: string; url: string })
        .filter((p) => p.title.startsWith('Automação falhando'));

    const fails = async (n: number) => {
      for (let i = 0; i < n; i++) await k.say(co.admin, whatsappId, newNumber(), 'oi');
    };
    const event = `company-${co.id}-automationAlert`;
    const heardAdmin: unknown[] = [];
    const heardUser: unknown[] = [];
    adminSocket.on(event, (p: unknown) => heardAdmin.push(p));
    userSocket.on(event, (p: unknown) => heardUser.push(p));
    await fails(AUTOMATION_ALERT_THRESHOLD - 1);
    expect(await (await t.as(co.admin).get('/automation/alerts')).json()).toEqual({ alerts: [] });
    await fails(1);
    const { alerts } = (await (await t.as(co.admin).get('/automation/alerts')).json()) as {
      alerts: Record<string, unknown>[];
    };
    expect(alerts).toEqual([
      expect.objectContaining({
        source: 'prompt',
        sourceId: prompt.id,
        kind: 'prompt',
        name: 'Assistente alerta',
        failures: AUTOMATION_ALERT_THRESHOLD,
        lastError: '401 invalid_api_key',
      }),
    ]);
    // One more failure in the same incident: no second alert.
    await fails(1);
    await runJobs();
    await waitFor(() => pushesTo().length > 0 && heardAdmin.length > 0);
    expect(heardAdmin).toEqual([{ action: 'open', alert: expect.objectContaining({ sourceId: prompt.id }) }]);
    expect(heardUser).toEqual([]);
    await new Promise((r) => setTimeout(r, 300));
    expect(pushesTo()).toHaveLength(1);
    const push = pushesTo()[0]!;
    expect(push).toMatchObject({ title: 'Automação falhando: Assistente alerta', url: '/prompts' });
    expect(push.body).toContain('401 invalid_api_key');
    await expectError(await t.as(attendant).get('/automation/alerts'), 403, 'ERR_NO_PERMISSION');
    expect(await (await t.as(c.admin).get('/automation/alerts')).json()).toEqual({ alerts: [] });

    // The key is fixed: the next answer closes the incident; a new run of failures is a new incident.
    openai.state.invalidKeys.delete('sk-alert-bad');
    heardAdmin.length = 0;
    const answered = newNumber();
    expect(await k.say(co.admin, whatsappId, answered, 'oi')).toEqual(['Eco: oi']);
    // A customer the AI answers waits for nobody: no "customer waiting" push for them.
    await runJobs();
    const waitingPushes = () =>
      pushService.received
        .filter((r) => r.path === `/admin-${co.id}`)
        .map((r) => (JSON.parse(keys.decrypt(r.body)) as { title: string }).title);
    await waitFor(() => waitingPushes().some((title) => title.startsWith('Cliente aguardando')));
    expect(waitingPushes().filter((title) => title.includes(answered))).toEqual([]);
    await waitFor(() => heardAdmin.length > 0);
    expect(heardAdmin).toEqual([{ action: 'close', source: 'prompt', sourceId: prompt.id }]);
    expect(await (await t.as(co.admin).get('/automation/alerts')).json()).toEqual({ alerts: [] });
    openai.state.invalidKeys.add('sk-alert-bad');
    await fails(AUTOMATION_ALERT_THRESHOLD);
    expect(
      ((await (await t.as(co.admin).get('/automation/alerts')).json()) as { alerts: unknown[] }).alerts,
    ).toHaveLength(1);
    await runJobs();
    await waitFor(() => pushesTo().length === 2);
    openai.state.invalidKeys.delete('sk-alert-bad');
    adminSocket.disconnect();
    userSocket.disconnect();
  });
});
