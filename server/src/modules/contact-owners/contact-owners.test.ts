import { describe, expect, test } from 'vitest';
import { eq } from 'drizzle-orm';
import { contacts, tickets } from '../../db/schema/index.js';
import { expectError, testApp, waitFor, type Session } from '../../../test/helpers.js';

// #30.4 Contact owners: set and cleared by hand (and by API token: the same routes), refused with a 400 naming
// ownerId, set on a first resolve by the company setting, and the own-contacts rule on routes and rooms.
const t = await testApp();
const db = t.database.db;

let n = 0;
async function company(name: string) {
  const c = await t.company(name);
  const queue = await (await t.as(c.admin).post('/queue', { name: `Q${n++}`, color: '#F44336' })).json();
  const w = await (await t.as(c.admin).post('/whatsapp', { name: 'Sim', channel: 'simulator' })).json();
  const agent = await t.user(c.admin);
  const other = await t.user(c.admin);
  for (const u of [agent, other])
    expect((await t.as(c.admin).put(`/users/${u.user.id}`, { queueIds: [queue.id] })).status).toBe(200);
  return { ...c, queueId: queue.id as number, whatsappId: w.id as number, agent, other };
}

/** A customer writes; the ticket is moved into the queue (waiting there). */
async function customer(c: Awaited<ReturnType<typeof company>>, number: string) {
  await t
    .as(c.admin)
    .post(`/simulator/${c.whatsappId}/inbound`, { from: number, name: 'Cliente', body: 'oi' });
  const ticket = await waitFor(async () => {
    const [contact] = await db.select().from(contacts).where(eq(contacts.number, number));
    if (!contact) return undefined;
    return (await db.select().from(tickets).where(eq(tickets.contactId, contact.id)))[0];
  });
  await t.as(c.admin).put(`/tickets/${ticket.id}`, { queueId: c.queueId });
  return { ticketId: ticket.id, contactId: ticket.contactId };
}

const setSetting = (s: Session, key: string, value: string) => t.as(s).put(`/settings/${key}`, { value });

