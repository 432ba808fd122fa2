import { describe, expect, test } from 'vitest';
import { and, eq, sql } from 'drizzle-orm';
import { contacts, queues, tags, tickets, ticketSourceTracking, ticketTags } from '../../db/schema/index.js';
import { executeRows } from '../../db/rows.js';
import { simulatorConversation, testApp } from '../../../test/helpers.js';
import { ticketQueries, viewFromJson, viewJsonOf } from './ticket-queries.js';

/**
 * A change that announces its ticket builds the view in its own statement (viewJsonOf, the messages' store):
 * it must be the view GET /tickets/{id} reads (ticketQueries.byId), field for field.
 */
const t = await testApp();
const db = t.database.db;

/** A JSON round trip: what a socket or an HTTP answer carries. */
const wire = (x: unknown) => JSON.parse(JSON.stringify(x));

const conversation = (name: string) => simulatorConversation(t, name, '5511944440001', 'Ana');

describe('the ticket view built inside a change', () => {
  test('equals the view read by id: queue, attendant, tags, tracking, custom fields, SLA and snooze', async () => {
    const { c, ticket } = await conversation('ViewJson');
    const [q] = await db
      .insert(queues)
      .values({ companyId: c.id, name: 'Vendas', color: '#aa0000' })
      .returning();
    const [a, b] = await db
      .insert(tags)
      .values([
        { companyId: c.id, name: 'Zeta', color: '#111111' },
        { companyId: c.id, name: 'Alfa', color: '#222222' },
      ])
      .returning();
    await db.insert(ticketTags).values([
      { ticketId: ticket.id, tagId: a!.id },
      { ticketId: ticket.id, tagId: b!.id },
    ]);
    await db.insert(ticketSourceTracking).values({
      companyId: c.id,
      ticketId: ticket.id,
      campaign: 'black-friday',
      source: 'instagram',
      medium: 'ad',
      metadata: { sourceUrl: 'https://example.test/ad' },
    });
    await db
      .update(contacts)
      .set({ email: 'ana@example.test', customFields: { plano: 'ouro' } })
      .where(eq(contacts.id, ticket.contactId));
    const due = new Date(Date.now() + 3_600_000);
    await db
      .update(tickets)
      .set({
        queueId: q!.id,
        userId: c.admin.user.id,
        status: 'open',
        saleValue: '123.45',
        customFields: { pedido: '42' },
        firstResponseDueAt: due,
        slaAtRiskAt: due,
        slaBreached: ['first_response'],
        snoozedUntil: due,
        snoozedAt: new Date(),
      })
      .where(eq(tickets.id, ticket.id));

    const [row] = await executeRows<{ view: unknown }>(
      db,
      sql`with t as (select * from tickets where id = ${ticket.id}) select ${viewJsonOf('t')} as view`,
    );
    const built = viewFromJson(row!.view);
    const read = await ticketQueries.byId(db, c.id, ticket.id);
    expect(read).toBeTruthy();
    expect(wire(built)).toEqual(wire(read));
    expect(built).toMatchObject({
      queue: { id: q!.id, name: 'Vendas' },
      user: { id: c.admin.user.id },
      tags: [{ name: 'Alfa' }, { name: 'Zeta' }],
      ticketSourceTracking: [{ campaign: 'black-friday' }],
      saleValue: 123.45,
    });

    // No row in the CTE: no view.
    const [none] = await executeRows<{ view: unknown }>(
      db,
      sql`with t as (select * from tickets where id = -1) select ${viewJsonOf('t')} as view`,
    );
    expect(viewFromJson(none!.view)).toBeUndefined();
  });

  test("a reply's announcement carries the ticket as it is after the reply; another company hears nothing", async () => {
    const { c, ticket } = await conversation('ViewReply');
    const other = await t.company('ViewReplyOther');
    const socket = await t.socket(c.admin.token);
    await new Promise((r) => socket.emit('joinChatBox', String(ticket.id), r));
    const spy = await t.socket(other.admin.token);
    await new Promise((r) => spy.emit('joinNotification', r));
    // Another company's ticket: refused.
    expect(await new Promise((r) => spy.emit('joinChatBox', String(ticket.id), r))).toEqual({ ok: false });
    const heardByOther: unknown[] = [];
    spy.on(`company-${c.id}-appMessage`, (e: unknown) => heardByOther.push(e));
    spy.on(`company-${other.id}-appMessage`, (e: unknown) => heardByOther.push(e));
    const created = new Promise<{ action: string; ticket: { lastMessage: string; updatedAt: string } }>(
      (resolve) =>
        socket.on(
          `company-${c.id}-appMessage`,
          (e: {
            action: string;
            message: { fromMe: boolean };
            ticket: { lastMessage: string; updatedAt: string };
          }) => {
            if (e.action === 'create' && e.message.fromMe) resolve(e);
          },
        ),
    );
    const accepted = await t
      .as(c.admin)
      .put(`/tickets/${ticket.id}`, { status: 'open', userId: c.admin.user.id });
    expect(accepted.status).toBe(200);
    const res = await t.as(c.admin).post(`/messages/${ticket.id}`, { body: 'Olá, Ana!' });
    expect(res.status).toBeLessThan(300);
    const ev = await created;
    expect(ev.ticket.lastMessage).toBe('Olá, Ana!');
    const [now] = await db
      .select()
      .from(tickets)
      .where(and(eq(tickets.id, ticket.id), eq(tickets.companyId, c.id)));
    // The announced view is the one the reply wrote (its last message and time), as GET would read it then.
    expect(ev.ticket.updatedAt).toBe(now!.updatedAt.toISOString());
    const read = wire(await ticketQueries.byId(db, c.id, ticket.id));
    expect(ev.ticket).toEqual({ ...read, updatedAt: ev.ticket.updatedAt });
    expect(heardByOther).toHaveLength(0);
  });
});
