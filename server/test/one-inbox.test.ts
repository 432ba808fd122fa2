import { describe, expect, test } from 'vitest';
import { CHANNEL_KINDS, type ChannelKindName } from '@recado/contracts';
import { and, eq, sql } from 'drizzle-orm';
import { contactIdentities, contacts, outboundQueue, tickets, whatsapps } from '../src/db/schema/index.js';
import { expectError, testApp, unique, type Session } from './helpers.js';

/**
 * #34.4 One inbox: the tickets list, the kanban and the dashboard filter by channel (the ticket's
 * connection's channel), scoped by company; plan limits count connections of any channel; campaigns only go
 * over channels that may write first (docs/channels.md "One inbox").
 */
// No session runs here (the lists, dashboard and API only read and store): connections keep the state they are given.
const t = await testApp({ deps: { jobs: { autoStart: false }, sessions: { autoStart: false } } });
const db = t.database.db;

let seq = 0;
/** A connection of a channel, stored as it is once set up (no session started: the lists only read it). */
async function connection(companyId: number, channel: ChannelKindName) {
  const [w] = await db
    .insert(whatsapps)
    // Held by another (live) process: no session manager here claims it, so it keeps its state.
    .values({
      companyId,
      name: unique(channel),
      channel,
      status: 'CONNECTED',
      leaseOwner: 'elsewhere',
      leaseExpiresAt: new Date(Date.now() + 3600_000),
    })
    .returning();
  return w!.id;
}

async function ticket(companyId: number, whatsappId: number | null, status: 'open' | 'pending' | 'closed') {
  const [c] = await db
    .insert(contacts)
    .values({
      companyId,
      name: `Cliente ${seq}`,
      number: seq % 2 ? `55119${String(seq).padStart(8, '0')}` : '',
    })
    .returning();
  seq++;
  const now = new Date();
  const [row] = await db
    .insert(tickets)
    .values({
      companyId,
      contactId: c!.id,
      whatsappId,
      status,
      createdAt: now,
      updatedAt: now,
      closedAt: status === 'closed' ? now : null,
    })
    .returning();
  return row!.id;
}

const q = async (companyId: number) =>
  db
    .select({ n: sql<number>`count(*)::int` })
    .from(whatsapps)
    .where(eq(whatsapps.companyId, companyId));

const ids = async (res: Response) => {
  expect(res.status, await res.clone().text()).toBe(200);
  return ((await res.json()) as { tickets: { id: number }[] }).tickets.map((x) => x.id).sort((a, b) => a - b);
};
const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
const today = new Intl.DateTimeFormat('en-CA', {
  timeZone: 'America/Sao_Paulo',
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
}).format(new Date());
const range = `initialDate=${today}&finalDate=${today}`;

interface World {
  admin: Session;
  id: number;
  conn: Record<'simulator' | 'telegram' | 'webchat' | 'instagram', number>;
  pending: Record<'simulator' | 'telegram' | 'webchat' | 'instagram', number>;
  closedTelegram: number;
}

async function world(name: string): Promise<World> {
  const c = await t.company(name);
  const conn = {
    simulator: await connection(c.id, 'simulator'),
    telegram: await connection(c.id, 'telegram'),
    webchat: await connection(c.id, 'webchat'),
    instagram: await connection(c.id, 'instagram'),
  };
  const pending = {
    simulator: await ticket(c.id, conn.simulator, 'pending'),
    telegram: await ticket(c.id, conn.telegram, 'pending'),
    webchat: await ticket(c.id, conn.webchat, 'pending'),
    instagram: await ticket(c.id, conn.instagram, 'pending'),
  };
  const closedTelegram = await ticket(c.id, conn.telegram, 'closed');
  return { admin: c.admin, id: c.id, conn, pending, closedTelegram };
}

const a = await world('InboxA');
const b = await world('InboxB');

