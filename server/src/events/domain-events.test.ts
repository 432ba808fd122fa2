import { describe, expect, test } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { messages, tickets } from '../db/schema/index.js';
import { testApp, waitFor } from '../../test/helpers.js';
import type { DomainEvents } from './domain-events.js';

const t = await testApp();
const db = t.database.db;
const bus = t.app.services.bus;

/** A company with a simulator connection and one customer conversation waiting. */
async function scenario(name: string, number: string) {
  const c = await t.company(name);
  const w = await (await t.as(c.admin).post('/whatsapp', { name: 'Sim', channel: 'simulator' })).json();
  await t.as(c.admin).post(`/simulator/${w.id}/inbound`, { from: number, name: 'Ana', body: 'Oi' });
  const ticket = await waitFor(
    async () => (await db.select().from(tickets).where(eq(tickets.companyId, c.id)))[0],
  );
  return { ...c, whatsappId: w.id as number, ticketId: ticket.id };
}

describe('domain events in the running app', () => {
  test('accepting a ticket emits ticket.changed after the change; a failing listener breaks neither the answer nor the greeting', async () => {
    const s = await scenario('Events', '5511955550001');
    expect((await t.as(s.admin).put('/settings/sendGreetingAccepted', { value: 'enabled' })).status).toBe(
      200,
    );
    const seen: DomainEvents['ticket.changed'][] = [];
    const offBroken = bus.on(
      'ticket.changed',
      () => {
        throw new Error('a broken automation');
      },
      'broken',
    );
    const offSeen = bus.on('ticket.changed', async (e) => {
      // Runs after the change committed: the database already shows it.
      const [row] = await db.select().from(tickets).where(eq(tickets.id, e.after.id));
      seen.push({ ...e, after: { ...e.after, status: row!.status } });
    });
    try {
      const res = await t.as(s.admin).put(`/tickets/${s.ticketId}`, { status: 'open' });
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({ status: 'open', userId: s.admin.user.id });
      await bus.idle();
      expect(seen).toHaveLength(1);
      expect(seen[0]).toMatchObject({
        companyId: s.id,
        action: 'accept',
        by: s.admin.user.id,
        before: { id: s.ticketId, status: 'pending', userId: null },
        after: { id: s.ticketId, status: 'open', userId: s.admin.user.id },
      });
      // The greeting listener (registered before the broken one) still sent its message.
      const greeting = await waitFor(
        async () =>
          (
            await db
              .select()
              .from(messages)
              .where(and(eq(messages.ticketId, s.ticketId), eq(messages.fromMe, true)))
          )[0],
      );
      expect(greeting.body).toMatch(/^Olá, Ana! Meu nome é .+ e agora vou atender você\.$/);
    } finally {
      offBroken();
      offSeen();
    }
  });

  test("another company's changes reach listeners with that company's id only", async () => {
    const a = await scenario('EventsA', '5511955550002');
    const b = await scenario('EventsB', '5511955550003');
    const seen: { companyId: number; ticketId: number }[] = [];
    const off = bus.on(
      'ticket.changed',
      (e) => void seen.push({ companyId: e.companyId, ticketId: e.after.id }),
    );
    try {
      // B cannot change A's ticket: no event at all.
      expect((await t.as(b.admin).put(`/tickets/${a.ticketId}`, { status: 'open' })).status).toBe(404);
      expect((await t.as(b.admin).put(`/tickets/${b.ticketId}`, { status: 'open' })).status).toBe(200);
      await bus.idle();
      expect(seen).toEqual([{ companyId: b.id, ticketId: b.ticketId }]);
    } finally {
      off();
    }
  });
});
