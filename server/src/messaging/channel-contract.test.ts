import { createHmac } from 'node:crypto';
import { afterAll, describe, expect, test } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { messages, tickets } from '../db/schema/index.js';
import { testApp, type Session, waitFor } from '../../test/helpers.js';
import { startFakeGraph, type FakeGraph } from './channels/cloud-api/fake-graph-api.js';
import { startFakeTelegram } from '../../test/fake-telegram.js';

/**
 * The same conversation cases, run through the whole product, against the channels: the built-in
 * simulator, the WhatsApp Cloud API (its Graph API and Meta's webhook played by local fakes) and Telegram
 * (its Bot API played by a local stand-in).
 */
const tg = await startFakeTelegram();
// The fake Graph API listens on loopback, which only ALLOW_PRIVATE_URLS lets the server call.
const t = await testApp({ env: { ALLOW_PRIVATE_URLS: 'true', TELEGRAM_API_URL: tg.url } });
const db = t.database.db;
let graph: FakeGraph;

interface Driver {
  name: string;
  setup(admin: Session): Promise<number>;
  customerSends(whatsappId: number, from: string, id: string, body: string): Promise<number>;
  /** What the customer's phone received from the company (text bodies), in order. */
  customerReceived(whatsappId: number, number: string): Promise<string[]>;
  /** The phone confirms delivery of a company message. */
  confirmDelivery(whatsappId: number, providerId: string, number: string): Promise<void>;
  /** Whether the provider reports delivery (Telegram's Bot API does not: a sent reply stays at ack 1). */
  delivery: boolean;
}

let admin: Session;

const simulator: Driver = {
  name: 'simulator',
  async setup(a) {
    return (await (await t.as(a).post('/whatsapp', { name: 'Contract Sim', channel: 'simulator' })).json())
      .id;
  },
  async customerSends(whatsappId, from, id, body) {
    return (await t.as(admin).post(`/simulator/${whatsappId}/inbound`, { id, from, name: 'Contract', body }))
      .status;
  },
  async customerReceived(whatsappId, number) {
    const conv = await (await t.as(admin).get(`/simulator/${whatsappId}/conversations/${number}`)).json();
    return conv.filter((m: { fromMe: boolean }) => m.fromMe).map((m: { body: string }) => m.body);
  },
  async confirmDelivery() {
    // The simulated phone confirms by itself a moment after receiving.
  },
  delivery: true,
};

const APP_SECRET = 'contract-app-secret';
function signedPost(whatsappId: number, payload: unknown) {
  const raw = JSON.stringify(payload);
  const sig = `sha256=${createHmac('sha256', APP_SECRET).update(raw).digest('hex')}`;
  return fetch(`${t.url}/api/webhooks/cloud-api/${whatsappId}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-hub-signature-256': sig },
    body: raw,
  });
}
const envelope = (value: Record<string, unknown>) => ({
  object: 'whatsapp_business_account',
  entry: [
    {
      id: 'WABA1',
      changes: [
        {
          field: 'messages',
          value: {
            messaging_product: 'whatsapp',
            metadata: {
              display_phone_number: graph.displayPhoneNumber,
              phone_number_id: graph.phoneNumberId,
            },
            ...value,
          },
        },
      ],
    },
  ],
});

const cloudApi: Driver = {
  name: 'cloud_api',
  async setup(a) {
    graph ??= await startFakeGraph();
    const res = await t.as(a).post('/whatsapp', {
      name: 'Contract Cloud',
      channel: 'cloud_api',
      channelConfig: {
        phoneNumberId: graph.phoneNumberId,
        accessToken: graph.token,
        appSecret: APP_SECRET,
        verifyToken: 'verify-token-1',
        graphBaseUrl: graph.url,
      },
    });
    expect(res.status, await res.clone().text()).toBe(201);
    const w = await res.json();
    expect(JSON.stringify(w)).not.toContain(graph.token);
    expect(JSON.stringify(w)).not.toContain(APP_SECRET);
    return w.id;
  },
  async customerSends(whatsappId, from, id, body) {
    const res = await signedPost(
      whatsappId,
      envelope({
        contacts: [{ profile: { name: 'Contract' }, wa_id: from }],
        messages: [
          { from, id, timestamp: String(Math.floor(Date.now() / 1000)), type: 'text', text: { body } },
        ],
      }),
    );
    return res.status === 200 ? 202 : res.status;
  },
  async customerReceived(_whatsappId, number) {
    return graph.requests
      .filter(
        (r) =>
          r.method === 'POST' &&
          r.path.endsWith('/messages') &&
          r.json?.type === 'text' &&
          String(r.json?.to).replace(/\D/g, '').endsWith(number.slice(-8)),
      )
      .map((r) => (r.json!.text as { body: string }).body);
  },
  async confirmDelivery(whatsappId, providerId, number) {
    const res = await signedPost(
      whatsappId,
      envelope({
        statuses: [
          {
            id: providerId,
            status: 'delivered',
            timestamp: String(Math.floor(Date.now() / 1000)),
            recipient_id: number,
          },
        ],
      }),
    );
    expect(res.status).toBe(200);
  },
  delivery: true,
};

/** Telegram: the customer's number stands for the chat id; message ids are Telegram's numbers. */
const telegramIds = new Map<string, number>();
const telegram: Driver = {
  name: 'telegram',
  async setup(a) {
    const res = await t.as(a).post('/whatsapp', {
      name: 'Contract Telegram',
      channel: 'telegram',
      channelConfig: { botToken: tg.token },
    });
    expect(res.status, await res.clone().text()).toBe(201);
    const w = await res.json();
    expect(JSON.stringify(w)).not.toContain(tg.token);
    await waitFor(async () => (await (await t.as(a).get(`/whatsapp/${w.id}`)).json()).status === 'CONNECTED');
    return w.id;
  },
  async customerSends(whatsappId, from, id, body) {
    if (!telegramIds.has(id)) telegramIds.set(id, telegramIds.size + 1);
    const res = await fetch(`${t.url}/api/webhooks/telegram/${whatsappId}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-telegram-bot-api-secret-token': tg.webhooks.get(tg.token)!.secretToken,
      },
      body: JSON.stringify({
        update_id: telegramIds.get(id),
        message: {
          message_id: telegramIds.get(id),
          date: Math.floor(Date.now() / 1000),
          chat: { id: Number(from), type: 'private', first_name: 'Contract' },
          from: { id: Number(from), is_bot: false, first_name: 'Contract' },
          text: body,
        },
      }),
    });
    return res.status === 200 ? 202 : res.status;
  },
  async customerReceived(_whatsappId, number) {
    return tg.sent.filter((s) => s.chatId === number && s.text !== undefined).map((s) => s.text!);
  },
  async confirmDelivery() {},
  delivery: false,
};

