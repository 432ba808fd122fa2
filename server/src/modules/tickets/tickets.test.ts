import { describe, expect, test } from 'vitest';
import { eq } from 'drizzle-orm';
import { messages, queues, tickets, userQueues, users } from '../../db/schema/index.js';
import { collectEvents, nextEvent, testApp, type Session, waitFor } from '../../../test/helpers.js';

const t = await testApp();
const db = t.database.db;

/** A company with a simulator connection and one customer conversation waiting. */
async function scenario(name: string, number = '5511977770001') {
  const c = await t.company(name);
  const w = await (await t.as(c.admin).post('/whatsapp', { name: 'Sim', channel: 'simulator' })).json();
  await t
    .as(c.admin)
    .post(`/simulator/${w.id}/inbound`, { from: number, name: 'Cliente', body: 'Preciso de ajuda' });
  const ticket = await waitFor(
    async () => (await db.select().from(tickets).where(eq(tickets.companyId, c.id)))[0],
  );
  return { ...c, whatsappId: w.id as number, ticketId: ticket.id, number };
}

describe('ticket lifecycle', () => {
  test('pending → accept → reply reaches the customer with acks → customer reads → resolve → reopen', async () => {
    const s = await scenario('Life');
    const list = await (await t.as(s.admin).get('/tickets?status=pending&showAll=true')).json();
    expect(list.tickets.map((x: { id: number }) => x.id)).toContain(s.ticketId);
    expect(list.hasMore).toBe(false);

    // Sending on a pending ticket is refused.
    expect((await t.as(s.admin).post(`/messages/${s.ticketId}`, { body: 'oi' })).status).toBe(403);

    const accepted = await (await t.as(s.admin).put(`/tickets/${s.ticketId}`, { status: 'open' })).json();
    expect(accepted).toMatchObject({ status: 'open', userId: s.admin.user.id });

    const sent = await t.as(s.admin).post(`/messages/${s.ticketId}`, { body: 'Olá! Como posso ajudar?' });
    expect(sent.status).toBe(200);
    const msg = await sent.json();
    expect(msg).toMatchObject({ fromMe: true, body: 'Olá! Como posso ajudar?' });
    expect(msg.ack).toBeGreaterThanOrEqual(1);

    // The customer's phone shows it, then "delivered" comes back to the message.
    const phone = await waitFor(async () => {
      const conv = await (
        await t.as(s.admin).get(`/simulator/${s.whatsappId}/conversations/${s.number}`)
      ).json();
      return conv.find((m: { fromMe: boolean; ack: number }) => m.fromMe && m.ack >= 2);
    });
    expect(phone.body).toBe('Olá! Como posso ajudar?');
    await waitFor(async () => (await db.select().from(messages).where(eq(messages.id, msg.id)))[0]!.ack >= 2);
    // The customer reads: ack 3 on our side.
    await t.as(s.admin).post(`/simulator/${s.whatsappId}/read/${s.number}`);
    await waitFor(
      async () => (await db.select().from(messages).where(eq(messages.id, msg.id)))[0]!.ack === 3,
    );

    const page = await (await t.as(s.admin).get(`/messages/${s.ticketId}`)).json();
    expect(page.messages.map((m: { body: string }) => m.body)).toEqual([
      'Preciso de ajuda',
      'Olá! Como posso ajudar?',
    ]);

    const closed = await (await t.as(s.admin).put(`/tickets/${s.ticketId}`, { status: 'closed' })).json();
    expect(closed).toMatchObject({
      status: 'closed',
      useIntegration: false,
      promptId: null,
      integrationId: null,
    });

    const reopened = await (await t.as(s.admin).put(`/tickets/${s.ticketId}`, { status: 'open' })).json();
    expect(reopened.status).toBe('open');
    const hist = await (await t.as(s.admin).get(`/ticket/${s.ticketId}/histories`)).json();
    expect(hist.map((h: { action: string }) => h.action)).toEqual(['create', 'accept', 'close', 'reopen']);
  });

  test('a new message on a closed ticket opens a new pending ticket', async () => {
    const s = await scenario('Again', '5511977770002');
    await t.as(s.admin).put(`/tickets/${s.ticketId}`, { status: 'closed' });
    await t.as(s.admin).post(`/simulator/${s.whatsappId}/inbound`, { from: s.number, body: 'voltei' });
    const all = await waitFor(async () => {
      const rows = await db.select().from(tickets).where(eq(tickets.companyId, s.id));
      return rows.length === 2 ? rows : undefined;
    });
    expect(all.map((r) => r.status).sort()).toEqual(['closed', 'pending']);
  });

  test('return clears the user; transfer to a queue only makes it pending without user', async () => {
    const s = await scenario('Transfer', '5511977770003');
    const [q] = await db
      .insert(queues)
      .values({ companyId: s.id, name: 'Financeiro', color: '#00aa00' })
      .returning();
    await t.as(s.admin).put(`/tickets/${s.ticketId}`, { status: 'open' });
    const returned = await (await t.as(s.admin).put(`/tickets/${s.ticketId}`, { status: 'pending' })).json();
    expect(returned).toMatchObject({ status: 'pending', userId: null });
    await t.as(s.admin).put(`/tickets/${s.ticketId}`, { status: 'open' });
    const moved = await (await t.as(s.admin).put(`/tickets/${s.ticketId}`, { queueId: q!.id })).json();
    expect(moved).toMatchObject({ status: 'pending', userId: null, queueId: q!.id });
  });

  test('ERR_OTHER_OPEN_TICKET names who holds the other ticket', async () => {
    const s = await scenario('Other', '5511977770004');
    await t.as(s.admin).put(`/tickets/${s.ticketId}`, { status: 'open' });
    const [row] = await db.select().from(tickets).where(eq(tickets.id, s.ticketId));
    const res = await t.as(s.admin).post('/tickets', { contactId: row!.contactId, status: 'open' });
    expect(res.status).toBe(409);
    const body = await res.json();
    expect(body.error).toBe('ERR_OTHER_OPEN_TICKET');
    expect(body.ticket.user.id).toBe(s.admin.user.id);
  });

  test('visibility: a user sees own-queue and queueless tickets only; the peek of another queue is refused', async () => {
    const s = await scenario('Vis', '5511977770005');
    const [qa, qb] = await db
      .insert(queues)
      .values([
        { companyId: s.id, name: 'A', color: '#aa0000' },
        { companyId: s.id, name: 'B', color: '#0000aa' },
      ])
      .returning();
    const user: Session = await t.user(s.admin, 'user');
    await db.insert(userQueues).values({ userId: user.user.id, queueId: qa!.id });
    await db.update(tickets).set({ queueId: qb!.id }).where(eq(tickets.id, s.ticketId));
    expect((await t.as(user).get(`/tickets/${s.ticketId}`)).status).toBe(403);
    let list = await (await t.as(user).get('/tickets?status=pending')).json();
    expect(list.tickets).toHaveLength(0);
    // showAll is not for plain users.
    list = await (await t.as(user).get('/tickets?status=pending&showAll=true')).json();
    expect(list.tickets).toHaveLength(0);
    await db.update(tickets).set({ queueId: qa!.id }).where(eq(tickets.id, s.ticketId));
    list = await (await t.as(user).get('/tickets?status=pending')).json();
    expect(list.tickets.map((x: { id: number }) => x.id)).toEqual([s.ticketId]);
    // A plain user cannot delete tickets.
    expect((await t.as(user).del(`/tickets/${s.ticketId}`)).status).toBe(403);
    expect((await t.as(s.admin).del(`/tickets/${s.ticketId}`)).status).toBe(200);
  });

  test('allTicket enabled: the waiting list holds every queue’s tickets, and nothing more', async () => {
    const s = await scenario('AllTicket', '5511977770009');
    const [qa, qb] = await db
      .insert(queues)
      .values([
        { companyId: s.id, name: 'A', color: '#aa0000' },
        { companyId: s.id, name: 'B', color: '#0000aa' },
      ])
      .returning();
    const user: Session = await t.user(s.admin, 'user');
    await db.insert(userQueues).values({ userId: user.user.id, queueId: qa!.id });
    await db.update(tickets).set({ queueId: qb!.id }).where(eq(tickets.id, s.ticketId));
    const pending = async () =>
      (await (await t.as(user).get('/tickets?status=pending')).json()).tickets.map(
        (x: { id: number }) => x.id,
      );
    expect(await pending()).toEqual([]);
    await db.update(users).set({ allTicket: 'enabled' }).where(eq(users.id, user.user.id));
    expect(await pending()).toEqual([s.ticketId]);
    expect((await t.as(user).get(`/tickets/${s.ticketId}`)).status).toBe(200);
    // Once someone else takes it, it is no longer theirs to see.
    await t.as(s.admin).put(`/tickets/${s.ticketId}`, { status: 'open' });
    expect(await pending()).toEqual([]);
    const open = await (await t.as(user).get('/tickets?status=open&withUnreadMessages=true')).json();
    expect(open.tickets).toHaveLength(0);
  });

  test('another company cannot read, change, message or hear a ticket, nor fetch its media', async () => {
    const s = await scenario('IsoA', '5511977770006');
    const b = await t.company('IsoB');
    await t.as(s.admin).post(`/simulator/${s.whatsappId}/inbound`, {
      from: s.number,
      media: {
        mimetype: 'image/png',
        filename: 'foto.png',
        data: Buffer.from('89504e470d0a1a0a', 'hex').toString('base64'),
      },
    });
    const media = await waitFor(async () =>
      (await db.select().from(messages).where(eq(messages.ticketId, s.ticketId))).find((m) => m.mediaUrl),
    );
    expect((await t.as(s.admin).get(`/messages/${media.id}/media`)).status).toBe(200);
    const sb = await t.socket(b.admin.token);
    sb.emit('joinChatBox', String(s.ticketId));
    sb.emit('joinTickets', 'pending');
    const heard = collectEvents(sb, `company-${s.id}-ticket`, 700);
    expect((await t.as(b.admin).get(`/tickets/${s.ticketId}`)).status).toBe(404);
    expect((await t.as(b.admin).put(`/tickets/${s.ticketId}`, { status: 'open' })).status).toBe(404);
    expect((await t.as(b.admin).get(`/messages/${s.ticketId}`)).status).toBe(404);
    expect((await t.as(b.admin).post(`/messages/${s.ticketId}`, { body: 'x' })).status).toBe(404);
    expect((await t.as(b.admin).get(`/messages/${media.id}/media`)).status).toBe(404);
    expect((await t.as(b.admin).del(`/tickets/${s.ticketId}`)).status).toBe(404);
    const listB = await (await t.as(b.admin).get('/tickets?showAll=true')).json();
    expect(listB.tickets).toHaveLength(0);
    await t.as(s.admin).put(`/tickets/${s.ticketId}`, { status: 'open' });
    expect(await heard).toHaveLength(0);
  });

  test('the attendant socket in the ticket room gets the customer message live', async () => {
    const s = await scenario('Live', '5511977770007');
    const sa = await t.socket(s.admin.token);
    const ack = await new Promise<{ ok: boolean }>((r) => sa.emit('joinChatBox', String(s.ticketId), r));
    expect(ack.ok).toBe(true);
    const ev = nextEvent<{ action: string; message: { body: string } }>(sa, `company-${s.id}-appMessage`);
    await t.as(s.admin).post(`/simulator/${s.whatsappId}/inbound`, { from: s.number, body: 'live one' });
    expect((await ev).message.body).toBe('live one');
  });

  test('bad input on ticket routes is a 4xx', async () => {
    const s = await scenario('Bad', '5511977770008');
    expect((await t.as(s.admin).get('/tickets?queueIds=notjson')).status).toBe(400);
    expect((await t.as(s.admin).get('/tickets?status=weird')).status).toBe(400);
    expect((await t.as(s.admin).put(`/tickets/${s.ticketId}`, { status: 'gone' })).status).toBe(400);
    expect((await t.as(s.admin).post('/tickets', { contactId: 'x' })).status).toBe(400);
    expect((await t.as(s.admin).get('/tickets/u/not-a-uuid')).status).toBe(400);
    expect((await t.as(s.admin).post('/ticket-notes', { note: 'a', ticketId: s.ticketId })).status).toBe(400);
    const note = await t.as(s.admin).post('/ticket-notes', { note: 'Cliente VIP', ticketId: s.ticketId });
    expect(note.status).toBe(201);
    const notes = await (await t.as(s.admin).get(`/ticket-notes/list?ticketId=${s.ticketId}`)).json();
    expect(notes[0]).toMatchObject({ note: 'Cliente VIP', user: { id: s.admin.user.id } });
  });
});
