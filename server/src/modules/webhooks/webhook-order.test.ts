import { afterAll, describe, expect, test } from 'vitest';
import { eq } from 'drizzle-orm';
import { manualClock } from '../../lib/clock.js';
import { contacts, webhookDeliveries } from '../../db/schema/index.js';
import { testApp, waitFor, type Session } from '../../../test/helpers.js';
import { webhookReceiver, type ReceivedHook } from '../../../test/webhook-receiver.js';
import { botKit, newNumber } from '../bot/bot-test-kit.js';
import { HOLD_ATTEMPTS, retryDelayMs } from './webhook-service.js';

const clock = manualClock(new Date());
const t = await testApp({ env: { ALLOW_PRIVATE_URLS: 'true' }, deps: { clock, jobs: { autoStart: false } } });
const k = botKit(t);
const jobs = t.app.services.jobs;
const receiver = await webhookReceiver();
const slow = await webhookReceiver({ delayMs: 1500 });
afterAll(() => Promise.all([receiver.close(), slow.close()]));

const ALL = ['contact.created', 'ticket.created', 'ticket.updated', 'message.created', 'message.ack'];

async function hook(admin: Session, url: string) {
  const res = await t.as(admin).post('/webhooks', { name: 'Ordem', url, events: ALL });
  expect(res.status, await res.clone().text()).toBe(201);
}

const flush = async () => {
  await t.app.services.bus.idle();
  await jobs.runDue();
};

/** Runs what is due until nothing new arrives; `advance` moves the clock on between rounds (retries). */
async function settle(done: () => boolean, advanceMs = 0, rounds = 20) {
  for (let i = 0; i < rounds && !done(); i++) {
    await flush();
    if (!done() && advanceMs) clock.advance(advanceMs);
  }
  await flush();
}

/** The contact an accepted delivery is about (acks through their ticket). */
function contactOf(r: ReceivedHook, ticketContacts: Map<number, number>): number | undefined {
  const d = r.json.data as Record<string, { contactId?: number; id?: number; ticketId?: number }>;
  if (r.json.event === 'contact.created') return d.contact!.id;
  if (r.json.event.startsWith('ticket.')) return d.ticket!.contactId;
  if (r.json.event === 'message.created') return d.message!.contactId;
  return ticketContacts.get((r.json.data as { ticketId: number }).ticketId);
}

