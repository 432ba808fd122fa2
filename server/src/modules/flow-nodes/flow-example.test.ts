import { readFileSync } from 'node:fs';
import { sql } from 'drizzle-orm';
import { afterAll, beforeEach, describe, expect, test } from 'vitest';
import { WEEKDAYS, type FlowExportFile, type FlowStats } from '@recado/contracts';
import { manualClock } from '../../lib/clock.js';
import { testApp, type Session, type TestApp } from '../../../test/helpers.js';
import { fakeCustomerApi } from '../../../test/fake-customer-api.js';
import { webhookReceiver } from '../../../test/webhook-receiver.js';
import { botKit, newNumber } from '../bot/bot-test-kit.js';
import { flowApi, graph } from '../flows/flow-test-kit.js';

/**
 * docs/flows.md's complete example, exactly as the page shows it (read from the page), through the simulator
 * against a local HTTP service: invalid CPF → retry; the look-up's answer decides the branch; its fields reach
 * the transfer note; the tag is set; the stats count the walk; flow.completed carries the variables. And an
 * HTTP node pointed at loopback is refused without ALLOW_PRIVATE_URLS.
 */

// 2026-11-23 is a Monday; São Paulo (the company's default zone) is UTC-3.
const MONDAY_NOON = new Date('2026-11-23T15:00:00Z');
const SUNDAY_NIGHT = new Date('2026-11-23T02:00:00Z');
const clock = manualClock(MONDAY_NOON);

const ANA_CPF = '52998224725';
const BRUNO_CPF = '11144477735';
/** Valid check digits, but the service does not know it (404). */
const UNKNOWN_CPF = '39053344705';

const api = await fakeCustomerApi({
  customers: {
    [ANA_CPF]: { name: 'Ana Souza', plan: 'premium', since: '2019' },
    [BRUNO_CPF]: { name: 'Bruno Lima', plan: 'basic', since: '2023' },
  },
});
const receiver = await webhookReceiver();
// The test's own service is on 127.0.0.1: this app is allowed to reach it (docs/outbound-urls.md).
const t = await testApp({ env: { ALLOW_PRIVATE_URLS: 'true' }, deps: { clock, jobs: { autoStart: false } } });
afterAll(() => Promise.all([api.close(), receiver.close()]));

/** The JSON between the page's flow-example markers. */
export function docsExample(): FlowExportFile {
  const page = readFileSync(new URL('../../../../docs/flows.md', import.meta.url), 'utf8');
  const m = /<!-- flow-example:begin[^>]*-->\s*```json\n([\s\S]*?)\n```\s*<!-- flow-example:end -->/.exec(
    page,
  );
  if (!m) throw new Error('docs/flows.md has no flow-example block');
  return JSON.parse(m[1]!) as FlowExportFile;
}

/** Monday to Friday open from `start` to `end`; the weekend closed. */
const week = (start: string, end: string) =>
  WEEKDAYS.map((d, i) => {
    const open = i <= 4;
    return { weekday: d, weekdayEn: d, startTime: open ? start : '', endTime: open ? end : '' };
  });

interface Setup {
  admin: Session;
  companyId: number;
  whatsappId: number;
  flowId: number;
  queues: { atendimento: number; vip: number };
  tagId: number;
}

/**
 * A company as the example expects it: queues Atendimento and VIP, tag VIP, weekday hours 08–18; the docs' file
 * imported with its ids mapped (queue 1 → Atendimento, 2 → VIP, tag 1 → VIP) and its look-up pointed at the
 * local service; published, and the flow of a simulator connection.
 */
