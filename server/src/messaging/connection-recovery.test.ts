import { afterAll, describe, expect, test } from 'vitest';
import { and, asc, eq } from 'drizzle-orm';
import { proto, type UserFacingSocketConfig, type WAMessage } from 'baileys';
import { contacts, messages, tickets, whatsapps } from '../db/schema/index.js';
import { baileysInbox, connectionOutages } from '../db/schema/connection-recovery.js';
import { testApp, waitFor, type Session } from '../../test/helpers.js';
import { baileysFixture, ScriptedSocket } from '../../test/fake-baileys.js';
import { webhookReceiver } from '../../test/webhook-receiver.js';
import type { BaileysSocket, MakeSocket } from './channels/baileys/baileys-channel.js';

/** The scripted socket, plus what a call's rejection needs. */
class CallSocket extends ScriptedSocket {
  readonly rejected: { id: string; from: string }[] = [];
  rejectCall = async (id: string, from: string) => {
    this.rejected.push({ id, from });
  };
  drop() {
    const error = Object.assign(new Error('connection lost'), { output: { statusCode: 408 } });
    this.emit('connection.update', { connection: 'close', lastDisconnect: { error, date: new Date() } });
  }
}
const sockets: CallSocket[] = [];
const makeSocket = ((config: UserFacingSocketConfig) => {
  const s = new CallSocket(config);
  sockets.push(s);
  return s as unknown as BaileysSocket;
}) as MakeSocket;
const last = () => sockets[sockets.length - 1]!;

const receiver = await webhookReceiver();
afterAll(() => receiver.close());
const t = await testApp({ env: { ALLOW_PRIVATE_URLS: 'true' }, deps: { baileysSocket: makeSocket } });
const db = t.database.db;

/** A new company with a CONNECTED Baileys connection (greeting set: a live new ticket gets it). */
async function baileysConnection(name: string, extra: Record<string, unknown> = {}) {
  const c = await t.company(name);
  const before = sockets.length;
  const res = await t.as(c.admin).post('/whatsapp', {
    name: `${name} WA`,
    channel: 'baileys',
    greetingMessage: 'Olá! Bem-vindo.',
    ...extra,
  });
  expect(res.status, await res.clone().text()).toBe(201);
  const w = await res.json();
  await waitFor(() => sockets.length > before);
  last().open();
  await connected(c.admin, w.id);
  return { ...c, whatsappId: w.id as number, socket: last() };
}
const connected = (admin: Session, id: number) =>
  waitFor(async () => (await (await t.as(admin).get(`/whatsapp/${id}`)).json()).status === 'CONNECTED');

const now = () => Math.floor(Date.now() / 1000);
/** A text as WhatsApp hands it over (`fromMe`: sent from the phone itself). */
function text(id: string, body: string, number: string, ts: number, fromMe = false): WAMessage {
  return {
    ...baileysFixture('text-conversation'),
    key: { remoteJid: `${number}@s.whatsapp.net`, fromMe, id },
    pushName: fromMe ? undefined : 'Cliente',
    messageTimestamp: ts,
    message: proto.Message.fromObject({ conversation: body }),
  };
}

const rowsOf = (whatsappId: number, number: string) =>
  db
    .select({ m: messages })
    .from(messages)
    .innerJoin(contacts, eq(contacts.id, messages.contactId))
    .where(and(eq(messages.whatsappId, whatsappId), eq(contacts.number, number)))
    .orderBy(asc(messages.createdAt), asc(messages.id))
    .then((r) => r.map((x) => x.m));
const sentTo = (s: ScriptedSocket, number: string) => s.sent.filter((x) => x.jid.startsWith(number));

/** Drops the connection and brings it back on a new socket: an outage. */
async function outage(admin: Session, whatsappId: number) {
  const before = sockets.length;
  last().drop();
  await waitFor(() => sockets.length > before, 20_000);
  last().open();
  await connected(admin, whatsappId);
  return last();
}

