import { describe, expect, test } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { proto, type WAMessage } from 'baileys';
import type { Socket } from 'socket.io-client';
import { messages } from '../../db/schema/index.js';
import { expectError, testApp, waitFor } from '../../../test/helpers.js';
import { baileysFixture, scriptedBaileys } from '../../../test/fake-baileys.js';

const baileys = scriptedBaileys();
const t = await testApp({ deps: { baileysSocket: baileys.makeSocket } });
const db = t.database.db;

/** A company with a CONNECTED Baileys connection, a customer's message and the ticket accepted. */
async function conversation(name: string, number: string) {
  const c = await t.company(name);
  const before = baileys.sockets.length;
  const w = await (await t.as(c.admin).post('/whatsapp', { name: `${name} WA`, channel: 'baileys' })).json();
  await waitFor(() => baileys.sockets.length > before);
  const socket = baileys.last();
  socket.open();
  await waitFor(
    async () => (await (await t.as(c.admin).get(`/whatsapp/${w.id}`)).json()).status === 'CONNECTED',
  );
  const base = baileysFixture('text-conversation');
  const providerId = `IN-${name}`;
  socket.upsert([
    {
      ...base,
      key: { remoteJid: `${number}@s.whatsapp.net`, fromMe: false, id: providerId },
      message: proto.Message.fromObject({ conversation: 'Oi, tudo bem?' }),
    },
  ]);
  const inbound = await waitFor(async () => {
    const [m] = await db
      .select()
      .from(messages)
      .where(and(eq(messages.whatsappId, w.id), eq(messages.providerId, providerId)));
    return m;
  });
  expect((await t.as(c.admin).put(`/tickets/${inbound.ticketId}`, { status: 'open' })).status).toBe(200);
  return { ...c, whatsappId: w.id as number, socket, inbound, number };
}

/** The next `appMessage` update of a message on a socket. */
const nextUpdate = (s: Socket, companyId: number, messageId: number, ms = 5000) =>
  new Promise<{ message: { id: number; data: Record<string, unknown> | null } }>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('no appMessage update')), ms);
    const on = (p: { action: string; message: { id: number; data: Record<string, unknown> | null } }) => {
      if (p.action !== 'update' || p.message.id !== messageId) return;
      clearTimeout(timer);
      s.off(`company-${companyId}-appMessage`, on);
      resolve(p);
    };
    s.on(`company-${companyId}-appMessage`, on);
  });

