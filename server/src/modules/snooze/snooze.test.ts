import { describe, expect, test } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { jobs as jobsTable, ticketHistories, tickets } from '../../db/schema/index.js';
import { manualClock } from '../../lib/clock.js';
import { expectError, nextEvent, testApp, waitFor } from '../../../test/helpers.js';

// #30.6 priority and #30.7 snooze on a real server and database, with a manual clock and the job poller
// off: the wake-up job runs when the test moves the clock and calls runDue().
const clock = manualClock(new Date('2026-11-27T12:00:00Z'));
const t = await testApp({ deps: { clock, jobs: { autoStart: false } } });
const db = t.database.db;
const inHours = (h: number) => new Date(clock.now().getTime() + h * 3600_000).toISOString();

let numbers = 0;
/** A company with a simulator connection and an accepted (open) ticket of the admin's. */
async function scenario(name: string) {
  const c = await t.company(name);
  const w = await (await t.as(c.admin).post('/whatsapp', { name: 'Sim', channel: 'simulator' })).json();
  const number = `55119666${String(10000 + numbers++).slice(-5)}`;
  const inbound = (body: string) =>
    t.as(c.admin).post(`/simulator/${w.id}/inbound`, { from: number, name: 'Cliente', body });
  await inbound('Olá');
  const ticket = await waitFor(
    async () => (await db.select().from(tickets).where(eq(tickets.companyId, c.id)))[0],
  );
  const accepted = await t.as(c.admin).put(`/tickets/${ticket.id}`, { status: 'open' });
  expect(accepted.status).toBe(200);
  return { ...c, whatsappId: w.id as number, ticketId: ticket.id, number, inbound };
}

const ids = (page: { tickets: { id: number }[] }) => page.tickets.map((x) => x.id);
const wakes = async (ticketId: number) =>
  (
    await db
      .select()
      .from(ticketHistories)
      .where(and(eq(ticketHistories.ticketId, ticketId), eq(ticketHistories.action, 'wake')))
  ).length;

describe('priority', () => {
  test('set by PUT, shown in the view, an unknown one is a 400 naming the field', async () => {
    const s = await scenario('Prio');
    const view = await (await t.as(s.admin).get(`/tickets/${s.ticketId}`)).json();
    expect(view.priority).toBe('normal');
    const set = await t.as(s.admin).put(`/tickets/${s.ticketId}`, { priority: 'urgent' });
    expect(set.status).toBe(200);
    expect((await set.json()).priority).toBe('urgent');
    const bad = await t.as(s.admin).put(`/tickets/${s.ticketId}`, { priority: 'asap' });
    const body = await expectError(bad, 400, 'ERR_VALIDATION');
    expect(JSON.stringify(body)).toContain('priority');
    const [row] = await db.select().from(tickets).where(eq(tickets.id, s.ticketId));
    expect(row!.priority).toBe(3);
  });

  test('the lists put higher priorities first, then the newest activity', async () => {
    const c = await t.company('Order');
    const w = await (await t.as(c.admin).post('/whatsapp', { name: 'Sim', channel: 'simulator' })).json();
    const made: number[] = [];
    for (let i = 0; i < 4; i++) {
      await t
        .as(c.admin)
        .post(`/simulator/${w.id}/inbound`, { from: `5511955500${10 + i}`, name: `C${i}`, body: 'oi' });
      const id = await waitFor(async () => {
        const rows = await db.select().from(tickets).where(eq(tickets.companyId, c.id));
        return rows.length === i + 1 ? rows.find((r) => !made.includes(r.id))!.id : undefined;
      });
      made.push(id);
    }
    // Newest first by default: 3, 2, 1, 0. Ticket 0 urgent, ticket 2 high → 0, 2, 3, 1.
    await t.as(c.admin).put(`/tickets/${made[0]}`, { priority: 'urgent' });
    await t.as(c.admin).put(`/tickets/${made[2]}`, { priority: 'high' });
    await t.as(c.admin).put(`/tickets/${made[3]}`, { priority: 'low' });
    // made[1] stays normal; the updates above changed updatedAt, so compare by priority groups.
    const page = await (await t.as(c.admin).get('/tickets?status=pending&showAll=true')).json();
    expect(ids(page)).toEqual([made[0], made[2], made[1], made[3]]);
  });
});