describe('#33.3 recovering the gap (Baileys)', () => {
  test('offline messages and history delivered on reconnect: stored once, in order, with their own times, recovered, without greeting or bot; the phone’s own as the company’s; old history and duplicates left out', async () => {
    const a = await baileysConnection('GapA');
    // Live, a new customer is greeted (what recovered ones must not get).
    a.socket.upsert([text('LIVE-1', 'oi', '5511900000001', now())]);
    await waitFor(() => sentTo(a.socket, '5511900000001').length === 1);

    const s = await outage(a.admin, a.whatsappId);
    const t0 = now();
    // WhatsApp's pending notifications (type append), a customer's three and one the phone sent meanwhile.
    s.upsert(
      [
        text('GAP-1', 'primeira', '5511900000002', t0 + 1),
        text('GAP-2', 'segunda', '5511900000002', t0 + 2),
        text('GAP-ME', 'respondi pelo celular', '5511900000002', t0 + 3, true),
        text('GAP-3', 'terceira', '5511900000002', t0 + 4),
        text('GAP-OTHER', 'outro cliente', '5511900000003', t0 + 2),
      ],
      'append',
    );
    // History sync, newest first: a duplicate, one more of the gap, and old history (two days ago).
    s.emit('messaging-history.set', {
      chats: [],
      contacts: [],
      messages: [
        text('GAP-HIST', 'pelo histórico', '5511900000004', t0 + 5),
        text('GAP-2', 'segunda', '5511900000002', t0 + 2),
        text('OLD-1', 'antiga', '5511900000004', t0 - 2 * 86400),
      ],
      isLatest: false,
    });
    const rows = await waitFor(async () => {
      const r = await rowsOf(a.whatsappId, '5511900000002');
      return r.length === 4 && r;
    });
    expect(rows.map((m) => [m.providerId, m.fromMe, m.createdAt.getTime() / 1000])).toEqual([
      ['GAP-1', false, t0 + 1],
      ['GAP-2', false, t0 + 2],
      ['GAP-ME', true, t0 + 3],
      ['GAP-3', false, t0 + 4],
    ]);
    const hist = await waitFor(async () => {
      const r = await rowsOf(a.whatsappId, '5511900000004');
      return r.length ? r : undefined;
    });
    await waitFor(async () => (await db.select().from(baileysInbox)).length === 0);
    await t.app.services.bus.idle();
    expect(hist.map((m) => m.providerId)).toEqual(['GAP-HIST']);
    for (const m of [...rows, ...hist]) expect(m.data).toMatchObject({ recovered: true });
    // One ticket, waiting for people, its last message the newest; nothing was said to the customers.
    const [ticket] = await db.select().from(tickets).where(eq(tickets.id, rows[0]!.ticketId));
    expect(ticket).toMatchObject({ status: 'pending', lastMessage: 'terceira', unreadMessages: 3 });
    expect(sentTo(s, '5511900000002')).toEqual([]);
    expect(sentTo(s, '5511900000003')).toEqual([]);
    expect(sentTo(s, '5511900000004')).toEqual([]);
    // The API shows the mark; the connection shows the recovery.
    const list = await (await t.as(a.admin).get(`/messages/${ticket!.id}`)).json();
    expect(list.messages.find((m: { id: number }) => m.id === rows[0]!.id).data).toMatchObject({
      recovered: true,
    });
    const w = await (await t.as(a.admin).get(`/whatsapp/${a.whatsappId}`)).json();
    expect(w.recovery).toMatchObject({ count: 6 });
    expect(Date.parse(w.recovery.endedAt)).toBeGreaterThanOrEqual(Date.parse(w.recovery.startedAt));

    // The same delivery again (WhatsApp or a restart): nothing new.
    s.upsert([text('GAP-1', 'primeira', '5511900000002', t0 + 1)], 'append');
    await waitFor(async () => (await db.select().from(baileysInbox)).length === 0);
    expect(await rowsOf(a.whatsappId, '5511900000002')).toHaveLength(4);

    // A second company sees neither the recovered messages nor the recovery.
    const b = await t.company('GapB');
    expect((await t.as(b.admin).get(`/messages/${ticket!.id}`)).status).toBe(404);
    expect((await t.as(b.admin).get(`/whatsapp/${a.whatsappId}`)).status).toBe(404);
    const bList = await (await t.as(b.admin).get('/whatsapp')).json();
    expect(JSON.stringify(bList)).not.toContain('GapA');
  });
});

describe('#33.3 an outage begins when the connection’s process was last heard', () => {
  test('a CONNECTED connection whose process died an hour ago: its outage starts then, not at the takeover', async () => {
    const c = await t.company('GapOrphan');
    const [w] = await db
      .insert(whatsapps)
      .values({
        companyId: c.id,
        name: 'Orphan',
        channel: 'simulator',
        status: 'CONNECTED',
        leaseOwner: 'a-process-gone',
        leaseExpiresAt: new Date(Date.now() - 3600_000),
      })
      .returning();
    // The session manager's tick opens the outage, takes the connection over, and it is CONNECTED again.
    const outage = await waitFor(async () => {
      const [o] = await db.select().from(connectionOutages).where(eq(connectionOutages.whatsappId, w!.id));
      return o?.endedAt ? o : undefined;
    });
    // Last heard: the lease's last renewal (its expiry minus its 20 s).
    expect(Math.abs(outage.startedAt.getTime() - (Date.now() - 3600_000 - 20_000))).toBeLessThan(30_000);
    expect(outage.companyId).toBe(c.id);
  });
});