describe('tickets list and kanban by channel', () => {
  test('GET /tickets?channels= lists only the tickets of those channels (JSON array or comma list)', async () => {
    const list = (q: string) => t.as(a.admin).get(`/tickets?status=pending&showAll=true${q}`);
    expect(await ids(await list(''))).toEqual(sorted(Object.values(a.pending)));
    expect(await ids(await list(`&channels=${encodeURIComponent('["telegram"]')}`))).toEqual([
      a.pending.telegram,
    ]);
    expect(await ids(await list('&channels=telegram,webchat'))).toEqual(
      sorted([a.pending.telegram, a.pending.webchat]),
    );
    // A phone channel and a new one together; a duplicate is harmless.
    expect(await ids(await list('&channels=simulator,instagram,instagram'))).toEqual(
      sorted([a.pending.simulator, a.pending.instagram]),
    );
    // No ticket of that channel: an empty page, not everything.
    expect(await ids(await list('&channels=messenger'))).toEqual([]);
    // The closed list and the search tab take the filter too.
    expect(
      await ids(await t.as(a.admin).get('/tickets?status=closed&showAll=true&channels=["telegram"]')),
    ).toEqual([a.closedTelegram]);
    expect(
      await ids(await t.as(a.admin).get('/tickets?showAll=true&searchParam=Cliente&channels=["webchat"]')),
    ).toEqual([a.pending.webchat]);
  });

  test('an unknown channel or a malformed list is ERR_VALIDATION (400), never a 500', async () => {
    for (const bad of ['fax', '["telegram","fax"]', '[1]', '["telegram"', '{}'])
      await expectError(
        await t.as(a.admin).get(`/tickets?status=pending&channels=${encodeURIComponent(bad)}`),
        400,
        'ERR_VALIDATION',
      );
    await expectError(await t.as(a.admin).get('/ticket/kanban?channels=fax'), 400, 'ERR_VALIDATION');
  });

  test('the kanban board reads the same filter', async () => {
    const board = (q: string) => t.as(a.admin).get(`/ticket/kanban?showAll=true${q}`);
    expect(await ids(await board(''))).toEqual(sorted(Object.values(a.pending)));
    expect(await ids(await board('&channels=["telegram","instagram"]'))).toEqual(
      sorted([a.pending.telegram, a.pending.instagram]),
    );
  });

  test('each ticket carries its channel (the list icon reads it)', async () => {
    const res = await t.as(a.admin).get('/tickets?status=pending&showAll=true');
    const byId = new Map(
      ((await res.json()) as { tickets: { id: number; whatsapp: { channel: string } | null }[] }).tickets.map(
        (x) => [x.id, x.whatsapp?.channel],
      ),
    );
    for (const [channel, id] of Object.entries(a.pending)) expect(byId.get(id)).toBe(channel);
  });

  test("a second company's filter never shows the first's tickets, nor the other way round", async () => {
    const all = [...Object.values(a.pending), a.closedTelegram];
    for (const channels of ['["telegram"]', 'telegram,webchat,instagram,simulator']) {
      const seen = [
        ...(await ids(await t.as(b.admin).get(`/tickets?status=pending&showAll=true&channels=${channels}`))),
        ...(await ids(await t.as(b.admin).get(`/tickets?status=closed&showAll=true&channels=${channels}`))),
        ...(await ids(await t.as(b.admin).get(`/ticket/kanban?showAll=true&channels=${channels}`))),
      ];
      expect(seen.length).toBeGreaterThan(0);
      expect(seen.filter((id) => all.includes(id))).toEqual([]);
    }
    expect(
      await ids(await t.as(b.admin).get('/tickets?status=pending&showAll=true&channels=["telegram"]')),
    ).toEqual([b.pending.telegram]);
  });

  test('a plain user sees, through the filter, only the tickets the visibility rule lets them see', async () => {
    const user = await t.user(a.admin, 'user');
    // Queueless pending tickets are visible to a user allowed queueless ones (the default); none is theirs.
    const mine = await ids(await t.as(user).get('/tickets?status=open&channels=["telegram"]'));
    expect(mine).toEqual([]);
  });
});

