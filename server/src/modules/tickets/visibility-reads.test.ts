import { describe, expect, test } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { contacts, queues, tickets, userQueues, users } from '../../db/schema/index.js';
import { expectError, testApp, waitFor } from '../../../test/helpers.js';

/**
 * Every read and write that names a ticket, a contact's notes or a simulator conversation applies the
 * same rule as GET /tickets/{id} (contracts/visibility.ts): an attendant of queue 1 gets nothing of queue 2.
 */
const t = await testApp();
const db = t.database.db;

const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex').toString(
  'base64',
);

async function setup(name: string) {
  const c = await t.company(name);
  const w = await (await t.as(c.admin).post('/whatsapp', { name: 'Sim', channel: 'simulator' })).json();
  await waitFor(async () => t.app.sessions.get(w.id));
  const [q1, q2] = await db
    .insert(queues)
    .values([
      { companyId: c.id, name: 'Um', color: '#aa0000' },
      { companyId: c.id, name: 'Dois', color: '#0000aa' },
    ])
    .returning();
  const one = await t.user(c.admin, 'user');
  await db.insert(userQueues).values({ userId: one.user.id, queueId: q1!.id });
  await db.update(users).set({ showQueuelessTickets: false }).where(eq(users.id, one.user.id));
  /** A customer's conversation whose ticket sits in `queueId`, with one picture from the customer. */
  const conversation = async (number: string, queueId: number) => {
    await t.as(c.admin).post(`/simulator/${w.id}/inbound`, { from: number, body: `oi de ${number}` });
    const ticket = await waitFor(async () => {
      const [row] = await db
        .select({ ticket: tickets })
        .from(tickets)
        .innerJoin(contacts, eq(contacts.id, tickets.contactId))
        .where(and(eq(contacts.number, number), eq(tickets.companyId, c.id)));
      return row?.ticket;
    });
    await db.update(tickets).set({ queueId }).where(eq(tickets.id, ticket.id));
    await t.as(c.admin).post(`/simulator/${w.id}/inbound`, {
      from: number,
      media: { mimetype: 'image/png', filename: 'foto.png', data: PNG },
    });
    const messages = await waitFor(async () => {
      const list = await (await t.as(c.admin).get(`/simulator/${w.id}/conversations/${number}`)).json();
      return list.some((m: { mediaUrl: string | null }) => m.mediaUrl) ? list : undefined;
    });
    const media = messages.find((m: { mediaUrl: string | null }) => m.mediaUrl)!.mediaUrl as string;
    return { ticket, number, media: media.replace(/^\/api/, '') };
  };
  const mine = await conversation('5511955550001', q1!.id);
  const theirs = await conversation('5511955550002', q2!.id);
  return { ...c, whatsappId: w.id as number, one, mine, theirs };
}

describe('the visibility rule on reads and writes beyond /tickets', () => {
  test('simulator conversations, media, reads and the customer list follow the ticket rule', async () => {
    const s = await setup('SimVis');
    const as = t.as(s.one);
    // Same answer as GET /tickets/{id}.
    await expectError(await as.get(`/tickets/${s.theirs.ticket.id}`), 403, 'ERR_NO_PERMISSION');
    await expectError(
      await as.get(`/simulator/${s.whatsappId}/conversations/${s.theirs.number}`),
      403,
      'ERR_NO_PERMISSION',
    );
    await expectError(await as.get(s.theirs.media), 403, 'ERR_NO_PERMISSION');
    await expectError(
      await as.post(`/simulator/${s.whatsappId}/read/${s.theirs.number}`),
      403,
      'ERR_NO_PERMISSION',
    );
    const customers = await (await as.get(`/simulator/${s.whatsappId}/conversations`)).json();
    expect(customers.map((c: { number: string }) => c.number)).toEqual([s.mine.number]);
    // Their own queue's conversation reads as before; the admin reads both.
    expect((await as.get(`/simulator/${s.whatsappId}/conversations/${s.mine.number}`)).status).toBe(200);
    expect((await as.get(s.mine.media)).status).toBe(200);
    expect((await t.as(s.admin).get(s.theirs.media)).status).toBe(200);
    const all = await (await t.as(s.admin).get(`/simulator/${s.whatsappId}/conversations`)).json();
    expect(all.map((c: { number: string }) => c.number).sort()).toEqual(
      [s.mine.number, s.theirs.number].sort(),
    );
  });

  test('notes by contact list only the notes of tickets the caller may see', async () => {
    const s = await setup('NoteVis');
    const secret = await t
      .as(s.admin)
      .post('/ticket-notes', { note: 'nota da fila dois', ticketId: s.theirs.ticket.id });
    expect(secret.status).toBe(201);
    const open = await t
      .as(s.admin)
      .post('/ticket-notes', { note: 'nota da fila um', ticketId: s.mine.ticket.id });
    expect(open.status).toBe(201);
    const as = t.as(s.one);
    expect(await (await as.get(`/ticket-notes/list?contactId=${s.theirs.ticket.contactId}`)).json()).toEqual(
      [],
    );
    await expectError(
      await as.get(`/ticket-notes/list?ticketId=${s.theirs.ticket.id}`),
      403,
      'ERR_NO_PERMISSION',
    );
    const mine = await (await as.get(`/ticket-notes/list?contactId=${s.mine.ticket.contactId}`)).json();
    expect(mine.map((n: { note: string }) => n.note)).toEqual(['nota da fila um']);
    const admin = await (
      await t.as(s.admin).get(`/ticket-notes/list?contactId=${s.theirs.ticket.contactId}`)
    ).json();
    expect(admin.map((n: { note: string }) => n.note)).toEqual(['nota da fila dois']);
  });

  test('a schedule cannot be written into a ticket the caller may not see', async () => {
    const s = await setup('SchedVis');
    const sendAt = new Date(Date.now() + 3_600_000).toISOString();
    const as = t.as(s.one);
    await expectError(
      await as.post('/schedules', {
        body: 'lembrete',
        sendAt,
        contactId: s.theirs.ticket.contactId,
        ticketId: s.theirs.ticket.id,
      }),
      403,
      'ERR_NO_PERMISSION',
    );
    const ok = await as.post('/schedules', {
      body: 'lembrete',
      sendAt,
      contactId: s.mine.ticket.contactId,
      ticketId: s.mine.ticket.id,
    });
    expect(ok.status, await ok.clone().text()).toBe(201);
    // Moving an own schedule onto the hidden ticket is refused the same way.
    const created = await ok.json();
    await expectError(
      await as.put(`/schedules/${created.id}`, { ticketId: s.theirs.ticket.id }),
      403,
      'ERR_NO_PERMISSION',
    );
  });
});
