import { describe, expect, test } from 'vitest';
import { and, eq, sql } from 'drizzle-orm';
import { messages, tickets } from '../../db/schema/index.js';
import { testApp, unique, waitFor, type Session } from '../../../test/helpers.js';

/** #29.15: a ticket search's result shows the message that matched, not merely the ticket's last one. */
const t = await testApp({ deps: { jobs: { autoStart: false } } });
const db = t.database.db;

async function simulator(s: Session) {
  const w = await (await t.as(s).post('/whatsapp', { name: unique('Sim'), channel: 'simulator' })).json();
  await waitFor(async () => t.app.sessions.get(w.id));
  return w.id as number;
}

let seq = 0;
/** A customer writes these messages in order; resolves once all are stored. */
async function conversation(s: Session, companyId: number, wid: number, name: string, bodies: string[]) {
  const from = `55119${String(Date.now() % 1e5).padStart(5, '0')}${String(seq++).padStart(3, '0')}`;
  for (const body of bodies) {
    const id = unique('m');
    expect((await t.as(s).post(`/simulator/${wid}/inbound`, { id, from, name, body })).status).toBe(202);
    await waitFor(async () => {
      const [m] = await db
        .select({ id: messages.id })
        .from(messages)
        .where(and(eq(messages.companyId, companyId), eq(messages.providerId, id)));
      return m;
    });
  }
  const [ticket] = await db
    .select({ id: tickets.id })
    .from(tickets)
    .where(and(eq(tickets.companyId, companyId), eq(tickets.whatsappId, wid)))
    .orderBy(tickets.id);
  return ticket!.id;
}

type Row = { id: number; lastMessage: string; searchMatch?: { messageId: number; body: string } };
const search = async (s: Session, q: string) =>
  (
    (await (await t.as(s).get(`/tickets?searchParam=${encodeURIComponent(q)}&showAll=true`)).json()) as {
      tickets: Row[];
    }
  ).tickets;

describe('ticket search results', () => {
  test('carry the newest matching message (accent and case blind), beside the last message', async () => {
    const A = await t.company('Busca');
    const wid = await simulator(A.admin);
    const id = await conversation(A.admin, A.id, wid, 'Renata Lima', [
      'Bom dia! Quero saber do reembolso do pedido 77',
      'Também tenho uma dúvida sobre a entrega',
      'Obrigada',
    ]);
    const [hit] = await search(A.admin, 'REEMBOLSO');
    expect(hit).toMatchObject({ id, lastMessage: 'Obrigada' });
    expect(hit!.searchMatch?.body).toBe('Bom dia! Quero saber do reembolso do pedido 77');
    const [accent] = await search(A.admin, 'duvida');
    expect(accent!.searchMatch?.body).toBe('Também tenho uma dúvida sobre a entrega');
    // Found by the contact's name only: no message matched, none is shown.
    const [byName] = await search(A.admin, 'Renata');
    expect(byName!.id).toBe(id);
    expect(byName!.searchMatch).toBeUndefined();
    // Without a search, lists carry no match.
    const list = (await (await t.as(A.admin).get('/tickets?showAll=true')).json()).tickets as Row[];
    expect(list.find((x) => x.id === id)?.searchMatch).toBeUndefined();

    // Another company with the same words finds only its own ticket and its own message.
    const B = await t.company('Outra');
    const other = await conversation(B.admin, B.id, await simulator(B.admin), 'Bruno', [
      'reembolso da outra empresa',
    ]);
    const fromB = await search(B.admin, 'reembolso');
    expect(fromB.map((x) => x.id)).toEqual([other]);
    expect(fromB[0]!.searchMatch?.body).toBe('reembolso da outra empresa');
    expect((await search(A.admin, 'reembolso')).map((x) => x.id)).toEqual([id]);
  });

  test('a common text (over 2,000 matching messages) finds the same tickets and matches as a rare one', async () => {
    // Up to 2,000 matching messages the search reads them first (their tickets and newest matches); more,
    // and it walks the list's order instead (ticket-queries.ts, messageSearchTickets). Both ways answer alike.
    const C = await t.company('Comum');
    const wid = await simulator(C.admin);
    const x = await conversation(C.admin, C.id, wid, 'Xavier', ['Olá, sobre o pedido antigo', 'Obrigado']);
    await db.execute(sql`insert into messages (company_id, ticket_id, contact_id, whatsapp_id, provider_id, body,
        created_at, updated_at)
      select company_id, id, contact_id, whatsapp_id, 'bulk-' || g, 'PEDIDO número ' || g,
        now() - interval '1 day', now() - interval '1 day'
      from tickets, generate_series(1, 2001) g where id = ${x}`);
    const y = await conversation(C.admin, C.id, await simulator(C.admin), 'Yara', ['Um pédido novo']);
    const common = await search(C.admin, 'pedido');
    expect(common.map((r) => r.id).sort()).toEqual([x, y].sort());
    expect(common.find((r) => r.id === x)?.searchMatch?.body).toBe('Olá, sobre o pedido antigo');
    expect(common.find((r) => r.id === y)?.searchMatch?.body).toBe('Um pédido novo');
    // A rare text of the same company: read first, same shape.
    const rare = await search(C.admin, 'ANTIGO');
    expect(rare.map((r) => r.id)).toEqual([x]);
    expect(rare[0]!.searchMatch?.body).toBe('Olá, sobre o pedido antigo');
    // Another company's messages never count, either way.
    const D = await t.company('Vizinha');
    await conversation(D.admin, D.id, await simulator(D.admin), 'Davi', ['pedido da vizinha']);
    expect((await search(C.admin, 'pedido')).map((r) => r.id).sort()).toEqual([x, y].sort());
    expect((await search(D.admin, 'pedido')).map((r) => r.searchMatch?.body)).toEqual(['pedido da vizinha']);
  });
});