describe('dashboard by channel', () => {
  test('GET /dashboard?channel= narrows every figure to that channel', async () => {
    const all = await (await t.as(a.admin).get('/dashboard?days=1')).json();
    expect(all.supportPending).toBe(4);
    expect(all.supportFinished).toBe(1);
    const tg = await (await t.as(a.admin).get('/dashboard?days=1&channel=telegram')).json();
    expect(tg).toMatchObject({ supportPending: 1, supportFinished: 1 });
    const wc = await (await t.as(a.admin).get('/dashboard?days=1&channel=webchat')).json();
    expect(wc).toMatchObject({ supportPending: 1, supportFinished: 0 });
    const day = await (await t.as(a.admin).get(`/dashboard/ticketsDay?${range}&channel=telegram`)).json();
    expect(day).toEqual([{ date: today, created: 2, closed: 1 }]);
    await expectError(await t.as(a.admin).get('/dashboard?days=1&channel=fax'), 400, 'ERR_VALIDATION');
  });

  test('GET /dashboard/ticketsChannel: created, closed and active tickets per channel', async () => {
    const rows = (await (await t.as(a.admin).get(`/dashboard/ticketsChannel?${range}`)).json()) as {
      channel: string | null;
      created: number;
      closed: number;
      active: number;
    }[];
    const of = (c: string) => rows.find((r) => r.channel === c);
    expect(of('telegram')).toEqual({ channel: 'telegram', created: 2, closed: 1, active: 1 });
    for (const c of ['simulator', 'webchat', 'instagram'])
      expect(of(c)).toEqual({ channel: c, created: 1, closed: 0, active: 1 });
    expect(rows.every((r) => (CHANNEL_KINDS as readonly (string | null)[]).includes(r.channel))).toBe(true);
    // The channel filter applies here too.
    const only = await (await t.as(a.admin).get(`/dashboard/ticketsChannel?${range}&channel=webchat`)).json();
    expect(only).toEqual([{ channel: 'webchat', created: 1, closed: 0, active: 1 }]);
  });

  test('a ticket whose connection was deleted counts under no channel', async () => {
    const c = await t.company('InboxOrphan');
    await ticket(c.id, null, 'pending');
    const rows = await (await t.as(c.admin).get(`/dashboard/ticketsChannel?${range}`)).json();
    expect(rows).toEqual([{ channel: null, created: 1, closed: 0, active: 1 }]);
  });

  test("another company's dashboard counts only its own tickets, whatever the channel asked", async () => {
    // B adds a second telegram ticket: A's figures must not move.
    const c = await connection(b.id, 'telegram');
    await ticket(b.id, c, 'pending');
    const bTg = await (await t.as(b.admin).get('/dashboard?days=1&channel=telegram')).json();
    expect(bTg.supportPending).toBe(2);
    const aTg = await (await t.as(a.admin).get('/dashboard?days=1&channel=telegram')).json();
    expect(aTg.supportPending).toBe(1);
    const rows = await (
      await t.as(b.admin).get(`/dashboard/ticketsChannel?${range}&channel=telegram`)
    ).json();
    expect(rows).toEqual([{ channel: 'telegram', created: 3, closed: 1, active: 2 }]);
    const user = await t.user(b.admin, 'user');
    await expectError(await t.as(user).get(`/dashboard/ticketsChannel?${range}`), 403, 'ERR_NO_PERMISSION');
  });
});

describe('plan limits count connections of any channel', () => {
  test('a plan of 4 connections takes four of different channels, and refuses a fifth of any', async () => {
    const su = await t.superuser();
    const plan = await (
      await t
        .as(su)
        .post('/plans', { name: unique('Quatro canais '), users: 3, connections: 4, queues: 3, value: 1 })
    ).json();
    const c = await t.company('InboxPlan', { planId: plan.id });
    // Two set up already (Telegram and Instagram, as their setup leaves them), two through the API.
    await connection(c.id, 'telegram');
    await connection(c.id, 'instagram');
    for (const channel of ['simulator', 'webchat'] as const) {
      const res = await t.as(c.admin).post('/whatsapp', { name: unique(channel), channel });
      expect(res.status, await res.clone().text()).toBe(201);
    }
    // Full: a fifth is refused whatever its channel (channels that need no settings to be created).
    for (const channel of ['simulator', 'baileys', 'webchat'] as const) {
      const res = await t.as(c.admin).post('/whatsapp', { name: unique('Mais'), channel });
      const body = await expectError(res, 403, 'ERR_NO_PERMISSION');
      expect(body.message).toMatch(/4 connections/);
    }
    expect((await q(c.id))[0]?.n).toBe(4);
  });
});