describe('webhook order', () => {
  test('a receiver answering out of order still gets each conversation in causal order, numbered', async () => {
    const a = await t.company('OrderA');
    const { whatsappId } = await k.setup(a.admin, [
      { name: `Vendas ${newNumber()}`, greetingMessage: 'Vendas: em que posso ajudar?' },
      { name: `Suporte ${newNumber()}`, greetingMessage: 'Suporte aqui.' },
    ]);
    await hook(a.admin, receiver.url);
    const mine = () => receiver.received.filter((r) => r.json.companyId === a.id);
    // Out of order on purpose: the first request is refused (retried a minute later) and answers take
    // 0–40 ms at random, so with eight deliveries side by side anything could overtake anything.
    receiver.answer(500);
    receiver.setDelayOf(() => Math.floor(Math.random() * 40));

    // One API send to a new number: contact, ticket and message are created together.
    const { token } = await (await t.as(a.admin).get(`/whatsapp/${whatsappId}/token`)).json();
    const apiNumber = newNumber();
    const sent = await t.request('POST', '/messages/send', {
      token,
      body: { number: apiNumber, body: 'Seu pedido saiu para entrega' },
    });
    expect(sent.status, await sent.clone().text()).toBe(201);
    // A customer writes; the bot answers with its menu; the customer picks 1; the bot moves the ticket.
    const customer = newNumber();
    await k.say(a.admin, whatsappId, customer, 'oi');
    await k.say(a.admin, whatsappId, customer, '1');

    const accepted = () => mine().filter((r) => r.status === 200);
    const apiMessage = () =>
      accepted().some(
        (r) =>
          r.json.event === 'message.created' &&
          (r.json.data as { message: { body: string } }).message.body === 'Seu pedido saiu para entrega',
      );
    await settle(
      () => apiMessage() && accepted().some((r) => r.json.event === 'ticket.updated'),
      retryDelayMs(1),
    );
    receiver.setDelayOf(null);
    const got = accepted();

    // Every event carries its number and time; numbers are unique in the company.
    for (const r of got) {
      expect(r.json.sequence, JSON.stringify(r.json)).toEqual(expect.any(Number));
      expect(new Date(r.json.occurredAt!).toISOString()).toBe(r.json.occurredAt);
    }
    expect(new Set(got.map((r) => r.json.sequence)).size).toBe(got.length);

    const ticketContacts = new Map<number, number>();
    for (const r of got)
      if (r.json.event.startsWith('ticket.')) {
        const ticket = (r.json.data as { ticket: { id: number; contactId: number } }).ticket;
        ticketContacts.set(ticket.id, ticket.contactId);
      }
    const byContact = new Map<number, ReceivedHook[]>();
    for (const r of got) {
      const contactId = contactOf(r, ticketContacts);
      expect(contactId, JSON.stringify(r.json)).toEqual(expect.any(Number));
      byContact.set(contactId!, [...(byContact.get(contactId!) ?? []), r]);
    }
    // Each conversation arrived in the order it happened (its sequence), whatever the receiver did.
    for (const list of byContact.values()) {
      const seqs = list.map((r) => r.json.sequence!);
      expect(seqs).toEqual([...seqs].sort((x, y) => x - y));
    }
    const lane = (number: string) =>
      [...byContact.values()].find((list) =>
        list.some(
          (r) =>
            (r.json.data as { ticket?: { contact: { number: string } } }).ticket?.contact.number === number,
        ),
      )!;
    const events = (list: ReceivedHook[]) => list.map((r) => r.json.event);

    // The API send: the contact, then its ticket, then the message (the refused first one held them).
    const api = lane(apiNumber);
    expect(events(api).slice(0, 3)).toEqual(['contact.created', 'ticket.created', 'message.created']);
    expect(api[1]!.json.data).toMatchObject({ actor: 'api', ticket: { status: 'pending' } });

    // The customer: ticket, their message, the bot's menu after it; "1", then the bot's move and greeting.
    const conv = lane(customer);
    const created = conv.filter((r) => r.json.event === 'message.created');
    const bodies = created.map(
      (r) => (r.json.data as { message: { body: string; fromMe: boolean } }).message,
    );
    expect(events(conv)[0]).toBe('ticket.created');
    expect(bodies[0]).toMatchObject({ body: 'oi', fromMe: false });
    expect(bodies[1]).toMatchObject({ fromMe: true });
    expect(bodies[1]!.body).toContain('Escolha um setor');
    const pick = bodies.findIndex((m) => m.body === '1' && !m.fromMe);
    expect(pick).toBeGreaterThan(1);
    // The chosen queue's greeting (the bot's answer to "1") comes after the customer's "1".
    expect(bodies.slice(pick + 1).some((m) => m.fromMe && /Vendas: em que|Suporte aqui/.test(m.body))).toBe(
      true,
    );
    const moved = conv.findIndex((r) => r.json.event === 'ticket.updated');
    expect(moved).toBeGreaterThan(conv.indexOf(created[pick]!));
    expect(conv[moved]!.json.data).toMatchObject({ actor: 'bot', changes: { queueId: { from: null } } });
  });

  test("a refused event holds only its contact's later events, and steps aside after HOLD_ATTEMPTS", async () => {
    const a = await t.company('OrderHold');
    const { whatsappId } = await k.setup(a.admin, [{ name: `Fila ${newNumber()}`, greetingMessage: '' }]);
    await hook(a.admin, receiver.url);
    const stuck = newNumber();
    const fine = newNumber();
    // The receiver refuses the first event of the `stuck` customer (the ticket), whatever it is sent.
    const isStuckTicket = (j: ReceivedHook['json']) =>
      j.event === 'ticket.created' &&
      (j.data as { ticket: { contact: { number: string } } }).ticket.contact.number === stuck;
    receiver.setRule((j) => (isStuckTicket(j) ? 500 : undefined));
    const mine = () => receiver.received.filter((r) => r.json.companyId === a.id);
    const contactIdOf = async (number: string) =>
      (await t.database.db.select().from(contacts).where(eq(contacts.number, number)))[0]?.id;

    await t.as(a.admin).post(`/simulator/${whatsappId}/inbound`, { from: stuck, body: 'primeira' });
    await t.as(a.admin).post(`/simulator/${whatsappId}/inbound`, { from: fine, body: 'outra conversa' });
    await waitFor(async () => (await contactIdOf(stuck)) && (await contactIdOf(fine)));
    await flush();
    await flush();
    const ticketContacts = new Map<number, number>();
    const about = async (number: string) => {
      const id = await contactIdOf(number);
      for (const r of mine())
        if (r.json.event.startsWith('ticket.')) {
          const ticket = (r.json.data as { ticket: { id: number; contactId: number } }).ticket;
          ticketContacts.set(ticket.id, ticket.contactId);
        }
      return mine().filter((r) => contactOf(r, ticketContacts) === id);
    };
    // The other conversation went through; the stuck one's message waits behind its refused ticket.created.
    expect((await about(fine)).filter((r) => r.status === 200).map((r) => r.json.event)).toEqual(
      expect.arrayContaining(['ticket.created', 'message.created']),
    );
    let stuckNow: ReceivedHook[] = [];
    const stuckAccepted = () => stuckNow.filter((r) => r.status === 200);
    const refresh = async () => {
      stuckNow = await about(stuck);
    };
    await refresh();
    expect(stuckAccepted()).toEqual([]);
    expect(mine().filter((r) => isStuckTicket(r.json))).toHaveLength(1);

    // Its retries keep holding the lane, HOLD_ATTEMPTS in all; then it steps aside and the lane moves on.
    for (let attempt = 1; attempt < HOLD_ATTEMPTS; attempt++) {
      clock.advance(retryDelayMs(attempt));
      await flush();
      await refresh();
      if (attempt < HOLD_ATTEMPTS - 1) expect(stuckAccepted()).toEqual([]);
    }
    expect(mine().filter((r) => isStuckTicket(r.json))).toHaveLength(HOLD_ATTEMPTS);
    await flush();
    await refresh();
    expect(stuckAccepted().map((r) => r.json.event)).toContain('message.created');
    const [head] = await t.database.db
      .select()
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.event, 'ticket.created'))
      .then((rows) => rows.filter((d) => d.companyId === a.id && d.body.includes(stuck)));
    expect(head).toMatchObject({ status: 'pending', attempts: HOLD_ATTEMPTS, lane: null });
    // It is still retried on its own, and arrives once the receiver takes it (late, its sequence says so).
    receiver.setRule(null);
    clock.advance(retryDelayMs(HOLD_ATTEMPTS));
    await flush();
    await refresh();
    const late = stuckAccepted().find((r) => r.json.event === 'ticket.created')!;
    const message = stuckAccepted().find((r) => r.json.event === 'message.created')!;
    expect(late.json.sequence!).toBeLessThan(message.json.sequence!);
  });

  test("a company's hanging endpoint does not hold another company's deliveries", async () => {
    const a = await t.company('OrderFast');
    const b = await t.company('OrderSlow');
    const fast = await k.setup(a.admin, [{ name: `F ${newNumber()}`, greetingMessage: '' }]);
    const slowCo = await k.setup(b.admin, [{ name: `S ${newNumber()}`, greetingMessage: '' }]);
    await hook(a.admin, receiver.url);
    await hook(b.admin, slow.url);
    const startA = receiver.received.length;
    const startB = slow.received.length;
    // B first: several of B's conversations, each its own lane, each answered after 1.5 s.
    for (let i = 0; i < 3; i++)
      await t.as(b.admin).post(`/simulator/${slowCo.whatsappId}/inbound`, { from: newNumber(), body: 'b' });
    for (let i = 0; i < 3; i++)
      await t.as(a.admin).post(`/simulator/${fast.whatsappId}/inbound`, { from: newNumber(), body: 'a' });
    await flush();
    const gotA = receiver.received.slice(startA).filter((r) => r.json.companyId === a.id);
    const gotB = slow.received.slice(startB);
    expect(gotA.length).toBeGreaterThanOrEqual(6);
    expect(gotB.length).toBeGreaterThanOrEqual(1);
    // A's deliveries were all made while B's first answers were still on their way.
    const firstB = Math.min(...gotB.map((r) => r.at));
    expect(Math.max(...gotA.map((r) => r.at))).toBeLessThan(firstB + 1500);
  });
});