describe('#33.7 reactions on Baileys', () => {
  test('customer reacts → shown on the message, live; attendant reacts → the socket sends WhatsApp’s react; idempotent; removal', async () => {
    const a = await conversation('ReactA', '5511955550001');
    const watcher = await t.socket(a.admin.token);
    const joined = await new Promise((r) => watcher.emit('joinChatBox', String(a.inbound.ticketId), r));
    expect(joined).toEqual({ ok: true });

    // The attendant answers; the customer reacts to that answer on the phone.
    const reply = await (
      await t.as(a.admin).post(`/messages/${a.inbound.ticketId}`, { body: 'Tudo!' })
    ).json();
    expect(reply.ack).toBeGreaterThanOrEqual(1);
    const [sentRow] = await db.select().from(messages).where(eq(messages.id, reply.id));
    const live = nextUpdate(watcher, a.id, reply.id);
    const reaction: WAMessage = {
      ...baileysFixture('reaction'),
      key: { remoteJid: `${a.number}@s.whatsapp.net`, fromMe: false, id: 'REACT-1' },
      message: proto.Message.fromObject({
        reactionMessage: {
          key: { remoteJid: `${a.number}@s.whatsapp.net`, fromMe: true, id: sentRow!.providerId },
          text: '👍',
          senderTimestampMs: Date.now(),
        },
      }),
    };
    a.socket.upsert([reaction]);
    expect((await live).message.data).toMatchObject({ reaction: '👍' });
    const page = await (await t.as(a.admin).get(`/messages/${a.inbound.ticketId}`)).json();
    expect(page.messages.find((m: { id: number }) => m.id === reply.id).data).toMatchObject({
      reaction: '👍',
    });

    // The attendant reacts to the customer's message from the bubble menu.
    const sentBefore = a.socket.sent.length;
    const liveMine = nextUpdate(watcher, a.id, a.inbound.id);
    const res = await t.as(a.admin).post(`/messages/${a.inbound.id}/reactions`, { emoji: '❤️' });
    expect(res.status, await res.clone().text()).toBe(200);
    expect((await res.json()).data).toMatchObject({ myReaction: '❤️' });
    expect((await liveMine).message.data).toMatchObject({ myReaction: '❤️' });
    const react = a.socket.sent.slice(sentBefore);
    expect(react).toHaveLength(1);
    expect(react[0]).toMatchObject({
      jid: `${a.number}@s.whatsapp.net`,
      content: { react: { text: '❤️', key: { id: a.inbound.providerId, fromMe: false } } },
    });
    // The same reaction again sends nothing (a double click, a retried request).
    expect((await t.as(a.admin).post(`/messages/${a.inbound.id}/reactions`, { emoji: '❤️' })).status).toBe(
      200,
    );
    expect(a.socket.sent.length).toBe(sentBefore + 1);
    // Empty removes it, on WhatsApp too.
    const removed = await (
      await t.as(a.admin).post(`/messages/${a.inbound.id}/reactions`, { emoji: '' })
    ).json();
    expect(removed.data).toMatchObject({ myReaction: '' });
    expect(a.socket.sent.at(-1)).toMatchObject({ content: { react: { text: '' } } });
    // Nothing went through the outbox twice: no row is left.
    const left = await t.database.db.execute(
      `select count(*)::int as n from outbound_queue where message_id = ${a.inbound.id}`,
    );
    expect(((left as { rows?: { n: number }[] }).rows ?? (left as unknown as { n: number }[]))[0]!.n).toBe(0);
  });

  test('only an emoji (or nothing) is a reaction', async () => {
    const a = await conversation('ReactB', '5511955550002');
    for (const emoji of ['abc', '1', '👍 ok', 'x'.repeat(40)]) {
      const res = await t.as(a.admin).post(`/messages/${a.inbound.id}/reactions`, { emoji });
      expect(res.status, emoji).toBe(400);
    }
    await expectError(
      await t.as(a.admin).post(`/messages/999999999/reactions`, { emoji: '👍' }),
      404,
      'ERR_NOT_FOUND',
    );
  });

  test('another company can neither react to nor read the first one’s messages', async () => {
    const a = await conversation('ReactC', '5511955550003');
    const b = await conversation('ReactD', '5511955550004');
    const sentBefore = a.socket.sent.length;
    await expectError(
      await t.as(b.admin).post(`/messages/${a.inbound.id}/reactions`, { emoji: '👍' }),
      404,
      'ERR_NOT_FOUND',
    );
    expect((await t.as(b.admin).get(`/messages/${a.inbound.ticketId}`)).status).toBe(404);
    expect(a.socket.sent.length).toBe(sentBefore);
    const [m] = await db.select().from(messages).where(eq(messages.id, a.inbound.id));
    expect(m!.data?.myReaction).toBeUndefined();
    // Nor follow its ticket's room, where the reactions are announced.
    const intruder = await t.socket(b.admin.token);
    const ack = await new Promise((r) => intruder.emit('joinChatBox', String(a.inbound.ticketId), r));
    expect(ack).toEqual({ ok: false });
  });

  test('a pending ticket must be accepted first', async () => {
    const a = await conversation('ReactE', '5511955550005');
    await t.as(a.admin).put(`/tickets/${a.inbound.ticketId}`, { status: 'pending' });
    await expectError(
      await t.as(a.admin).post(`/messages/${a.inbound.id}/reactions`, { emoji: '👍' }),
      403,
      'ERR_NO_PERMISSION',
    );
  });
});