describe('#33.3 a recovered conversation on a connection with one queue', () => {
  test('lands pending in that queue, with no queue greeting', async () => {
    const c = await t.company('GapQueue');
    const q = await t.as(c.admin).post('/queue', {
      name: 'Suporte',
      color: '#1A2B3C',
      greetingMessage: 'Você está na fila do Suporte.',
    });
    expect(q.status, await q.clone().text()).toBe(201);
    const queue = await q.json();
    const before = sockets.length;
    const res = await t.as(c.admin).post('/whatsapp', {
      name: 'GapQueue WA',
      channel: 'baileys',
      queueIds: [queue.id],
    });
    expect(res.status, await res.clone().text()).toBe(201);
    const whatsappId = (await res.json()).id as number;
    await waitFor(() => sockets.length > before);
    last().open();
    await connected(c.admin, whatsappId);
    const s = await outage(c.admin, whatsappId);
    s.upsert([text('GAPQ-1', 'escrevi durante a queda', '5511900000030', now())], 'append');
    const [m] = await waitFor(async () => {
      const r = await rowsOf(whatsappId, '5511900000030');
      return r.length ? r : undefined;
    });
    const ticket = await waitFor(async () => {
      const [x] = await db.select().from(tickets).where(eq(tickets.id, m!.ticketId));
      return x?.queueId ? x : undefined;
    });
    expect(ticket).toMatchObject({ queueId: queue.id, status: 'pending', userId: null });
    await t.app.services.bus.idle();
    expect(sentTo(s, '5511900000030')).toEqual([]);
  });
});

describe('#33.4 calls', () => {
  test('rejected with the message, logged on the open ticket, call.received delivered; a new ticket only when set; another company sees nothing', async () => {
    const a = await baileysConnection('CallA', {
      callMode: 'reject',
      callRejectMessage: 'Não atendemos ligações, escreva aqui.',
    });
    expect(
      (
        await t.as(a.admin).post('/webhooks', {
          name: 'Chamadas',
          url: receiver.url,
          events: ['call.received'],
        })
      ).status,
    ).toBe(201);
    a.socket.upsert([text('CALL-PRE', 'oi', '5511900000010', now())]);
    const [first] = await waitFor(async () => {
      const r = await rowsOf(a.whatsappId, '5511900000010');
      return r.length ? r : undefined;
    });
    const offer = (id: string, number: string) => ({
      chatId: `${number}@s.whatsapp.net`,
      from: `${number}@s.whatsapp.net`,
      id,
      date: new Date(),
      isVideo: false,
      isGroup: false,
      status: 'offer',
      offline: false,
    });
    a.socket.emit('call', [offer('CALL-1', '5511900000010')]);
    const line = await waitFor(async () =>
      (await rowsOf(a.whatsappId, '5511900000010')).find((m) => m.providerId === 'CALL-1'),
    );
    expect(line).toMatchObject({ ticketId: first!.ticketId, mediaType: 'call_log', fromMe: false });
    expect(line.data).toMatchObject({ rejected: true });
    expect(a.socket.rejected).toEqual([{ id: 'CALL-1', from: '5511900000010@s.whatsapp.net' }]);
    expect(sentTo(a.socket, '5511900000010').map((x) => x.content)).toContainEqual({
      text: 'Não atendemos ligações, escreva aqui.',
    });
    // What the caller was told is in the conversation.
    await waitFor(async () =>
      (await rowsOf(a.whatsappId, '5511900000010')).find(
        (m) => m.fromMe && m.body === 'Não atendemos ligações, escreva aqui.',
      ),
    );
    const hook = await waitFor(() => receiver.received.find((h) => h.json.event === 'call.received'), 30_000);
    expect(hook.json.companyId).toBe(a.id);
    expect(hook.json.data).toMatchObject({
      call: { id: 'CALL-1', from: '5511900000010', rejected: true, isVideo: false, whatsappId: a.whatsappId },
      ticketId: first!.ticketId,
    });

    // A caller without an open ticket: rejected, no ticket...
    a.socket.emit('call', [offer('CALL-2', '5511900000011')]);
    await waitFor(() => a.socket.rejected.length === 2);
    await waitFor(
      () => receiver.received.filter((h) => h.json.event === 'call.received').length === 2,
      30_000,
    );
    expect(await rowsOf(a.whatsappId, '5511900000011')).toEqual([]);
    // ...unless the connection says calls open tickets; then a pending ticket with the line, and no greeting.
    expect(
      (await t.as(a.admin).put(`/whatsapp/${a.whatsappId}`, { callOpensTicket: true, callMode: 'ring' }))
        .status,
    ).toBe(200);
    const toldBefore = sentTo(a.socket, '5511900000011').length;
    a.socket.emit('call', [offer('CALL-3', '5511900000011')]);
    const opened = await waitFor(async () => {
      const r = await rowsOf(a.whatsappId, '5511900000011');
      return r.length ? r : undefined;
    });
    expect(opened.map((m) => [m.providerId, m.mediaType])).toEqual([['CALL-3', 'call_log']]);
    expect(a.socket.rejected).toHaveLength(2); // let ring
    await t.app.services.bus.idle();
    expect(sentTo(a.socket, '5511900000011')).toHaveLength(toldBefore);
    const [ticket] = await db.select().from(tickets).where(eq(tickets.id, opened[0]!.ticketId));
    expect(ticket).toMatchObject({ status: 'pending' });

    // Another company: the call line and its ticket are not theirs.
    const b = await t.company('CallB');
    expect((await t.as(b.admin).get(`/messages/${first!.ticketId}`)).status).toBe(404);
    expect((await t.as(b.admin).get(`/tickets/${opened[0]!.ticketId}`)).status).toBe(404);
  });
});

