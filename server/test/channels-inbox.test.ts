import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { and, eq, sql } from 'drizzle-orm';
import { QUEUE_COLORS } from '@recado/contracts';
import { tickets } from '../src/db/schema/index.js';
import { executeRows } from '../src/db/rows.js';
import { startFakeGraph, type FakeGraph } from '../src/messaging/channels/cloud-api/fake-graph-api.js';
import { chain, flowApi } from '../src/modules/flows/flow-test-kit.js';
import { startFakeTelegram, type FakeTelegram } from './fake-telegram.js';
import { metaFixtures } from './meta-fixtures.js';
import { webhookReceiver } from './webhook-receiver.js';
import { testApp, unique, waitFor, type Session, type TestApp } from './helpers.js';

/**
 * #34.4 One inbox, cross-channel conformance (docs/channels.md "One inbox"): for each channel without phone
 * numbers — Telegram, Instagram, Messenger, website chat — through its stand-in (the Bot API's, Graph's; the
 * widget's own public API for the website chat), a customer's first message opens a ticket that goes through the queue-choice bot into a queue,
 * whose SLA starts and whose routing hands it to the online attendant; an outgoing webhook hears the
 * customer's message; a keyword flow answers a second customer; the attendant's reply — a quick message
 * with variables — reaches the customer on that channel. The same script runs for every channel.
 */
const PUBLIC = 'https://recado.example';
const APP_SECRET = 'inbox-app-secret';
let t: TestApp;
let tg: FakeTelegram;
let graph: FakeGraph;
const receiver = await webhookReceiver();

beforeAll(async () => {
  tg = await startFakeTelegram();
  graph = await startFakeGraph();
  t = await testApp({
    env: { TELEGRAM_API_URL: tg.url, PUBLIC_URL: PUBLIC, ALLOW_PRIVATE_URLS: 'true' },
    deps: { jobs: { pollMs: 50 } },
  });
});
afterAll(async () => {
  await t?.close();
  await tg?.close();
  await graph?.close();
  await receiver.close();
});

/** How the script drives one channel: its connection's settings, a customer writing, what reached them. */
interface Driver {
  channel: 'telegram' | 'instagram' | 'messenger' | 'webchat';
  config(): Record<string, unknown>;
  /** The connection as created (the website chat reads its public id). */
  created?(connection: { id: number; channelConfig: Record<string, unknown> }): void;
  /** A customer (a new id each call) writes `text` to the connection. */
  says(connectionId: number, customer: string, text: string): Promise<void>;
  /** The texts the channel delivered to that customer, in order. */
  received(customer: string): string[] | Promise<string[]>;
  /** The customer's identity value (the provider's id of the person). */
  identity?(customer: string): string;
}