export async function exampleCompany(app: TestApp, name: string, serviceUrl: string): Promise<Setup> {
  const c = await app.company(name);
  const as = app.as(c.admin);
  const queue = async (n: string, color: string) => {
    const r = await as.post('/queue', { name: n, color, greetingMessage: '' });
    expect(r.status, await r.clone().text()).toBe(201);
    return ((await r.json()) as { id: number }).id;
  };
  const queues = { atendimento: await queue('Atendimento', '#1E88E5'), vip: await queue('VIP', '#8E24AA') };
  const tag = await as.post('/tags', { name: 'VIP', color: '#8E24AA' });
  expect(tag.status, await tag.clone().text()).toBe(201);
  const tagId = ((await tag.json()) as { id: number }).id;
  expect((await as.put(`/companies/${c.id}/schedules`, { schedules: week('08:00', '18:00') })).status).toBe(
    200,
  );

  const file = docsExample();
  for (const n of file.graph.nodes)
    if (n.type === 'http') n.data.url = n.data.url.replace('http://127.0.0.1:3001', serviceUrl);
  const imported = await as.post('/flows/import', {
    file,
    mapping: { queue: { '1': queues.atendimento, '2': queues.vip }, tag: { '1': tagId } },
  });
  expect(imported.status, await imported.clone().text()).toBe(201);
  const flowId = ((await imported.json()) as { id: number }).id;
  const published = await as.post(`/flows/${flowId}/publish`);
  expect(published.status, await published.clone().text()).toBe(200);
  const w = await as.post('/whatsapp', { name: `Sim ${newNumber()}`, channel: 'simulator', flowId });
  expect(w.status, await w.clone().text()).toBe(201);
  const whatsappId = ((await w.json()) as { id: number }).id;
  return { admin: c.admin, companyId: c.id, whatsappId, flowId, queues, tagId };
}

const k = botKit(t);
const co = await exampleCompany(t, 'FlowExample', api.url);
const hook = await t.as(co.admin).post('/webhooks', {
  url: receiver.url,
  events: ['flow.completed', 'flow.failed'],
});
expect(hook.status, await hook.clone().text()).toBe(201);

