import { beforeEach, describe, expect, test } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { contacts, messages, ratingRequests, tickets, userRatings } from '../../db/schema/index.js';
import { manualClock } from '../../lib/clock.js';
import { collectEvents, testApp, unique, type Session, waitFor } from '../../../test/helpers.js';

const clock = manualClock(new Date());
const t = await testApp({ deps: { clock, jobs: { autoStart: false } } });
const db = t.database.db;
const MIN = 60_000;

let numberSeq = 0;
const newNumber = () =>
  `55219${String(Date.now() % 10_000).padStart(4, '0')}${String(numberSeq++).padStart(4, '0')}`;

interface Setup {
  admin: Session;
  companyId: number;
  whatsappId: number;
}

async function company(name: string, opts: { rating?: boolean } = {}): Promise<Setup> {
  const c = await t.company(name);
  if (opts.rating !== false)
    expect((await t.as(c.admin).put('/settings/userRating', { value: 'enabled' })).status).toBe(200);
  const res = await t.as(c.admin).post('/whatsapp', {
    name: unique('Sim '),
    channel: 'simulator',
    ratingMessage: 'Avalie o atendimento, por favor.',
    complationMessage: 'Atendimento concluído. Até logo!',
  });
  expect(res.status).toBe(201);
  return { admin: c.admin, companyId: c.id, whatsappId: ((await res.json()) as { id: number }).id };
}

let idSeq = 0;
async function customerSays(s: Setup, number: string, body: string, id = `r-${Date.now()}-${idSeq++}`) {
  const res = await t.as(s.admin).post(`/simulator/${s.whatsappId}/inbound`, { id, from: number, body });
  expect(res.status).toBe(202);
  // Stored once the pipeline has it (as a message of some ticket of this connection).
  await waitFor(async () => {
    const [m] = await db
      .select({ id: messages.id })
      .from(messages)
      .where(and(eq(messages.whatsappId, s.whatsappId), eq(messages.providerId, id)));
    return m;
  });
  return id;
}

const ticketsOf = (s: Setup, number: string) =>
  db
    .select({ id: tickets.id, status: tickets.status, userId: tickets.userId })
    .from(tickets)
    .innerJoin(contacts, eq(contacts.id, tickets.contactId))
    .where(and(eq(contacts.number, number), eq(tickets.whatsappId, s.whatsappId)))
    .orderBy(tickets.id);

const phone = async (s: Setup, number: string) =>
  (await (await t.as(s.admin).get(`/simulator/${s.whatsappId}/conversations/${number}`)).json()) as {
    fromMe: boolean;
    body: string;
  }[];
const sentToCustomer = async (s: Setup, number: string, text: string) =>
  (await phone(s, number)).filter((m) => m.fromMe && m.body.includes(text));

/** A customer writes, the admin takes the ticket and resolves it: the rating question goes out. */
async function resolved(s: Setup, number: string) {
  await customerSays(s, number, 'Olá, meu pedido não chegou');
  const [ticket] = await ticketsOf(s, number);
  expect((await t.as(s.admin).put(`/tickets/${ticket!.id}`, { status: 'open' })).status).toBe(200);
  const res = await t.as(s.admin).put(`/tickets/${ticket!.id}`, { status: 'closed' });
  expect(res.status).toBe(200);
  expect((await res.json()).status).toBe('closed');
  return ticket!.id;
}

const requestOf = async (ticketId: number) =>
  (await db.select().from(ratingRequests).where(eq(ratingRequests.ticketId, ticketId)))[0];
const ratingOf = async (ticketId: number) =>
  (await db.select().from(userRatings).where(eq(userRatings.ticketId, ticketId)))[0];

