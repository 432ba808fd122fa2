import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { and, eq } from 'drizzle-orm';
import { freshDatabase } from '../../test/helpers.js';
import { seed } from '../db/seed.js';
import type { Database } from '../db/client.js';
import { companies, messages, ticketHistories, tickets, whatsapps } from '../db/schema/index.js';
import type { Events } from '../realtime/events.js';
import { ticketQueries } from '../modules/tickets/ticket-queries.js';
import { messagePage } from '../modules/messages/message-queries.js';
import { mediaStore } from './media-store.js';
import { inboundPipeline } from './inbound-pipeline.js';
import type { InboundMessage } from './channel.js';
import type { ConnectionRef } from './session-manager.js';
import { proto, type WAMessage } from 'baileys';
import { mapMessage } from './channels/baileys/baileys-mapping.js';

let database: Database & { drop(): Promise<void> };
let ref: ConnectionRef;
const sent: { room: string | string[]; entity: string; payload: Record<string, unknown> }[] = [];
const events: Events = {
  toCompany: () => undefined,
  toAdmins: () => undefined,
  toUser: () => undefined,
  toRoom: (room, _cid, entity, payload) => void sent.push({ room, entity, payload: payload as never }),
  toRoomNamed: () => undefined,
  endSessions: () => undefined,
};
let pipeline: ReturnType<typeof inboundPipeline>;

let n = 0;
const msg = (from: string, extra: Partial<InboundMessage> = {}): InboundMessage => ({
  providerId: `P${Date.now()}-${n++}`,
  kind: 'message',
  from,
  replyTo: from,
  name: `Cliente ${from}`,
  fromMe: false,
  isGroup: false,
  body: `hello ${n}`,
  timestamp: new Date(),
  ...extra,
});

const ticketOf = async (whatsappId: number, ticketId: number) =>
  (
    await database.db
      .select()
      .from(tickets)
      .where(and(eq(tickets.id, ticketId), eq(tickets.whatsappId, whatsappId)))
  )[0]!;

beforeAll(async () => {
  database = await freshDatabase();
  await seed(database.db, {
    superuserEmail: 'super@pipe.local',
    superuserPassword: 'Super@12345',
    demo: true,
    print: () => undefined,
  });
  const [w] = await database.db.select().from(whatsapps).where(eq(whatsapps.channel, 'simulator'));
  ref = { id: w!.id, companyId: w!.companyId, channel: 'simulator', channelConfig: {} };
  pipeline = inboundPipeline({
    db: database.db,
    events,
    media: mediaStore(mkdtempSync(join(tmpdir(), 'recado-pipe-'))),
    log: { warn: () => undefined, error: () => undefined },
  });
});
afterAll(() => database?.drop());