describe('contact owner', () => {
  test('set, shown, cleared; another company’s user or one without the queue is a 400 naming ownerId', async () => {
    const c = await company('Own');
    const { contactId } = await customer(c, '5511944440001');
    const set = await t.as(c.admin).put(`/contacts/${contactId}`, { ownerId: c.agent.user.id });
    expect(set.status).toBe(200);
    expect((await set.json()).ownerId).toBe(c.agent.user.id);
    expect((await (await t.as(c.admin).get(`/contacts/${contactId}`)).json()).ownerId).toBe(c.agent.user.id);
    const cleared = await t.as(c.admin).put(`/contacts/${contactId}`, { ownerId: null });
    expect((await cleared.json()).ownerId).toBeNull();

    const stranger = await t.company('Stranger');
    const bad = await t.as(c.admin).put(`/contacts/${contactId}`, { ownerId: stranger.admin.user.id });
    expect(JSON.stringify(await expectError(bad, 400, 'ERR_VALIDATION'))).toContain('ownerId');
    const outsider = await t.user(c.admin); // no queues
    const noQueue = await t.as(c.admin).put(`/contacts/${contactId}`, { ownerId: outsider.user.id });
    expect(JSON.stringify(await expectError(noQueue, 400, 'ERR_VALIDATION'))).toContain('ownerId');
    const notNumber = await t.as(c.admin).put(`/contacts/${contactId}`, { ownerId: 'ana' });
    expect(JSON.stringify(await expectError(notNumber, 400, 'ERR_VALIDATION'))).toContain('ownerId');
    const [row] = await db.select().from(contacts).where(eq(contacts.id, contactId));
    expect(row!.ownerId).toBeNull();

    // The other company can neither read nor set the owner.
    expect((await t.as(stranger.admin).get(`/contacts/${contactId}`)).status).toBe(404);
    const theirs = await t
      .as(stranger.admin)
      .put(`/contacts/${contactId}`, { ownerId: stranger.admin.user.id });
    expect(theirs.status).toBe(404);
  });

  test('a new contact may carry its owner', async () => {
    const c = await company('New');
    const res = await t
      .as(c.admin)
      .post('/contacts', { name: 'Maria Dona', number: '5511944440099', ownerId: c.agent.user.id });
    expect(res.status).toBe(201);
    expect((await res.json()).ownerId).toBe(c.agent.user.id);
  });

  test('contactOwnerOnResolve: the attendant who first resolves becomes the owner, once', async () => {
    const c = await company('Auto');
    expect((await setSetting(c.admin, 'contactOwnerOnResolve', 'enabled')).status).toBe(200);
    const { ticketId, contactId } = await customer(c, '5511944440002');
    await t.as(c.agent).put(`/tickets/${ticketId}`, { status: 'open' });
    await t.as(c.agent).put(`/tickets/${ticketId}`, { status: 'closed' });
    await waitFor(async () => {
      const [row] = await db.select().from(contacts).where(eq(contacts.id, contactId));
      return row!.ownerId === c.agent.user.id;
    });
    // A later resolve by someone else keeps the first owner.
    await t.as(c.other).put(`/tickets/${ticketId}`, { status: 'open' });
    await t.as(c.other).put(`/tickets/${ticketId}`, { status: 'closed' });
    const [row] = await db.select().from(contacts).where(eq(contacts.id, contactId));
    expect(row!.ownerId).toBe(c.agent.user.id);
  });

  test('ownContactsOnly: routes and rooms show an attendant only own and unowned contacts', async () => {
    const c = await company('Rule');
    const mine = await customer(c, '5511944440003');
    const theirs = await customer(c, '5511944440004');
    const nobody = await customer(c, '5511944440005');
    await t.as(c.admin).put(`/contacts/${mine.contactId}`, { ownerId: c.agent.user.id });
    await t.as(c.admin).put(`/contacts/${theirs.contactId}`, { ownerId: c.other.user.id });

    const waiting = async (s: Session) =>
      ((await (await t.as(s).get('/tickets?status=pending')).json()).tickets as { id: number }[])
        .map((x) => x.id)
        .sort();
    // Rule off: the queue's three tickets.
    expect(await waiting(c.agent)).toEqual([mine.ticketId, theirs.ticketId, nobody.ticketId].sort());
    expect((await setSetting(c.admin, 'ownContactsOnly', 'enabled')).status).toBe(200);
    expect(await waiting(c.agent)).toEqual([mine.ticketId, nobody.ticketId].sort());
    expect(await waiting(c.admin)).toEqual([mine.ticketId, theirs.ticketId, nobody.ticketId].sort());
    // Single reads, messages and the contact routes follow the rule.
    expect((await t.as(c.agent).get(`/tickets/${theirs.ticketId}`)).status).toBe(403);
    expect((await t.as(c.agent).get(`/messages/${theirs.ticketId}`)).status).toBe(403);
    expect((await t.as(c.agent).get(`/tickets/${mine.ticketId}`)).status).toBe(200);
    expect((await t.as(c.agent).get(`/contacts/${theirs.contactId}`)).status).toBe(403);
    const list = (await (await t.as(c.agent).get('/contacts')).json()).contacts as { id: number }[];
    expect(list.map((x) => x.id)).not.toContain(theirs.contactId);
    expect(list.map((x) => x.id)).toEqual(expect.arrayContaining([mine.contactId, nobody.contactId]));

    // Rooms: the ticket's room is refused, and the waiting list's events of another's contact do not reach.
    const socket = await t.socket(c.agent.token);
    const refused = await new Promise((r) => socket.emit('joinChatBox', String(theirs.ticketId), r));
    expect(refused).toEqual({ ok: false });
    const allowed = await new Promise((r) => socket.emit('joinChatBox', String(mine.ticketId), r));
    expect(allowed).toEqual({ ok: true });
    await new Promise((r) => socket.emit('joinTickets', 'pending', r));
    const seen: number[] = [];
    socket.on(`company-${c.id}-ticket`, (e: { ticket?: { id: number } }) => {
      if (e.ticket) seen.push(e.ticket.id);
    });
    await t.as(c.admin).put(`/tickets/${theirs.ticketId}`, { priority: 'high' });
    await t.as(c.admin).put(`/tickets/${nobody.ticketId}`, { priority: 'high' });
    await waitFor(() => seen.includes(nobody.ticketId));
    expect(seen).not.toContain(theirs.ticketId);
  });
});