describe('campaigns only where the channel may write first', () => {
  const campaign = (whatsappId: number, over: Record<string, unknown> = {}) => ({
    name: unique('Camp'),
    message1: 'Olá {nome}',
    whatsappId,
    ...over,
  });

  test('a campaign on a website chat, Telegram, Instagram or Messenger connection is ERR_CAMPAIGN_CHANNEL', async () => {
    const messenger = await connection(a.id, 'messenger');
    for (const id of [a.conn.telegram, a.conn.webchat, a.conn.instagram, messenger]) {
      const res = await t.as(a.admin).post('/campaigns', campaign(id));
      const body = await expectError(res, 400, 'ERR_CAMPAIGN_CHANNEL');
      expect(body.message).toMatch(/only answers/);
    }
    // Scheduled (the start) is refused the same way.
    const later = new Date(Date.now() + 3 * 3600_000).toISOString();
    await expectError(
      await t.as(a.admin).post('/campaigns', campaign(a.conn.telegram, { scheduledAt: later })),
      400,
      'ERR_CAMPAIGN_CHANNEL',
    );
  });

  test('a simulator campaign is accepted, and moving it to a Telegram connection is refused', async () => {
    const ok = await t.as(a.admin).post('/campaigns', campaign(a.conn.simulator));
    expect(ok.status, await ok.clone().text()).toBe(201);
    const { id } = await ok.json();
    await expectError(
      await t.as(a.admin).put(`/campaigns/${id}`, { whatsappId: a.conn.telegram }),
      400,
      'ERR_CAMPAIGN_CHANNEL',
    );
    const still = await (await t.as(a.admin).get(`/campaigns/${id}`)).json();
    expect(still.whatsappId).toBe(a.conn.simulator);
  });

  test("another company's connection is not found, whatever its channel", async () => {
    await expectError(
      await t.as(b.admin).post('/campaigns', campaign(a.conn.simulator)),
      404,
      'ERR_NO_WAPP_FOUND',
    );
    await expectError(
      await t.as(b.admin).post('/campaigns', campaign(a.conn.telegram)),
      404,
      'ERR_NO_WAPP_FOUND',
    );
  });
});

