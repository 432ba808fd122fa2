import { describe, expect, test } from 'vitest';
import { and, eq, sql } from 'drizzle-orm';
import { contacts, messages, simulatorMessages, tickets } from '../../db/schema/index.js';
import { collectEvents, nextEvent, testApp, type Session, waitFor } from '../../../test/helpers.js';

const t = await testApp();
const db = t.database.db;

async function simulatorConnection(admin: Session, name = 'Sim') {
  const res = await t.as(admin).post('/whatsapp', { name, channel: 'simulator' });
  expect(res.status).toBe(201);
  const w = await res.json();
  return w as { id: number; status: string; isDefault: boolean };
}

describe('simulator connection', () => {
  test('is CONNECTED as soon as it is created, and the first connection is the default', async () => {
    const a = await t.company('SimA');
    const w = await simulatorConnection(a.admin);
    expect(w.status).toBe('CONNECTED');
    expect(w.isDefault).toBe(true);
  });

  test('an inbound message is accepted (202), stored once, and reaches the agent socket', async () => {
    const a = await t.company('SimB');
    const w = await simulatorConnection(a.admin);
    const socket = await t.socket(a.admin.token);
    socket.emit('joinNotification');
    await new Promise((r) => setTimeout(r, 100));
    const event = nextEvent<{
      action: string;
      message: { body: string };
      ticket: { status: string; unreadMessages: number };
    }>(socket, `company-${a.id}-appMessage`);
    const res = await t
      .as(a.admin)
      .post(`/simulator/${w.id}/inbound`, { id: 'm-1', from: '(11) 98888-0001', name: 'Maria', body: 'Oi!' });
    expect(res.status).toBe(202);
    expect(await res.json()).toEqual({ id: 'm-1' });
    const ev = await event;
    expect(ev.message.body).toBe('Oi!');
    expect(ev.ticket).toMatchObject({ status: 'pending', unreadMessages: 1 });

    // Redelivery of the same id is a no-op.
    const again = await t
      .as(a.admin)
      .post(`/simulator/${w.id}/inbound`, { id: 'm-1', from: '11988880001', body: 'Oi!' });
    expect(again.status).toBe(202);
    await new Promise((r) => setTimeout(r, 200));
    const rows = await db
      .select()
      .from(messages)
      .where(and(eq(messages.whatsappId, w.id), eq(messages.providerId, 'm-1')));
    expect(rows).toHaveLength(1);
    const [contact] = await db.select().from(contacts).where(eq(contacts.companyId, a.id));
    expect(contact).toMatchObject({ number: '5511988880001', name: 'Maria' });

    // The customer's phone shows the conversation.
    const conv = await (await t.as(a.admin).get(`/simulator/${w.id}/conversations/5511988880001`)).json();
    expect(conv).toHaveLength(1);
    expect(conv[0]).toMatchObject({ id: 'm-1', fromMe: false, body: 'Oi!' });
  });

  test('50 concurrent messages of a new contact make one contact and one ticket, every message kept', async () => {
    const a = await t.company('SimC');
    const w = await simulatorConnection(a.admin);
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        t
          .as(a.admin)
          .post(`/simulator/${w.id}/inbound`, { id: `burst-${i}`, from: '5521977776666', body: `msg ${i}` }),
      ),
    );
    expect(results.every((r) => r.status === 202)).toBe(true);
    await waitFor(async () => {
      const [c] = await db
        .select({ n: sql<number>`count(*)::int` })
        .from(messages)
        .where(eq(messages.whatsappId, w.id));
      return (c?.n ?? 0) >= 50;
    });
    const contactRows = await db.select().from(contacts).where(eq(contacts.companyId, a.id));
    const ticketRows = await db.select().from(tickets).where(eq(tickets.companyId, a.id));
    expect(contactRows).toHaveLength(1);
    expect(ticketRows).toHaveLength(1);
    expect(ticketRows[0]!.unreadMessages).toBe(50);
  });

  test('the ninth digit: with and without it the customer is one contact', async () => {
    const a = await t.company('SimD');
    const w = await simulatorConnection(a.admin);
    await t.as(a.admin).post(`/simulator/${w.id}/inbound`, { from: '5511988880002', body: 'com nove' });
    await t.as(a.admin).post(`/simulator/${w.id}/inbound`, { from: '551188880002', body: 'sem nove' });
    await waitFor(async () => {
      const rows = await db.select().from(messages).where(eq(messages.whatsappId, w.id));
      return rows.length === 2;
    });
    expect(await db.select().from(contacts).where(eq(contacts.companyId, a.id))).toHaveLength(1);
  });

  test('bad input is refused with a clear error', async () => {
    const a = await t.company('SimE');
    const w = await simulatorConnection(a.admin);
    const cases: [unknown, number][] = [
      [{ from: '5511988880003' }, 400],
      [{ from: 'abc', body: 'x' }, 400],
      [{ from: '123', body: 'x' }, 400],
      [{ from: '5511988880003', media: { mimetype: 'image/png', filename: 'a.png', data: '' } }, 400],
      [{ from: '5511988880003', body: 'x'.repeat(20001) }, 400],
    ];
    for (const [body, status] of cases) {
      const res = await t.as(a.admin).post(`/simulator/${w.id}/inbound`, body);
      expect(res.status, JSON.stringify(body).slice(0, 60)).toBe(status);
    }
    expect(
      (await t.as(a.admin).post(`/simulator/999999/inbound`, { from: '5511988880003', body: 'x' })).status,
    ).toBe(404);
  });

  test('another company can neither inject into, read, nor hear a simulator connection', async () => {
    const a = await t.company('SimF');
    const b = await t.company('SimG');
    const w = await simulatorConnection(a.admin);
    const sb = await t.socket(b.admin.token);
    sb.emit('joinNotification');
    sb.emit('join', `company-${a.id}-notification`);
    const heard = collectEvents(sb, `company-${a.id}-appMessage`, 600);
    expect(
      (await t.as(b.admin).post(`/simulator/${w.id}/inbound`, { from: '5511988880004', body: 'x' })).status,
    ).toBe(404);
    expect((await t.as(b.admin).get(`/simulator/${w.id}/conversations/5511988880004`)).status).toBe(404);
    expect((await t.as(b.admin).get(`/whatsapp/${w.id}`)).status).toBe(404);
    expect((await t.as(b.admin).put(`/whatsapp/${w.id}`, { name: 'hijack' })).status).toBe(404);
    expect((await t.as(b.admin).del(`/whatsapp/${w.id}`)).status).toBe(404);
    await t.as(a.admin).post(`/simulator/${w.id}/inbound`, { from: '5511988880004', body: 'secret' });
    expect(await heard).toHaveLength(0);
  });

  test('messages accepted while the session is down are delivered when it starts again', async () => {
    const a = await t.company('SimH');
    const w = await simulatorConnection(a.admin);
    expect((await t.as(a.admin).del(`/whatsappsession/${w.id}`)).status).toBe(200);
    const res = await t
      .as(a.admin)
      .post(`/simulator/${w.id}/inbound`, { id: 'offline-1', from: '5511988880005', body: 'while down' });
    expect(res.status).toBe(202);
    await new Promise((r) => setTimeout(r, 150));
    expect(await db.select().from(messages).where(eq(messages.whatsappId, w.id))).toHaveLength(0);
    expect((await t.as(a.admin).post(`/whatsappsession/${w.id}`)).status).toBe(200);
    await waitFor(
      async () => (await db.select().from(messages).where(eq(messages.whatsappId, w.id))).length === 1,
    );
  });
});

