import { describe, expect, test } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { companies, contacts, messages, ticketBotStates, tickets } from '../db/schema/index.js';
import { expectError, testApp, waitFor, type Session } from '../../test/helpers.js';

// docs/billing.md "Blocking": a blocked company (past dueDate + 1 day) writes nothing, whatever authenticated
// the call, and nothing is sent for it by the bot or automations either; reads stay open.
const t = await testApp();
const db = t.database.db;

const dayOffset = (n: number) => new Date(Date.now() + n * 86_400_000).toISOString().slice(0, 10);
let seq = 0;
const newNumber = () => `5511988${String(Date.now() + ++seq).slice(-6)}`;

/** A company with a running simulator connection (greeting, no queues) and its API token. */
async function setup(name: string) {
  const c = await t.company(name);
  const res = await t.as(c.admin).post('/whatsapp', {
    name: 'Sim',
    channel: 'simulator',
    greetingMessage: `Bem-vindo à ${name}!`,
  });
  expect(res.status, await res.clone().text()).toBe(201);
  const w = (await res.json()) as { id: number };
  await waitFor(async () => t.app.sessions.get(w.id));
  const { token } = await (await t.as(c.admin).get(`/whatsapp/${w.id}/token`)).json();
  return { ...c, whatsappId: w.id, token: token as string };
}

const api = (token: string, method: string, path: string, body?: unknown) =>
  t.request(method, path, { token, ...(body !== undefined ? { body } : {}) });

const phone = async (s: { admin: Session; whatsappId: number }, number: string) =>
  (await (await t.as(s.admin).get(`/simulator/${s.whatsappId}/conversations/${number}`)).json()) as {
    fromMe: boolean;
    body: string;
  }[];

/**
 * Written past the services, as another process would: the HTTP guard reads it at once; the send path's cached
 * check (billing's sendBlocked) would within its TTL, so it is told here instead of waiting.
 */
const block = async (companyId: number) => {
  await db
    .update(companies)
    .set({ dueDate: dayOffset(-3) })
    .where(eq(companies.id, companyId));
  t.app.services.billing.forgetSendCheck(companyId);
};

const late = await setup('Atrasada');
const onTime = await setup('EmDia');
// A message sent before the block: its status stays readable.
const earlier = await (
  await api(late.token, 'POST', '/messages/send', { number: newNumber(), body: 'Antes do bloqueio' })
).json();
// A personal API token made while the company was on time.
const pat = await (await t.as(late.admin).post('/api-tokens', { name: 'ERP', scope: 'write' })).json();
await block(late.id);

describe('a blocked company through the external API (connection token)', () => {
  test('send, schedule and number check answer 402 and nothing is sent; the status read stays open', async () => {
    const number = newNumber();
    await expectError(
      await api(late.token, 'POST', '/messages/send', { number, body: 'Não deve sair', externalKey: 'k1' }),
      402,
      'ERR_SUBSCRIPTION_EXPIRED',
    );
    // Multipart is refused before its files are read.
    const form = new FormData();
    form.set('number', number);
    form.set('body', 'Boleto');
    form.set('medias', new Blob([Buffer.from('%PDF-1.4')], { type: 'application/pdf' }), 'b.pdf');
    const multipart = await fetch(`${t.url}/api/messages/send`, {
      method: 'POST',
      headers: { authorization: `Bearer ${late.token}` },
      body: form,
    });
    await expectError(multipart, 402, 'ERR_SUBSCRIPTION_EXPIRED');
    await expectError(
      await api(late.token, 'POST', '/messages/schedule', {
        number,
        body: 'Lembrete',
        sendAt: new Date(Date.now() + 3_600_000).toISOString(),
      }),
      402,
      'ERR_SUBSCRIPTION_EXPIRED',
    );
    await expectError(
      await api(late.token, 'POST', '/contacts/check', { number }),
      402,
      'ERR_SUBSCRIPTION_EXPIRED',
    );
    expect(await phone(late, number)).toEqual([]);
    const status = await api(late.token, 'GET', `/messages/status/${earlier.messageId}`);
    expect(status.status, await status.clone().text()).toBe(200);
    // The block is the company's: another company's token sends as before.
    const ok = await api(onTime.token, 'POST', '/messages/send', { number, body: 'Em dia' });
    expect(ok.status, await ok.clone().text()).toBe(201);
    await waitFor(async () => (await phone(onTime, number)).some((m) => m.fromMe && m.body === 'Em dia'));
  });

  test('signed-in users of the blocked company and its API tokens are refused too (the same guard)', async () => {
    expect(pat.token).toBeTruthy();
    await expectError(
      await t.request('POST', '/tags', { token: pat.token, body: { name: 'Pelo token' } }),
      402,
      'ERR_SUBSCRIPTION_EXPIRED',
    );
    expect((await t.request('GET', '/tags', { token: pat.token })).status).toBe(200);
    await expectError(
      await t.as(late.admin).post('/tags', { name: 'Nova' }),
      402,
      'ERR_SUBSCRIPTION_EXPIRED',
    );
    expect((await t.as(late.admin).get('/tags')).status).toBe(200);
  });
});

describe('a blocked company: sends nobody asks for over HTTP', () => {
  test("a customer's message is stored, but the connection's greeting is not sent while blocked", async () => {
    const greeted = async (s: typeof late, number: string) => {
      const inbound = await t
        .as(s.admin)
        .post(`/simulator/${s.whatsappId}/inbound`, { from: number, body: 'Olá, tudo bem?' });
      expect(inbound.status, await inbound.clone().text()).toBe(202);
      // The bot has taken the message (its greeting turn is over) once its state says so.
      const ticketId = await waitFor(async () => {
        const [row] = await db
          .select({ id: tickets.id, reason: ticketBotStates.endReason })
          .from(tickets)
          .innerJoin(ticketBotStates, eq(ticketBotStates.ticketId, tickets.id))
          .innerJoin(contacts, eq(contacts.id, tickets.contactId))
          .where(and(eq(tickets.companyId, s.id), eq(contacts.number, number)));
        return row?.reason === 'greeting' ? row.id : undefined;
      });
      return { ticketId };
    };
    const number = newNumber();
    const { ticketId } = await greeted(late, number);
    const stored = await db.select().from(messages).where(eq(messages.ticketId, ticketId));
    expect(stored.map((m) => [m.fromMe, m.body])).toEqual([[false, 'Olá, tudo bem?']]);
    expect((await phone(late, number)).filter((m) => m.fromMe)).toEqual([]);

    // The company on time is greeted.
    const other = newNumber();
    await greeted(onTime, other);
    await waitFor(async () =>
      (await phone(onTime, other)).some((m) => m.fromMe && m.body === 'Bem-vindo à EmDia!'),
    );
  });
});