let seq = 0;
const telegram: Driver = {
  channel: 'telegram',
  config: () => ({ botToken: tg.token }),
  async says(connectionId, customer, text) {
    const res = await fetch(`${t.url}/api/webhooks/telegram/${connectionId}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-telegram-bot-api-secret-token': tg.webhooks.get(tg.token)!.secretToken,
      },
      body: JSON.stringify({
        update_id: ++seq,
        message: {
          message_id: ++seq,
          date: Math.floor(Date.now() / 1000),
          chat: { id: Number(customer), type: 'private', first_name: 'Joana' },
          from: { id: Number(customer), is_bot: false, first_name: 'Joana' },
          text,
        },
      }),
    });
    expect(res.status, await res.clone().text()).toBe(200);
  },
  received: (customer) => tg.sent.filter((s) => s.chatId === customer).map((s) => s.text ?? ''),
};

const meta = (channel: 'instagram' | 'messenger'): Driver => ({
  channel,
  config: () => ({
    ...(channel === 'messenger'
      ? { pageId: graph.pageId }
      : { instagramAccountId: graph.instagramAccountId }),
    pageAccessToken: graph.token,
    appSecret: APP_SECRET,
    verifyToken: 'inbox-verify',
    graphBaseUrl: graph.url,
  }),
  async says(connectionId, customer, text) {
    const m = metaFixtures(t, graph, APP_SECRET);
    const res = await m.signedPost(
      connectionId,
      m.delivery(channel, [m.fromCustomer(channel, customer, { mid: `m_${unique('')}`, text })]),
    );
    expect(res.status, await res.clone().text()).toBe(200);
  },
  received: (customer) =>
    graph.messengerSent
      .filter((s) => s.recipient === customer)
      .map((s) => String((s.message as { text?: string }).text ?? '')),
});

/** The website chat through its public widget API (a visitor per customer, over HTTP as a page without sockets). */
const SHOP = 'http://shop.test:8080';
function webchatDriver(): Driver {
  let publicId = '';
  const visitors = new Map<string, { visitorId: string; visitorToken: string }>();
  const widget = (path: string, token?: string, body?: unknown) =>
    t.request(body === undefined ? 'GET' : 'POST', `/widget/${publicId}${path}`, {
      token,
      body,
      headers: { origin: SHOP },
    });
  return {
    channel: 'webchat',
    config: () => ({ allowedOrigins: [SHOP], greeting: 'Olá!' }),
    created: (w) => {
      publicId = String(w.channelConfig.publicId);
    },
    async says(_connectionId, customer, text) {
      let v = visitors.get(customer);
      if (!v) {
        const res = await widget('/visitors', undefined, { name: 'Joana' });
        expect(res.status, await res.clone().text()).toBe(201);
        v = (await res.json()) as { visitorId: string; visitorToken: string };
        visitors.set(customer, v);
      }
      const res = await widget('/messages', v.visitorToken, { body: text });
      expect(res.status, await res.clone().text()).toBe(201);
    },
    async received(customer) {
      const v = visitors.get(customer);
      if (!v) return [];
      const res = await widget('/messages', v.visitorToken);
      return ((await res.json()) as { body: string; fromVisitor: boolean }[])
        .filter((m) => !m.fromVisitor)
        .map((m) => m.body);
    },
    identity: (customer) => visitors.get(customer)?.visitorId ?? '',
  };
}

const q = <T = Record<string, unknown>>(query: ReturnType<typeof sql>) =>
  executeRows<T>(t.database.db, query);

/** A ticket of the connection for the customer's identity (not closed). */
const ticketOf = async (connectionId: number, customer: string) =>
  (
    await q<{ id: number; uuid: string }>(
      sql`select t.id, t.uuid from tickets t join contact_identities i on i.contact_id = t.contact_id
        where t.whatsapp_id = ${connectionId} and i.value = ${customer} and t.status <> 'closed'`,
    )
  )[0];

async function scenario(d: Driver) {
  const c = await t.company(`Inbox ${d.channel}`);
  const api = t.as(c.admin);
  // Two queues: the bot asks which; "Vendas" routes round robin to its online attendant, under an SLA.
  const queue = async (name: string, extra: Record<string, unknown> = {}) => {
    const res = await api.post('/queue', {
      name,
      color: QUEUE_COLORS[seq++ % 40],
      greetingMessage: `Fila ${name}`,
      ...extra,
    });
    expect(res.status, await res.clone().text()).toBe(201);
    return (await res.json()).id as number;
  };
  const vendas = await queue('Vendas', { assignmentPolicy: 'round_robin' });
  const suporte = await queue('Suporte');
  const sla = await api.post('/sla-policies', {
    name: 'Primeira resposta',
    firstResponseMinutes: 30,
    queueIds: [vendas],
  });
  expect(sla.status, await sla.clone().text()).toBe(201);
  const agent = await t.user(c.admin);
  expect((await api.put(`/users/${agent.user.id}`, { queueIds: [vendas] })).status).toBe(200);
  await t.socket(agent.token);
  expect((await t.as(agent).put('/users/me/presence', { presence: 'online' })).status).toBe(200);
  const hook = await api.post('/webhooks', {
    name: 'ERP',
    url: receiver.url,
    events: ['message.created', 'ticket.assigned'],
  });
  expect(hook.status, await hook.clone().text()).toBe(201);
  const quick = await t.as(agent).post('/quick-messages', {
    shortcode: 'proto',
    message: 'Olá! Seu protocolo é {{protocol}}.',
  });
  expect(quick.status, await quick.clone().text()).toBe(201);
  // A keyword flow ("rastreio") answers on its own.
  const flows = flowApi(t, c.admin);
  const g = chain([{ id: 'm', type: 'message', data: { text: 'Rastreio: seu pedido está a caminho.' } }]);
  (g.nodes[0]!.data as Record<string, unknown>) = { keywords: ['rastreio'], keywordMatch: 'contains' };
  await flows.publish((await flows.create(g)).id);

  const conn = await api.post('/whatsapp', {
    name: `Canal ${d.channel}`,
    channel: d.channel,
    greetingMessage: 'Olá! Escolha uma opção:',
    queueIds: [vendas, suporte],
    channelConfig: d.config(),
  });
  expect(conn.status, await conn.clone().text()).toBe(201);
  const connection = await conn.json();
  const connectionId = connection.id as number;
  d.created?.(connection);
  await waitFor(async () => {
    const [w] = await q<{ status: string }>(sql`select status from whatsapps where id = ${connectionId}`);
    return w?.status === 'CONNECTED';
  });

  // 1. The customer's first message opens a ticket; the queue-choice bot answers on the channel.
  const customer = String(880000000 + Math.floor(Math.random() * 1e6));
  await d.says(connectionId, customer, 'Oi, quero comprar');
  const ticket = await waitFor(() => ticketOf(connectionId, d.identity?.(customer) ?? customer));
  const menu = await waitFor(async () => (await d.received(customer)).find((x) => x.includes('Vendas')));
  expect(menu).toContain('Suporte');
  // The webhook heard the customer's message, on this channel's connection.
  await waitFor(() =>
    receiver.received.find(
      (h) =>
        h.json.event === 'message.created' &&
        h.json.companyId === c.id &&
        JSON.stringify(h.json.data).includes('Oi, quero comprar'),
    ),
  );

  // 2. The customer picks "Vendas": the queue's SLA starts, routing hands the ticket to the attendant.
  const pick = /(\d+)\D{0,4}Vendas/.exec(menu)?.[1];
  expect(pick, menu).toBeDefined();
  await d.says(connectionId, customer, pick!);
  const routed = await waitFor(async () => {
    const [r] = await t.database.db.select().from(tickets).where(eq(tickets.id, ticket.id));
    return r?.queueId === vendas && r.userId === agent.user.id && r.status === 'open' ? r : undefined;
  });
  expect(routed.firstResponseDueAt).not.toBeNull();
  await waitFor(() =>
    receiver.received.find(
      (h) =>
        h.json.event === 'ticket.assigned' &&
        h.json.companyId === c.id &&
        JSON.stringify(h.json.data).includes(`"id":${ticket.id}`),
    ),
  );

  // 3. The attendant answers with the quick message: its variable is filled, and it reaches the channel.
  const text = ((await quick.json()) as { message: string }).message;
  const sent = await t.as(agent).post(`/messages/${ticket.id}`, { body: text });
  expect(sent.status, await sent.clone().text()).toBeLessThan(300);
  const reply = await waitFor(async () =>
    (await d.received(customer)).find((x) => x.includes('Seu protocolo é')),
  );
  expect(reply).toContain(routed.protocol);
  expect(reply).not.toContain('{{protocol}}');
  // The SLA's first response is met.
  const [after] = await t.database.db
    .select()
    .from(tickets)
    .where(and(eq(tickets.id, ticket.id), eq(tickets.companyId, c.id)));
  expect(after!.firstResponseAt).not.toBeNull();
  expect(after!.slaBreached ?? []).toEqual([]);

  // 4. Another customer's keyword starts the flow, which answers on the channel.
  const second = String(890000000 + Math.floor(Math.random() * 1e6));
  await d.says(connectionId, second, 'Quero o rastreio do pedido');
  await waitFor(async () =>
    (await d.received(second)).find((x) => x.includes('Rastreio: seu pedido está a caminho.')),
  );
  expect((await d.received(second)).some((x) => x.includes('Vendas'))).toBe(false);

  // 5. The tickets list finds them by this channel, and not by another.
  const other = d.channel === 'telegram' ? 'instagram' : 'telegram';
  const list = async (channel: string) =>
    (
      (await (await api.get(`/tickets?showAll=true&status=open&channels=${channel}`)).json()) as {
        tickets: { id: number }[];
      }
    ).tickets.map((x) => x.id);
  expect(await list(d.channel)).toContain(ticket.id);
  expect(await list(other)).not.toContain(ticket.id);
  return { companyId: c.id, admin: c.admin as Session };
}

describe('one inbox: the same service on every channel', { timeout: 120_000 }, () => {
  for (const d of [telegram, meta('instagram'), meta('messenger'), webchatDriver()])
    test(`${d.channel}: bot, queue, SLA, routing, webhook, flow, quick message with variables, reply`, async () => {
      await scenario(d);
    });
});