describe("the external API's send and schedule by contact id or identity", () => {
  const api = (token: string, path: string, body: unknown) => t.request('POST', path, { token, body });
  async function tokenOf(admin: Session, whatsappId: number) {
    const res = await t.as(admin).post(`/whatsapp/${whatsappId}/token`);
    expect(res.status, await res.clone().text()).toBe(200);
    return ((await res.json()) as { token: string }).token;
  }
  async function telegramContact(companyId: number, chatId: string) {
    const [c] = await db
      .insert(contacts)
      .values({ companyId, name: `TG ${chatId}`, number: '' })
      .returning();
    await db
      .insert(contactIdentities)
      .values({ companyId, contactId: c!.id, kind: 'telegram', value: chatId });
    return c!.id;
  }
  const outboundTo = async (messageId: number) =>
    (await db.select().from(outboundQueue).where(eq(outboundQueue.messageId, messageId)))[0]?.job as
      { to: string } | undefined;

  test('a Telegram connection sends to the identity given, or to the identity of the contact id given', async () => {
    const token = await tokenOf(a.admin, a.conn.telegram);
    const contactId = await telegramContact(a.id, '700100');
    const byIdentity = await api(token, '/messages/send', {
      identity: { kind: 'telegram', value: '700100' },
      body: 'Seu pedido saiu',
    });
    expect(byIdentity.status, await byIdentity.clone().text()).toBe(201);
    const first = await byIdentity.json();
    expect(first.contactId).toBe(contactId);
    const [ticketRow] = await db.select().from(tickets).where(eq(tickets.id, first.ticketId));
    expect(ticketRow).toMatchObject({ whatsappId: a.conn.telegram, contactId });
    // The outbound job goes to the chat id (the identity), never to a phone number.
    expect((await outboundTo(first.messageId))?.to).toBe('700100');
    const byId = await api(token, '/messages/send', { contactId, body: 'Chegou?' });
    expect(byId.status, await byId.clone().text()).toBe(201);
    const second = await byId.json();
    expect(second).toMatchObject({ contactId, ticketId: first.ticketId });
    expect((await outboundTo(second.messageId))?.to).toBe('700100');
  });

  test('a contact the connection cannot reach is ERR_WAPP_INVALID_CONTACT, and no ticket is opened', async () => {
    const token = await tokenOf(a.admin, a.conn.telegram);
    const [phone] = await db
      .insert(contacts)
      .values({ companyId: a.id, name: 'Só telefone', number: '5511955550001' })
      .returning();
    await expectError(
      await api(token, '/messages/send', { contactId: phone!.id, body: 'Oi' }),
      400,
      'ERR_WAPP_INVALID_CONTACT',
    );
    await expectError(
      await api(token, '/messages/send', { number: '5511955550001', body: 'Oi' }),
      400,
      'ERR_WAPP_INVALID_CONTACT',
    );
    const opened = await db
      .select()
      .from(tickets)
      .where(and(eq(tickets.contactId, phone!.id), eq(tickets.companyId, a.id)));
    expect(opened).toEqual([]);
    // A phone channel and a contact with only a Telegram identity: the same refusal.
    const simToken = await tokenOf(a.admin, a.conn.simulator);
    const tgOnly = await telegramContact(a.id, '700200');
    await expectError(
      await api(simToken, '/messages/send', { contactId: tgOnly, body: 'Oi' }),
      400,
      'ERR_WAPP_INVALID_CONTACT',
    );
  });

  test('exactly one recipient; an unknown identity or id is not found', async () => {
    const token = await tokenOf(a.admin, a.conn.telegram);
    const contactId = await telegramContact(a.id, '700300');
    for (const body of [
      { body: 'Oi' },
      { contactId, number: '5511955550002', body: 'Oi' },
      { contactId, identity: { kind: 'telegram', value: '700300' }, body: 'Oi' },
      { identity: { kind: 'fax', value: '1' }, body: 'Oi' },
      { identity: { kind: 'telegram', value: '' }, body: 'Oi' },
    ])
      await expectError(await api(token, '/messages/send', body), 400, 'ERR_VALIDATION');
    await expectError(
      await api(token, '/messages/send', { identity: { kind: 'telegram', value: '999999' }, body: 'Oi' }),
      404,
      'ERR_NO_CONTACT_FOUND',
    );
    await expectError(
      await api(token, '/messages/send', { contactId: 2147483000, body: 'Oi' }),
      404,
      'ERR_NO_CONTACT_FOUND',
    );
  });

  test("another company's token reaches none of the first's contacts, by id or by identity", async () => {
    const contactId = await telegramContact(a.id, '700400');
    const bToken = await tokenOf(b.admin, b.conn.telegram);
    await expectError(
      await api(bToken, '/messages/send', { contactId, body: 'Oi' }),
      404,
      'ERR_NO_CONTACT_FOUND',
    );
    await expectError(
      await api(bToken, '/messages/send', { identity: { kind: 'telegram', value: '700400' }, body: 'Oi' }),
      404,
      'ERR_NO_CONTACT_FOUND',
    );
    await expectError(
      await api(bToken, '/messages/schedule', {
        contactId,
        body: 'Oi',
        sendAt: new Date(Date.now() + 3600_000).toISOString(),
      }),
      404,
      'ERR_NO_CONTACT_FOUND',
    );
    const touched = await db.select().from(tickets).where(eq(tickets.contactId, contactId));
    expect(touched).toEqual([]);
  });

  test('a schedule by identity is stored for that contact on the Telegram connection', async () => {
    const token = await tokenOf(a.admin, a.conn.telegram);
    const contactId = await telegramContact(a.id, '700500');
    const res = await api(token, '/messages/schedule', {
      identity: { kind: 'telegram', value: '700500' },
      body: 'Lembrete',
      sendAt: new Date(Date.now() + 3600_000).toISOString(),
    });
    expect(res.status, await res.clone().text()).toBe(201);
    expect((await res.json()).contactId).toBe(contactId);
  });
});