describe('inbound pipeline', () => {
  test('a new customer opens a pending ticket with its history; events carry the HTTP shapes', async () => {
    sent.length = 0;
    const r = await pipeline.message(ref, msg('5511987650001'));
    expect(r.status).toBe('stored');
    const ticket = await ticketOf(ref.id, r.ticketId!);
    expect(ticket).toMatchObject({ status: 'pending', unreadMessages: 1 });
    const hist = await database.db
      .select()
      .from(ticketHistories)
      .where(eq(ticketHistories.ticketId, ticket.id));
    expect(hist.map((h) => h.action)).toEqual(['create']);
    const created = sent.find((e) => e.entity === 'appMessage')!.payload;
    const view = await ticketQueries.byId(database.db, ref.companyId, ticket.id);
    expect(created.ticket).toEqual(view);
    expect(created.contact).toEqual(view!.contact);
    const page = await messagePage(database.db, ticket.id, 1);
    expect(created.message).toEqual(page.messages[0]);
  });

  test('a redelivery is a no-op, alone or inside a batch; the ticket counts once', async () => {
    const first = msg('5511987650002');
    const r = await pipeline.message(ref, first);
    expect((await pipeline.message(ref, first)).status).toBe('duplicate');
    const other = msg('5511987650003');
    const batch = await pipeline.messages(ref, [first, other, first]);
    expect(batch.map((b) => (b.status === 'fulfilled' ? b.value.status : 'rejected'))).toEqual([
      'duplicate',
      'stored',
      'duplicate',
    ]);
    expect((await ticketOf(ref.id, r.ticketId!)).unreadMessages).toBe(1);
    const rows = await database.db.select().from(messages).where(eq(messages.providerId, first.providerId));
    expect(rows).toHaveLength(1);
  });

  test('a batch with several messages of one customer keeps their order and makes one ticket', async () => {
    const from = '5511987650004';
    const ms = [msg(from), msg(from), msg(from), msg('5511987650005')];
    const results = await pipeline.messages(ref, ms);
    const ids = results.map((r) => (r.status === 'fulfilled' ? r.value : null));
    expect(ids.every((r) => r?.status === 'stored')).toBe(true);
    expect(new Set(ids.slice(0, 3).map((r) => r!.ticketId)).size).toBe(1);
    expect(ids[0]!.messageId! < ids[1]!.messageId! && ids[1]!.messageId! < ids[2]!.messageId!).toBe(true);
    expect((await ticketOf(ref.id, ids[0]!.ticketId!)).unreadMessages).toBe(3);
  });

  test('connections of two companies handed in together: one contact per company, a ticket per connection', async () => {
    // Handed in during one turn of the loop, they share one batch statement.
    const [w2] = await database.db
      .insert(whatsapps)
      .values({ companyId: ref.companyId, name: 'Segundo', channel: 'simulator' })
      .returning();
    const other = (await database.db.select().from(companies)).find((c) => c.id !== ref.companyId)!;
    const [w3] = await database.db
      .insert(whatsapps)
      .values({ companyId: other.id, name: 'Outra', channel: 'simulator' })
      .returning();
    const ref2 = { ...ref, id: w2!.id };
    const ref3 = { ...ref, id: w3!.id, companyId: other.id };
    const number = '5511987659999';
    const results = await Promise.all(
      [ref, ref2, ref3].map((r) => pipeline.messages(r, [msg(number, { body: `via ${r.id}` })])),
    );
    const ids = results.map((r) => {
      expect(r[0]).toMatchObject({ status: 'fulfilled', value: { status: 'stored' } });
      return (r[0] as PromiseFulfilledResult<{ ticketId: number }>).value.ticketId;
    });
    const [t1, t2, t3] = await Promise.all(
      ids.map(async (id) => (await database.db.select().from(tickets).where(eq(tickets.id, id)))[0]!),
    );
    expect([t1!.whatsappId, t2!.whatsappId, t3!.whatsappId]).toEqual([ref.id, ref2.id, ref3.id]);
    expect(t1!.contactId).toBe(t2!.contactId);
    expect(t3!.contactId).not.toBe(t1!.contactId);
    expect([t1!.companyId, t2!.companyId, t3!.companyId]).toEqual([ref.companyId, ref.companyId, other.id]);
    const own = await database.db.select().from(messages).where(eq(messages.ticketId, t3!.id));
    expect(own.map((m) => [m.body, m.companyId, m.whatsappId])).toEqual([
      [`via ${ref3.id}`, other.id, ref3.id],
    ]);
  });

  test('two first messages of a new customer at the same time still make one ticket', async () => {
    const from = '5511987650008';
    const [a, b] = await Promise.all([pipeline.message(ref, msg(from)), pipeline.message(ref, msg(from))]);
    expect(a!.ticketId).toBe(b!.ticketId);
    expect((await ticketOf(ref.id, a!.ticketId!)).unreadMessages).toBe(2);
  });

  test('a quoted message is linked; a call touches only an active ticket; a hidden id stays apart', async () => {
    const base = msg('5511987650006');
    const r = await pipeline.message(ref, base);
    const reply = await pipeline.message(ref, msg('5511987650006', { quotedProviderId: base.providerId }));
    const [row] = await database.db.select().from(messages).where(eq(messages.id, reply.messageId!));
    expect(row!.quotedMsgId).toBe(r.messageId);

    expect((await pipeline.message(ref, msg('5511987650007', { kind: 'call', body: '' }))).status).toBe(
      'ignored',
    );
    const call = await pipeline.message(ref, msg('5511987650006', { kind: 'call', body: '' }));
    expect(call).toMatchObject({ status: 'stored', ticketId: r.ticketId });

    const lid = await pipeline.message(ref, msg('', { lid: '123456789@lid', name: 'Hidden' }));
    expect(lid.status).toBe('stored');
    const again = await pipeline.message(ref, msg('', { lid: '123456789@lid' }));
    expect(again.ticketId).toBe(lid.ticketId);
    const view = await ticketQueries.byId(database.db, ref.companyId, lid.ticketId!);
    expect(view!.contact.number).toBe('');
  });

  test('a Baileys message with an edge emoji, a lone surrogate, NUL bytes or 1 MB of text is stored, batched or alone', async () => {
    const wa = (id: string, number: string, text: string): WAMessage =>
      ({
        key: { remoteJid: `${number}@s.whatsapp.net`, fromMe: false, id },
        messageTimestamp: Math.floor(Date.now() / 1000),
        pushName: 'Nul\u0000 \ud83dName',
        message: proto.Message.fromObject({ conversation: text }),
      }) as WAMessage;
    const edge = 'a'.repeat(254) + '😀 end';
    const big = '😀'.repeat(512 * 1024); // 1 MB of UTF-16 units
    const texts = [edge, 'half \ud83d emoji', 'nul\u0000byte', big];
    // One customer each, in one batch (the channel's path), then each alone for a second customer.
    const batch = texts.map((text, i) => mapMessage(wa(`BAEB${i}`, `55119876510${i}0`, text))!);
    const settled = await pipeline.messages(ref, batch);
    expect(settled.map((r) => r.status === 'fulfilled' && r.value.status)).toEqual(texts.map(() => 'stored'));
    for (const [i, text] of texts.entries())
      expect((await pipeline.message(ref, mapMessage(wa(`BAES${i}`, '5511987651099', text))!)).status).toBe(
        'stored',
      );

    const stored = await database.db.select().from(messages).where(eq(messages.whatsappId, ref.id));
    const body = (id: string) => stored.find((m) => m.providerId === id)!.body;
    expect(body('BAEB0')).toBe(edge);
    expect(body('BAEB1')).toBe('half \ufffd emoji');
    expect(body('BAEB2')).toBe('nulbyte');
    expect(body('BAEB3')).toHaveLength(big.length);
    const last = stored.find((m) => m.providerId === 'BAES3')!;
    expect((await ticketOf(ref.id, last.ticketId)).lastMessage).toBe('😀'.repeat(127));
    const first = stored.find((m) => m.providerId === 'BAEB0')!;
    expect((await ticketOf(ref.id, first.ticketId)).lastMessage).toBe('a'.repeat(254));
  });
});