describe('snooze', () => {
  test('until a time: leaves the open list for the snoozed tab, the job wakes it once, the attendant is told', async () => {
    const s = await scenario('Snooze');
    const socket = await t.socket(s.admin.token);
    const res = await t.as(s.admin).post(`/tickets/${s.ticketId}/snooze`, { until: inHours(2) });
    expect(res.status).toBe(200);
    const view = await res.json();
    expect(view.snoozedUntil).toBe(inHours(2));
    expect(view.snoozedAt).not.toBeNull();
    const open = await (await t.as(s.admin).get('/tickets?status=open')).json();
    expect(ids(open)).not.toContain(s.ticketId);
    const snoozed = await (await t.as(s.admin).get('/tickets?status=open&snoozed=true')).json();
    expect(ids(snoozed)).toEqual([s.ticketId]);

    // Not yet due: nothing wakes.
    clock.advance(3600_000);
    await t.app.services.jobs.runDue();
    expect(await wakes(s.ticketId)).toBe(0);

    const woken = nextEvent<{ action: string; ticket: { id: number }; reason: string }>(
      socket,
      `company-${s.id}-ticketWoken`,
    );
    clock.advance(3600_000);
    await t.app.services.jobs.runDue();
    expect(await woken).toMatchObject({ action: 'woken', ticket: { id: s.ticketId }, reason: 'time' });
    const back = await (await t.as(s.admin).get('/tickets?status=open')).json();
    expect(ids(back)).toContain(s.ticketId);
    expect((await (await t.as(s.admin).get('/tickets?status=open&snoozed=true')).json()).tickets).toEqual([]);
    // The job again (a second delivery), and a reply after it: still one wake.
    await t.app.services.snooze.wake(s.id, s.ticketId, 'time', { snoozedAt: new Date(view.snoozedAt) });
    await t.app.services.jobs.runDue();
    expect(await wakes(s.ticketId)).toBe(1);
  });

  test('until the customer replies: no job; the customer writes and it wakes, early, once', async () => {
    const s = await scenario('Reply');
    const res = await t.as(s.admin).post(`/tickets/${s.ticketId}/snooze`, { untilReply: true });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ snoozeUntilReply: true, snoozedUntil: null });
    const job = await db
      .select()
      .from(jobsTable)
      .where(and(eq(jobsTable.kind, 'ticket.snooze-wake'), eq(jobsTable.key, `ticket:${s.ticketId}`)));
    expect(job.filter((j) => j.status === 'queued')).toEqual([]);
    await s.inbound('Voltei, pode me ajudar?');
    await waitFor(async () => (await wakes(s.ticketId)) === 1);
    const view = await (await t.as(s.admin).get(`/tickets/${s.ticketId}`)).json();
    expect(view).toMatchObject({ status: 'open', snoozedAt: null, snoozeUntilReply: false });
    await s.inbound('Mais uma');
    await waitFor(async () => {
      const v = await (await t.as(s.admin).get(`/tickets/${s.ticketId}`)).json();
      return v.lastMessage === 'Mais uma';
    });
    expect(await wakes(s.ticketId)).toBe(1);
  });

  test('a timed snooze wakes early when the customer writes, and its job then does nothing', async () => {
    const s = await scenario('Early');
    await t.as(s.admin).post(`/tickets/${s.ticketId}/snooze`, { until: inHours(5) });
    await s.inbound('Oi de novo');
    await waitFor(async () => (await wakes(s.ticketId)) === 1);
    clock.advance(6 * 3600_000);
    await t.app.services.jobs.runDue();
    expect(await wakes(s.ticketId)).toBe(1);
  });

  test('bad input: a past time names until; nothing asked; a pending ticket; nothing changes', async () => {
    const s = await scenario('Bad');
    const past = await t.as(s.admin).post(`/tickets/${s.ticketId}/snooze`, {
      until: new Date(clock.now().getTime() - 60_000).toISOString(),
    });
    const body = await expectError(past, 400, 'ERR_VALIDATION');
    expect(JSON.stringify(body)).toContain('until');
    const empty = await t.as(s.admin).post(`/tickets/${s.ticketId}/snooze`, {});
    expect(JSON.stringify(await expectError(empty, 400, 'ERR_VALIDATION'))).toContain('until');
    const notDate = await t.as(s.admin).post(`/tickets/${s.ticketId}/snooze`, { until: 'amanhã' });
    await expectError(notDate, 400, 'ERR_VALIDATION');
    await t.as(s.admin).put(`/tickets/${s.ticketId}`, { status: 'pending' });
    const pending = await t.as(s.admin).post(`/tickets/${s.ticketId}/snooze`, { untilReply: true });
    await expectError(pending, 400, 'ERR_TICKET_NOT_OPEN');
    const [row] = await db.select().from(tickets).where(eq(tickets.id, s.ticketId));
    expect(row!.snoozedAt).toBeNull();
  });

  test('unsnooze by hand; closing a snoozed ticket ends its snooze', async () => {
    const s = await scenario('Hand');
    await t.as(s.admin).post(`/tickets/${s.ticketId}/snooze`, { until: inHours(1) });
    const back = await t.as(s.admin).del(`/tickets/${s.ticketId}/snooze`);
    expect(back.status).toBe(200);
    expect((await back.json()).snoozedAt).toBeNull();
    expect(await wakes(s.ticketId)).toBe(1);
    await t.as(s.admin).post(`/tickets/${s.ticketId}/snooze`, { until: inHours(1) });
    await t.as(s.admin).put(`/tickets/${s.ticketId}`, { status: 'closed' });
    await waitFor(async () => {
      const [row] = await db.select().from(tickets).where(eq(tickets.id, s.ticketId));
      return row!.snoozedAt === null;
    });
  });

  test('an attendant who cannot see the ticket, and another company, cannot snooze or reprioritise it', async () => {
    const s = await scenario('Owner');
    const other = await t.company('Intruder');
    const r1 = await t.as(other.admin).post(`/tickets/${s.ticketId}/snooze`, { untilReply: true });
    expect(r1.status).toBe(404);
    const r2 = await t.as(other.admin).put(`/tickets/${s.ticketId}`, { priority: 'urgent' });
    expect([403, 404]).toContain(r2.status);
    const r3 = await t.as(other.admin).del(`/tickets/${s.ticketId}/snooze`);
    expect(r3.status).toBe(404);
    // An attendant without the ticket's queue (it has none, and showQueuelessTickets off) cannot either.
    const agent = await t.user(s.admin);
    await t.as(s.admin).put(`/users/${agent.user.id}`, { showQueuelessTickets: false });
    const r4 = await t.as(agent).post(`/tickets/${s.ticketId}/snooze`, { untilReply: true });
    expect(r4.status).toBe(403);
    const [row] = await db.select().from(tickets).where(eq(tickets.id, s.ticketId));
    expect(row).toMatchObject({ snoozedAt: null, priority: 1 });
    // The intruder's socket cannot follow the ticket's room.
    const socket = await t.socket(other.admin.token);
    const ack = await new Promise((resolve) => socket.emit('joinChatBox', String(s.ticketId), resolve));
    expect(ack).toEqual({ ok: false });
  });
});