describe('acks (#31: one statement per ack)', () => {
  test("delivery moves the phone's row and the message together; a claim that takes an ack leaves the message", async () => {
    const a = await t.company('SimAck');
    const w = await simulatorConnection(a.admin);
    const contact = await (
      await t.as(a.admin).post('/contacts', { name: 'Cliente', number: '5511977001122' })
    ).json();
    const opened = await t
      .as(a.admin)
      .post('/tickets', { contactId: contact.id, whatsappId: w.id, status: 'open' });
    expect(opened.status, await opened.clone().text()).toBe(201);
    const ticket = (await opened.json()) as { id: number };
    const res = await t.as(a.admin).post(`/messages/${ticket.id}`, { body: 'Olá' });
    expect(res.status, await res.clone().text()).toBeLessThan(300);
    const sent = await waitFor(async () => {
      const [m] = await db
        .select()
        .from(messages)
        .where(and(eq(messages.ticketId, ticket.id), eq(messages.fromMe, true)));
      return m?.ack === 2 ? m : undefined;
    });
    const [phone] = await db
      .select()
      .from(simulatorMessages)
      .where(and(eq(simulatorMessages.whatsappId, w.id), eq(simulatorMessages.providerId, sent.providerId!)));
    expect(phone?.ack).toBe(2);

    // The same statement with a claim: one that returns a row took the ack (the message stays at 2)...
    const ref = { id: w.id, companyId: a.id, channel: 'simulator', channelConfig: {} };
    const took: unknown[][] = [];
    const claim = (rows: number) => ({
      cte: () => sql`select g as n from generate_series(1, ${rows}) g`,
      taken: (_: unknown, r: unknown[]) => void took.push(r),
    });
    await t.app.services.pipeline.ack(ref, { providerId: sent.providerId!, ack: 3 }, [claim(1)]);
    const ackOf = async () =>
      (await db.select({ ack: messages.ack }).from(messages).where(eq(messages.id, sent.id)))[0]!.ack;
    expect(await ackOf()).toBe(2);
    expect(took).toEqual([[{ n: 1 }]]);
    // ...one that returns none did not: the message moves.
    await t.app.services.pipeline.ack(ref, { providerId: sent.providerId!, ack: 3 }, [claim(0)]);
    expect(await ackOf()).toBe(3);
    expect(took).toHaveLength(1);
  });
});