afterAll(async () => {
  await graph?.close();
  await tg.close();
});

describe.each([simulator, cloudApi, telegram])('channel contract: $name', (driver) => {
  test('inbound once, reply delivered, ack moves to delivered; a wrong signature or foreign company changes nothing', async () => {
    const c = await t.company(`Contract${driver.name.replace('_', '')}`);
    admin = c.admin;
    const whatsappId = await driver.setup(c.admin);
    const w = await (await t.as(c.admin).get(`/whatsapp/${whatsappId}`)).json();
    expect(w.status).toBe('CONNECTED');
    const number = '5511966660000';

    expect(await driver.customerSends(whatsappId, number, `in-${driver.name}-1`, 'Olá, empresa')).toBe(202);
    expect(await driver.customerSends(whatsappId, number, `in-${driver.name}-1`, 'Olá, empresa')).toBe(202);
    const ticket = await waitFor(
      async () => (await db.select().from(tickets).where(eq(tickets.whatsappId, whatsappId)))[0],
    );
    await new Promise((r) => setTimeout(r, 150));
    const inbound = await db
      .select()
      .from(messages)
      .where(and(eq(messages.whatsappId, whatsappId), eq(messages.fromMe, false)));
    expect(inbound.map((m) => m.body)).toEqual(['Olá, empresa']);
    const [contactRow] = await db.select().from(tickets).where(eq(tickets.id, ticket.id));
    expect(contactRow!.status).toBe('pending');

    await t.as(c.admin).put(`/tickets/${ticket.id}`, { status: 'open' });
    const sent = await t
      .as(c.admin)
      .post(`/messages/${ticket.id}`, { body: 'Bom dia! Em que posso ajudar?' });
    expect(sent.status, await sent.clone().text()).toBe(200);
    const reply = await sent.json();
    expect(
      await waitFor(async () =>
        (await driver.customerReceived(whatsappId, number)).includes('Bom dia! Em que posso ajudar?'),
      ),
    ).toBe(true);

    const [stored] = await db.select().from(messages).where(eq(messages.id, reply.id));
    expect(stored!.providerId).not.toMatch(/^local-/);
    await driver.confirmDelivery(whatsappId, stored!.providerId, number);
    await waitFor(
      async () =>
        (await db.select().from(messages).where(eq(messages.id, reply.id)))[0]!.ack >=
        (driver.delivery ? 2 : 1),
    );
  });
});

test('cloud API webhook: a bad signature is refused and delivers nothing', async () => {
  const c = await t.company('ContractSig');
  admin = c.admin;
  const whatsappId = await cloudApi.setup(c.admin);
  const res = await fetch(`${t.url}/api/webhooks/cloud-api/${whatsappId}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-hub-signature-256': 'sha256=00' },
    body: JSON.stringify(
      envelope({
        messages: [
          { from: '5511966660001', id: 'forged', timestamp: '1', type: 'text', text: { body: 'x' } },
        ],
      }),
    ),
  });
  expect(res.status).toBe(401);
  expect(await db.select().from(messages).where(eq(messages.whatsappId, whatsappId))).toHaveLength(0);
  const verify = await fetch(
    `${t.url}/api/webhooks/cloud-api/${whatsappId}?hub.mode=subscribe&hub.verify_token=verify-token-1&hub.challenge=12345`,
  );
  expect(await verify.text()).toBe('12345');
});