const say = (number: string, body: string) => k.say(co.admin, co.whatsappId, number, body);
const ticketOf = (number: string) => k.ticketOf(co.companyId, co.whatsappId, number);
async function notes(ticketId: number) {
  const r = await t.as(co.admin).get(`/ticket-notes/list?ticketId=${ticketId}`);
  expect(r.status).toBe(200);
  return ((await r.json()) as { note: string }[]).map((n) => n.note);
}
async function tagsOf(ticketId: number) {
  const r = await t.as(co.admin).get(`/tickets/${ticketId}`);
  expect(r.status).toBe(200);
  return ((await r.json()) as { tags: { id: number }[] }).tags.map((g) => g.id);
}
/** Waits (bounded) for the webhook delivery of `event` about `ticketId`; the delivery jobs run here. */
async function delivery(event: string, ticketId: number) {
  const end = Date.now() + 15_000;
  for (;;) {
    await t.app.services.jobs.runDue();
    const hit = receiver.received.find(
      (r) => r.json.event === event && (r.json.data.ticket as { id: number }).id === ticketId,
    );
    if (hit) return hit.json;
    if (Date.now() > end) throw new Error(`no ${event} delivery for ticket ${ticketId}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

beforeEach(() => clock.set(MONDAY_NOON));

describe("docs/flows.md's complete example", () => {
  test('premium customer: invalid CPF → retry; the answer picks VIP, its fields reach the note, tag VIP', async () => {
    const number = newNumber();
    expect(await say(number, 'Oi')).toEqual([
      'Olá! Sou o assistente da *Loja Exemplo*. 👋',
      'Qual é o seu nome?',
    ]);
    expect(await say(number, 'Ana')).toEqual(['Obrigado, Ana! Qual é o seu CPF?']);
    expect(await say(number, '123')).toEqual([
      'Esse CPF não parece válido. Digite os 11 números, por favor.',
    ]);
    // Eleven digits with wrong check digits: still invalid.
    expect(await say(number, '529.982.247-26')).toEqual([
      'Esse CPF não parece válido. Digite os 11 números, por favor.',
    ]);
    const before = api.requests.length;
    expect(await say(number, '529.982.247-25')).toEqual([]);

    // The look-up: one GET with the CPF as stored (digits) and the header.
    const calls = api.requests.slice(before);
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ method: 'GET', path: `/customers/${ANA_CPF}` });
    expect(calls[0]!.headers.authorization).toBe('Bearer exemplo');

    const ticket = await ticketOf(number);
    expect(ticket).toMatchObject({ status: 'pending', queueId: co.queues.vip, userId: null });
    expect(await tagsOf(ticket.id)).toEqual([co.tagId]);
    expect(await notes(ticket.id)).toContain(
      `Cliente Ana Souza (CPF ${ANA_CPF}), plano premium, cliente desde 2019.`,
    );

    const done = await delivery('flow.completed', ticket.id);
    expect(done.data).toMatchObject({
      flow: { id: co.flowId, name: 'Primeiro contato', version: 1 },
      nodeId: 'to_vip',
      error: null,
      ticket: { id: ticket.id, queueId: co.queues.vip, tags: [{ id: co.tagId, name: 'VIP' }] },
      variables: {
        customerName: 'Ana',
        cpf: ANA_CPF,
        crmName: 'Ana Souza',
        plan: 'premium',
        since: '2019',
        lookupStatus: '200',
      },
    });
  }, 120_000);

  test('another plan goes to Atendimento without the tag', async () => {
    const number = newNumber();
    await say(number, 'Olá');
    await say(number, 'Bruno');
    expect(await say(number, BRUNO_CPF)).toEqual([]);
    const ticket = await ticketOf(number);
    expect(ticket.queueId).toBe(co.queues.atendimento);
    expect(await tagsOf(ticket.id)).toEqual([]);
    expect(await notes(ticket.id)).toContain(`Cliente Bruno Lima (CPF ${BRUNO_CPF}), plano basic.`);
  }, 120_000);

  test('the service does not know the CPF (404): the error exit, with the status in the note', async () => {
    const number = newNumber();
    await say(number, 'Bom dia');
    await say(number, 'Carla');
    expect(await say(number, UNKNOWN_CPF)).toEqual([]);
    const ticket = await ticketOf(number);
    expect(ticket.queueId).toBe(co.queues.atendimento);
    expect(await notes(ticket.id)).toContain(
      `Cadastro não encontrado (HTTP 404): Carla, CPF ${UNKNOWN_CPF}.`,
    );
  }, 120_000);

  test('out of hours: no look-up, the closed message and Atendimento', async () => {
    const number = newNumber();
    await say(number, 'Oi');
    await say(number, 'Davi');
    clock.set(SUNDAY_NIGHT);
    const before = api.requests.length;
    expect(await say(number, BRUNO_CPF)).toEqual([
      'Estamos fora do horário, Davi. Um atendente responde assim que abrirmos.',
    ]);
    expect(api.requests.length).toBe(before);
    const ticket = await ticketOf(number);
    expect(ticket.queueId).toBe(co.queues.atendimento);
    expect(await notes(ticket.id)).toContain(`Fora do horário: Davi, CPF ${BRUNO_CPF}.`);
  }, 120_000);

  test('three invalid CPFs: the invalid exit hands over with its note', async () => {
    const number = newNumber();
    await say(number, 'Oi');
    await say(number, 'Eva');
    await say(number, '1');
    await say(number, '2');
    expect(await say(number, '3')).toEqual([]);
    const ticket = await ticketOf(number);
    expect(ticket.queueId).toBe(co.queues.atendimento);
    expect(await notes(ticket.id)).toContain('Eva não informou um CPF válido.');
  }, 120_000);
});

describe('an HTTP node pointed at loopback', () => {
  test('is refused without ALLOW_PRIVATE_URLS: nothing reaches the service, the error exit is taken', async () => {
    const strict = await testApp({ deps: { clock, jobs: { autoStart: false } } });
    try {
      // Saving it is refused already (the node and field named): the same guard, at save time.
      const c = await strict.company('FlowStrictSave');
      const refused = await strict
        .as(c.admin)
        .post('/flows', { name: 'Loopback', graph: docsExample().graph });
      expect(refused.status).toBe(400);
      const body = (await refused.json()) as {
        error: string;
        issues: { nodeId: string; code: string; message: string }[];
        fields: { path: string }[];
      };
      expect(body.error).toBe('ERR_FLOW_INVALID');
      // (The file's queue and tag ids are not this company's either: those issues come with it.)
      expect(body.issues).toContainEqual(
        expect.objectContaining({
          nodeId: 'lookup',
          code: 'url_not_allowed',
          message: 'Node lookup: url: URL not allowed: 127.0.0.1 is a loopback address',
        }),
      );
      expect(body.fields).toContainEqual(expect.objectContaining({ path: 'graph.nodes.lookup.data.url' }));
      // A version published while the server allowed private URLs, run by a server that no longer does:
      // the runtime's guard refuses it too.
      const s = await exampleCompany(strict, 'FlowStrict', 'https://example.com');
      await strict.database.db.execute(
        sql`update flow_versions set graph = replace(graph::text, 'https://example.com', ${api.url})::jsonb
          where flow_id = ${s.flowId}`,
      );
      const sk = botKit(strict);
      const number = newNumber();
      await sk.say(s.admin, s.whatsappId, number, 'Oi');
      await sk.say(s.admin, s.whatsappId, number, 'Ana');
      const before = api.requests.length;
      expect(await sk.say(s.admin, s.whatsappId, number, ANA_CPF)).toEqual([]);
      expect(api.requests.length).toBe(before);
      const ticket = await sk.ticketOf(s.companyId, s.whatsappId, number);
      expect(ticket.queueId).toBe(s.queues.atendimento);
      const r = await strict.as(s.admin).get(`/ticket-notes/list?ticketId=${ticket.id}`);
      const texts = ((await r.json()) as { note: string }[]).map((n) => n.note);
      // No answer: the status variable is 0.
      expect(texts).toContain(`Cadastro não encontrado (HTTP 0): Ana, CPF ${ANA_CPF}.`);
    } finally {
      await strict.close();
    }
    // A second app (fresh database and migrations) takes long on a loaded machine (180 s was passed once).
  }, 300_000);
});

describe('a question nobody answers', () => {
  test('its timeout job ends the run there: a drop on the question in the stats', async () => {
    const w = await t.as(co.admin).post('/whatsapp', { name: `Sim ${newNumber()}`, channel: 'simulator' });
    const whatsappId = ((await w.json()) as { id: number }).id;
    const f = flowApi(t, co.admin);
    const flow = await f.onConnection(
      whatsappId,
      graph(
        [{ id: 'ask', type: 'question', data: { text: 'Está aí?', variable: 'x', timeoutMinutes: 1 } }],
        [['start', 'next', 'ask']],
      ),
    );
    const number = newNumber();
    expect(await k.say(co.admin, whatsappId, number, 'Oi')).toEqual(['Está aí?']);
    clock.set(new Date(MONDAY_NOON.getTime() + 2 * 60_000));
    for (let i = 0; i < 10 && (await t.app.services.jobs.runDue()) > 0; i++);
    await k.idle();
    const ticket = await k.ticketOf(co.companyId, whatsappId, number);
    expect(await t.app.services.flowsRuntime.activeRun(co.companyId, ticket.id)).toBeNull();
    const today = MONDAY_NOON.toISOString().slice(0, 10);
    const res = await t.as(co.admin).get(`/flows/${flow.id}/stats?from=${today}&to=${today}`);
    const s = (await res.json()) as FlowStats;
    expect(s.nodes.find((n) => n.nodeId === 'ask')).toMatchObject({
      entered: 1,
      exits: { timeout: 1 },
      dropped: 1,
    });
  }, 120_000);
});