describe('rating', () => {
  beforeEach(() => clock.set(new Date()));

  test('resolving asks for the rating; "2 - Enviado do meu iPhone" is stored, thanked, and opens no ticket', async () => {
    const s = await company('Avalia');
    const number = newNumber();
    const ticketId = await resolved(s, number);
    const question = await waitFor(async () => (await sentToCustomer(s, number, 'Avalie o atendimento'))[0]);
    expect(question.body).toContain('*1*');
    expect(question.body).toContain('Muito satisfeito');
    // The completion message waits for the answer.
    expect(await sentToCustomer(s, number, 'Até logo')).toHaveLength(0);
    expect(await requestOf(ticketId)).toMatchObject({ status: 'waiting', userId: s.admin.user.id });

    const socket = await t.socket(s.admin.token);
    await new Promise((r) => socket.emit('joinChatBox', ticketId, r));
    const events: { action: string; message: { body: string; ticketId: number } }[] = [];
    socket.on(`company-${s.companyId}-appMessage`, (p) => events.push(p));

    const answerId = await customerSays(s, number, '2 - Enviado do meu iPhone');
    const rating = await waitFor(() => ratingOf(ticketId));
    expect(rating).toMatchObject({ rate: 2, userId: s.admin.user.id, companyId: s.companyId });
    await waitFor(async () => (await sentToCustomer(s, number, 'Até logo')).length === 1);
    expect(await requestOf(ticketId)).toMatchObject({ status: 'rated' });

    // The answer joined the closed ticket, which stays closed; no other ticket exists.
    expect(await ticketsOf(s, number)).toEqual([{ id: ticketId, status: 'closed', userId: s.admin.user.id }]);
    const [answer] = await db
      .select()
      .from(messages)
      .where(and(eq(messages.whatsappId, s.whatsappId), eq(messages.providerId, answerId)));
    expect(answer).toMatchObject({ ticketId, fromMe: false, body: '2 - Enviado do meu iPhone' });
    await waitFor(async () => events.some((e) => e.message.body === '2 - Enviado do meu iPhone'));

    // A redelivery of the answer changes nothing.
    await customerSays(s, number, '2 - Enviado do meu iPhone', answerId);
    expect(await ticketsOf(s, number)).toHaveLength(1);
    expect(await db.select().from(userRatings).where(eq(userRatings.ticketId, ticketId))).toHaveLength(1);

    // The next message afterwards is a new conversation.
    await customerSays(s, number, 'Tenho outra dúvida');
    const all = await ticketsOf(s, number);
    expect(all).toHaveLength(2);
    expect(all[1]).toMatchObject({ status: 'pending', userId: null });
    expect(await sentToCustomer(s, number, 'Até logo')).toHaveLength(1);
  });

  test.each([[' 3 '], ['1.'], ['3️⃣']])('%j counts as a rating', async (body) => {
    const s = await company('Formatos');
    const number = newNumber();
    const ticketId = await resolved(s, number);
    await customerSays(s, number, body);
    const rating = await waitFor(() => ratingOf(ticketId));
    expect(rating!.rate).toBe(Number(body.trim()[0]));
    expect(await ticketsOf(s, number)).toHaveLength(1);
  });

  test('an answer that arrives in one batch with other customers is still a rating', async () => {
    const s = await company('Rajada');
    const number = newNumber();
    const ticketId = await resolved(s, number);
    const others = Array.from({ length: 6 }, () => newNumber());
    // A burst as a channel hands it over: one call, several customers (plain messages share one statement).
    const ref = { id: s.whatsappId, companyId: s.companyId, channel: 'simulator', channelConfig: {} };
    const msg = (from: string, body: string) => ({
      providerId: `burst-${from}-${idSeq++}`,
      kind: 'message' as const,
      from,
      replyTo: from,
      fromMe: false,
      isGroup: false,
      body,
      timestamp: new Date(),
    });
    const results = await t.app.services.pipeline.messages(ref, [
      ...others.slice(0, 3).map((n) => msg(n, 'Bom dia')),
      msg(number, '3'),
      ...others.slice(3).map((n) => msg(n, 'Bom dia')),
    ]);
    expect(results.every((r) => r.status === 'fulfilled' && r.value.status === 'stored')).toBe(true);
    expect((await ratingOf(ticketId))!.rate).toBe(3);
    expect(await ticketsOf(s, number)).toHaveLength(1);
    for (const n of others) expect(await ticketsOf(s, n)).toHaveLength(1);
  });

  test('any other answer ends the wait without a rating and goes on as a normal message', async () => {
    const s = await company('Ignora');
    const number = newNumber();
    const ticketId = await resolved(s, number);
    await customerSays(s, number, 'obrigado!');
    expect(await requestOf(ticketId)).toMatchObject({ status: 'ignored' });
    const all = await ticketsOf(s, number);
    expect(all).toHaveLength(2);
    expect(all[0]).toMatchObject({ id: ticketId, status: 'closed' });
    expect(all[1]).toMatchObject({ status: 'pending' });
    // A late "2" is just a message of the new ticket.
    await customerSays(s, number, '2');
    expect(await ratingOf(ticketId)).toBeUndefined();
    expect(await ticketsOf(s, number)).toHaveLength(2);
    expect(await sentToCustomer(s, number, 'Até logo')).toHaveLength(0);
  });

  test('no answer within the wait: the job ends it, and a later "1" is a normal new message', async () => {
    const s = await company('Expira');
    const number = newNumber();
    const ticketId = await resolved(s, number);
    clock.advance(29 * MIN);
    await t.app.services.jobs.runDue();
    expect(await requestOf(ticketId)).toMatchObject({ status: 'waiting' });
    clock.advance(2 * MIN);
    await t.app.services.jobs.runDue();
    expect(await requestOf(ticketId)).toMatchObject({ status: 'expired' });
    await customerSays(s, number, '1');
    expect(await ratingOf(ticketId)).toBeUndefined();
    const all = await ticketsOf(s, number);
    expect(all).toHaveLength(2);
    expect(all[1]).toMatchObject({ status: 'pending' });
  });

  test('past the deadline an answer is not a rating even before the job ran', async () => {
    const s = await company('Atraso');
    const number = newNumber();
    const ticketId = await resolved(s, number);
    clock.advance(31 * MIN);
    await customerSays(s, number, '3');
    expect(await ratingOf(ticketId)).toBeUndefined();
    expect(await requestOf(ticketId)).toMatchObject({ status: 'expired' });
    expect(await ticketsOf(s, number)).toHaveLength(2);
  });

  test('reopened by the attendant: the answer is still a rating, thanked, in the same ticket; once the attendant writes, a "2" is a message', async () => {
    const s = await company('Reabre');
    const number = newNumber();
    const ticketId = await resolved(s, number);
    await waitFor(async () => (await sentToCustomer(s, number, 'Avalie o atendimento')).length === 1);
    expect((await t.as(s.admin).put(`/tickets/${ticketId}`, { status: 'open' })).status).toBe(200);
    const id = await customerSays(s, number, '2');
    expect(await ratingOf(ticketId)).toMatchObject({ rate: 2, userId: s.admin.user.id });
    await waitFor(async () => (await sentToCustomer(s, number, 'Até logo')).length === 1);
    expect(await requestOf(ticketId)).toMatchObject({ status: 'rated' });
    expect(await ticketsOf(s, number)).toEqual([{ id: ticketId, status: 'open', userId: s.admin.user.id }]);
    const [m] = await db
      .select({ ticketId: messages.ticketId })
      .from(messages)
      .where(and(eq(messages.whatsappId, s.whatsappId), eq(messages.providerId, id)));
    expect(m!.ticketId).toBe(ticketId);

    // Another customer: resolved, reopened, and the attendant asks something: the "2" answers the attendant.
    const other = newNumber();
    const second = await resolved(s, other);
    await waitFor(async () => (await sentToCustomer(s, other, 'Avalie o atendimento')).length === 1);
    expect((await t.as(s.admin).put(`/tickets/${second}`, { status: 'open' })).status).toBe(200);
    expect((await t.as(s.admin).post(`/messages/${second}`, { body: 'Prefere a entrega 1 ou 2?' })).ok).toBe(
      true,
    );
    const reply = await customerSays(s, other, '2');
    expect(await ratingOf(second)).toBeUndefined();
    expect(await sentToCustomer(s, other, 'Até logo')).toHaveLength(0);
    const [r] = await db
      .select({ ticketId: messages.ticketId })
      .from(messages)
      .where(and(eq(messages.whatsappId, s.whatsappId), eq(messages.providerId, reply)));
    expect(r!.ticketId).toBe(second);
    expect(await ticketsOf(s, other)).toHaveLength(1);
  });

  test('with userRating off, resolving sends the completion message and waits for nothing', async () => {
    const s = await company('SemNota', { rating: false });
    const number = newNumber();
    const ticketId = await resolved(s, number);
    await waitFor(async () => (await sentToCustomer(s, number, 'Até logo')).length === 1);
    expect(await sentToCustomer(s, number, 'Avalie')).toHaveLength(0);
    expect(await requestOf(ticketId)).toBeUndefined();
    await customerSays(s, number, '3');
    expect(await ratingOf(ticketId)).toBeUndefined();
    expect(await ticketsOf(s, number)).toHaveLength(2);
  });

  test("another company's customer with the same number cannot rate the first company's ticket", async () => {
    const a = await company('NotaA');
    const b = await company('NotaB');
    const number = newNumber();
    const ticketId = await resolved(a, number);
    const bSocket = await t.socket(b.admin.token);
    bSocket.emit('joinNotification');
    const leaked = collectEvents(bSocket, `company-${a.companyId}-appMessage`, 800);
    // The same phone number writes "3" to company B's connection.
    await customerSays(b, number, '3');
    expect(await ratingOf(ticketId)).toBeUndefined();
    expect(await requestOf(ticketId)).toMatchObject({ status: 'waiting' });
    expect(await ticketsOf(b, number)).toHaveLength(1);
    // B's admin cannot read or change A's ticket either.
    expect((await t.as(b.admin).get(`/tickets/${ticketId}`)).status).toBe(404);
    expect((await t.as(b.admin).put(`/tickets/${ticketId}`, { status: 'open' })).status).toBe(404);
    // A's customer rates; B's sockets hear nothing of it.
    await customerSays(a, number, '3');
    expect((await waitFor(() => ratingOf(ticketId)))!.rate).toBe(3);
    expect(await leaked).toEqual([]);
  });
});