describe('#33.5 groups', () => {
  test('ignored by default; one ticket per group when set, each message with its sender’s name, never greeted', async () => {
    const a = await baileysConnection('GroupA');
    const group = (id: string) => ({
      ...baileysFixture('group'),
      key: { ...baileysFixture('group').key, id },
    });
    a.socket.upsert([group('G-1')]);
    a.socket.upsert([text('G-AFTER', 'oi', '5511900000020', now())]);
    await waitFor(async () =>
      (await rowsOf(a.whatsappId, '5511900000020')).some((m) => m.providerId === 'G-AFTER'),
    );
    const none = await db.select().from(messages).where(eq(messages.providerId, 'G-1'));
    expect(none).toEqual([]);

    expect((await t.as(a.admin).put(`/whatsapp/${a.whatsappId}`, { groupMode: 'tickets' })).status).toBe(200);
    expect((await (await t.as(a.admin).get(`/whatsapp/${a.whatsappId}`)).json()).groupMode).toBe('tickets');
    a.socket.upsert([group('G-2')]);
    a.socket.upsert([{ ...group('G-3'), pushName: 'Bruno' }]);
    const rows = await waitFor(async () => {
      const r = await db
        .select()
        .from(messages)
        .where(eq(messages.whatsappId, a.whatsappId))
        .then((x) => x.filter((m) => m.providerId === 'G-2' || m.providerId === 'G-3'));
      return r.length === 2 && r;
    });
    expect(rows[0]!.ticketId).toBe(rows[1]!.ticketId);
    expect(rows.map((m) => (m.data as { participantName?: string }).participantName).sort()).toEqual([
      'Ana Lima',
      'Bruno',
    ]);
    expect(rows[0]!.participant).toBe('5521998765432');
    const [ticket] = await db.select().from(tickets).where(eq(tickets.id, rows[0]!.ticketId));
    expect(ticket).toMatchObject({ isGroup: true, status: 'pending' });
    await t.app.services.bus.idle();
    expect(a.socket.sent.filter((x) => x.jid.endsWith('@g.us'))).toEqual([]);
    // The API says so too; another company cannot read it.
    const list = await (await t.as(a.admin).get(`/messages/${ticket!.id}`)).json();
    expect(
      list.messages.map((m: { data: { participantName?: string } }) => m.data?.participantName),
    ).toContain('Ana Lima');
    const b = await t.company('GroupB');
    expect((await t.as(b.admin).get(`/messages/${ticket!.id}`)).status).toBe(404);
    // Settings are validated by the shared schema.
    expect((await t.as(a.admin).put(`/whatsapp/${a.whatsappId}`, { groupMode: 'all' })).status).toBe(400);
    expect((await t.as(b.admin).put(`/whatsapp/${a.whatsappId}`, { groupMode: 'ignore' })).status).toBe(404);
  });
});
