import { describe, expect, test } from 'vitest';
import { eq } from 'drizzle-orm';
import {
  contacts,
  ticketBotStates,
  ticketSourceTracking,
  tickets,
  userRatings,
  users,
  whatsapps,
} from '../../db/schema/index.js';
import { manualClock } from '../../lib/clock.js';
import { expectError, testApp, waitFor } from '../../../test/helpers.js';

// "Now" for the period filter (days): 12:00 in São Paulo on 2026-03-10.
const clock = manualClock(new Date('2026-03-10T15:00:00Z'));
const t = await testApp({ deps: { clock, jobs: { autoStart: false } } });
const db = t.database.db;

const at = (iso: string) => new Date(iso);
let seq = 0;

async function connection(companyId: number) {
  const [w] = await db
    .insert(whatsapps)
    .values({ companyId, name: `Sim ${seq++}`, channel: 'simulator', status: 'CONNECTED' })
    .returning();
  return w!.id;
}

/** One ticket of the hand-built history, with every timestamp the figures read. */
async function ticket(
  companyId: number,
  whatsappId: number,
  v: {
    status: 'open' | 'pending' | 'closed';
    userId?: number | null;
    createdAt: string;
    acceptedAt?: string;
    firstResponseAt?: string;
    closedAt?: string;
    rate?: number;
    bot?: { startedAt: string; endedAt?: string };
  },
) {
  const [c] = await db
    .insert(contacts)
    .values({ companyId, name: `C${seq}`, number: `55119${String(seq++).padStart(8, '0')}` })
    .returning();
  const [row] = await db
    .insert(tickets)
    .values({
      companyId,
      contactId: c!.id,
      whatsappId,
      status: v.status,
      userId: v.userId ?? null,
      createdAt: at(v.createdAt),
      updatedAt: at(v.createdAt),
      acceptedAt: v.acceptedAt ? at(v.acceptedAt) : null,
      firstResponseAt: v.firstResponseAt ? at(v.firstResponseAt) : null,
      closedAt: v.closedAt ? at(v.closedAt) : null,
    })
    .returning();
  if (v.rate)
    await db
      .insert(userRatings)
      .values({ companyId, ticketId: row!.id, userId: v.userId ?? null, rate: v.rate });
  if (v.bot)
    await db.insert(ticketBotStates).values({
      ticketId: row!.id,
      companyId,
      whatsappId,
      startedAt: at(v.bot.startedAt),
      endedAt: v.bot.endedAt ? at(v.bot.endedAt) : null,
    });
  return row!.id;
}

const json = async (res: Response) => {
  expect(res.status, await res.clone().text()).toBe(200);
  return res.json();
};

/**
 * Company A, in São Paulo (UTC−3). The local day 2026-03-10 runs from 03:00Z on the 10th to 03:00Z on the
 * 11th: a ticket closed at 02:59Z on the 11th (23:59 local) belongs to it; one closed at 02:59Z on the 10th
 * does not. Minutes per ticket are in the comments.
 */
async function history() {
  const a = await t.company('DashA');
  expect((await t.as(a.admin).put('/settings/timezone', { value: 'America/Sao_Paulo' })).status).toBe(200);
  const u1 = await t.user(a.admin);
  const u2 = await t.user(a.admin);
  const w = await connection(a.id);
  const ids = {
    // wait 10, first response 15, support 60, resolution 70, rated 3.
    t1: await ticket(a.id, w, {
      status: 'closed',
      userId: u1.user.id,
      createdAt: '2026-03-10T12:00:00Z',
      acceptedAt: '2026-03-10T12:10:00Z',
      firstResponseAt: '2026-03-10T12:15:00Z',
      closedAt: '2026-03-10T13:10:00Z',
      rate: 3,
    }),
    // The bot talks 20 minutes first (not waiting for a person): wait 10, first response 20;
    // closed 23:59 local: support 929, resolution 959, rated 1.
    t2: await ticket(a.id, w, {
      status: 'closed',
      userId: u2.user.id,
      createdAt: '2026-03-10T11:00:00Z',
      bot: { startedAt: '2026-03-10T11:00:00Z', endedAt: '2026-03-10T11:20:00Z' },
      acceptedAt: '2026-03-10T11:30:00Z',
      firstResponseAt: '2026-03-10T11:40:00Z',
      closedAt: '2026-03-11T02:59:00Z',
      rate: 1,
    }),
    // Accepted in the day (wait 30), closed at 00:00 local on the 11th: not finished on the 10th.
    t3: await ticket(a.id, w, {
      status: 'closed',
      userId: u1.user.id,
      createdAt: '2026-03-10T20:00:00Z',
      acceptedAt: '2026-03-10T20:30:00Z',
      closedAt: '2026-03-11T03:00:00Z',
    }),
    // Accepted at 09:05, returned to pending, taken again at 10:00 (the first acceptance counts):
    // wait 5, support 60, resolution 65, not rated.
    t4: await ticket(a.id, w, {
      status: 'closed',
      userId: u2.user.id,
      createdAt: '2026-03-10T09:00:00Z',
      acceptedAt: '2026-03-10T09:05:00Z',
      closedAt: '2026-03-10T10:05:00Z',
    }),
    // Open now, accepted the day before.
    t5: await ticket(a.id, w, {
      status: 'open',
      userId: u1.user.id,
      createdAt: '2026-03-09T11:50:00Z',
      acceptedAt: '2026-03-09T12:00:00Z',
    }),
    // Pending now.
    t6: await ticket(a.id, w, { status: 'pending', createdAt: '2026-03-10T14:00:00Z' }),
    // Closed and reopened: open now (no close), accepted in the day: wait 10.
    t7: await ticket(a.id, w, {
      status: 'open',
      userId: u2.user.id,
      createdAt: '2026-03-10T14:50:00Z',
      acceptedAt: '2026-03-10T15:00:00Z',
    }),
    // 23:00–23:59 local on the 9th (the 10th in UTC): not in the 10th.
    t8: await ticket(a.id, w, {
      status: 'closed',
      userId: u1.user.id,
      createdAt: '2026-03-10T02:00:00Z',
      acceptedAt: '2026-03-10T02:10:00Z',
      firstResponseAt: '2026-03-10T02:12:00Z',
      closedAt: '2026-03-10T02:59:00Z',
      rate: 2,
    }),
  };
  return { a, u1, u2, w, ids };
}

const A = await history();

/** Company B: the same kind of day, which must never show in A's figures (nor A's in B's). */
const B = await (async () => {
  const b = await t.company('DashB');
  const w = await connection(b.id);
  const id = await ticket(b.id, w, {
    status: 'closed',
    userId: b.admin.user.id,
    createdAt: '2026-03-10T12:00:00Z',
    acceptedAt: '2026-03-10T12:01:00Z',
    firstResponseAt: '2026-03-10T12:02:00Z',
    closedAt: '2026-03-10T12:03:00Z',
    rate: 1,
  });
  await ticket(b.id, w, { status: 'open', userId: b.admin.user.id, createdAt: '2026-03-10T12:00:00Z' });
  await db.insert(ticketSourceTracking).values({
    companyId: b.id,
    ticketId: id,
    campaign: 'B-camp',
    source: 'fb',
    medium: 'ad',
    createdAt: at('2026-03-10T12:00:00Z'),
  });
  return { ...b, w };
})();

const day10 = 'date_from=2026-03-10&date_to=2026-03-10';
const range10 = 'initialDate=2026-03-10&finalDate=2026-03-10';

describe('GET /dashboard', () => {
  test('the counters of a hand-built day, in the company time zone', async () => {
    const d = await json(await t.as(A.a.admin).get(`/dashboard?${day10}`));
    expect(d.period).toEqual({ from: '2026-03-10', to: '2026-03-10', timeZone: 'America/Sao_Paulo' });
    expect(d.supportHappening).toBe(2); // t5, t7
    expect(d.supportPending).toBe(1); // t6
    expect(d.supportFinished).toBe(3); // t1, t2 (23:59 local), t4
    // Accepted in the day: t1 10, t2 10 (bot time excluded), t3 30, t4 5, t7 10.
    expect(d.waitTime).toEqual({ avg: 13, median: 10, count: 5 });
    expect(d.avgWaitTime).toBe(13);
    // Closed in the day: t1 60, t2 929, t4 60 → 349.67.
    expect(d.supportTime).toEqual({ avg: 349.7, median: 60, count: 3 });
    expect(d.avgSupportTime).toBe(349.7);
    expect(d.resolutionTime).toEqual({ avg: 364.7, median: 70, count: 3 });
    // First responses in the day: t1 15, t2 20 (from the bot's hand-off).
    expect(d.firstResponseTime).toEqual({ avg: 17.5, median: 17.5, count: 2 });
    expect(d.csat).toEqual({ avg: 2, ratings: 2, responseRate: 0.667 });

    const byId = new Map(d.attendants.map((x: { id: number }) => [x.id, x]));
    expect(d.attendants).toHaveLength(3); // the admin and the two attendants; nobody of company B
    expect(byId.get(A.u1.user.id)).toMatchObject({ tickets: 1, rating: 3, ratings: 1, avgSupportTime: 60 });
    expect(byId.get(A.u2.user.id)).toMatchObject({
      tickets: 2,
      rating: 1,
      ratings: 1,
      avgSupportTime: 494.5,
    });
    expect(byId.get(A.a.admin.user.id)).toMatchObject({ tickets: 0, rating: 0, avgSupportTime: null });
  });

  test('the next local day starts at 00:00 São Paulo (03:00Z)', async () => {
    const d = await json(await t.as(A.a.admin).get('/dashboard?date_from=2026-03-11&date_to=2026-03-11'));
    expect(d.supportFinished).toBe(1); // t3, closed 00:00 local
    expect(d.waitTime.count).toBe(0);
    expect(d.avgWaitTime).toBeNull();
    const prev = await json(await t.as(A.a.admin).get('/dashboard?date_from=2026-03-09&date_to=2026-03-09'));
    expect(prev.supportFinished).toBe(1); // t8, closed 23:59 local on the 9th
    expect(prev.waitTime).toEqual({ avg: 10, median: 10, count: 2 }); // t5 10, t8 10
  });

  test('the period figures come with those of the previous period of the same length', async () => {
    // One day: the 11th against the 10th (the first test's figures); the counts of now have no previous.
    const d = await json(await t.as(A.a.admin).get('/dashboard?date_from=2026-03-11&date_to=2026-03-11'));
    expect(d.previous.period).toEqual({ from: '2026-03-10', to: '2026-03-10' });
    expect(d.previous.supportFinished).toBe(3);
    expect(d.previous.waitTime).toEqual({ avg: 13, median: 10, count: 5 });
    expect(d.previous.supportTime).toEqual({ avg: 349.7, median: 60, count: 3 });
    expect(d.previous.firstResponseTime).toEqual({ avg: 17.5, median: 17.5, count: 2 });
    expect(d.previous.csat).toEqual({ avg: 2, ratings: 2, responseRate: 0.667 });
    expect(d.previous).not.toHaveProperty('supportHappening');
    expect(d.previous).not.toHaveProperty('attendants');
    // Two days (10th–11th) against the two before (8th–9th): t8 closed on the 9th.
    const two = await json(await t.as(A.a.admin).get('/dashboard?date_from=2026-03-10&date_to=2026-03-11'));
    expect(two.previous.period).toEqual({ from: '2026-03-08', to: '2026-03-09' });
    expect(two.previous.supportFinished).toBe(1);
    // A period of days: the 3 days before the last 3.
    const three = await json(await t.as(A.a.admin).get('/dashboard?days=3'));
    expect(three.previous.period).toEqual({ from: '2026-03-05', to: '2026-03-07' });
    expect(three.previous.supportFinished).toBe(0);
    expect(three.previous.waitTime).toEqual({ avg: null, median: null, count: 0 });
    // Another company's tickets never reach the comparison.
    const b = await json(await t.as(B.admin).get('/dashboard?date_from=2026-03-11&date_to=2026-03-11'));
    expect(b.previous.supportFinished).toBe(1);
    expect(b.previous.csat).toMatchObject({ avg: 1, ratings: 1 });
  });

  test('a period of days ends today (local) and includes it', async () => {
    const one = await json(await t.as(A.a.admin).get('/dashboard?days=1'));
    expect(one.period).toMatchObject({ from: '2026-03-10', to: '2026-03-10' });
    expect(one.supportFinished).toBe(3);
    const three = await json(await t.as(A.a.admin).get('/dashboard?days=3'));
    expect(three.period).toMatchObject({ from: '2026-03-08', to: '2026-03-10' });
    expect(three.supportFinished).toBe(4); // + t8
  });

  test('a filter must be chosen; bad dates are refused', async () => {
    await expectError(await t.as(A.a.admin).get('/dashboard'), 400, 'ERR_VALIDATION');
    await expectError(
      await t.as(A.a.admin).get('/dashboard?date_from=2026-03-11&date_to=2026-03-10'),
      400,
      'ERR_VALIDATION',
    );
    await expectError(
      await t.as(A.a.admin).get('/dashboard?date_from=2026-02-30&date_to=2026-03-10'),
      400,
      'ERR_VALIDATION',
    );
    await expectError(await t.as(A.a.admin).get('/dashboard?days=0'), 400, 'ERR_VALIDATION');
    await expectError(
      await t.as(A.a.admin).get('/dashboard/ticketsDay?initialDate=x'),
      400,
      'ERR_VALIDATION',
    );
  });
});

describe('charts', () => {
  test('tickets per attendant: closed in the period, by who closed them', async () => {
    const rows = await json(await t.as(A.a.admin).get(`/dashboard/ticketsUsers?${range10}`));
    expect(rows).toEqual([
      { userId: A.u2.user.id, name: 'A user', total: 2 },
      { userId: A.u1.user.id, name: 'A user', total: 1 },
    ]);
  });

  test('tickets per local day: created and closed, every day listed', async () => {
    const rows = await json(
      await t.as(A.a.admin).get('/dashboard/ticketsDay?initialDate=2026-03-08&finalDate=2026-03-11'),
    );
    expect(rows).toEqual([
      { date: '2026-03-08', created: 0, closed: 0 },
      { date: '2026-03-09', created: 2, closed: 1 }, // t5, t8 / t8
      { date: '2026-03-10', created: 6, closed: 3 }, // t1 t2 t3 t4 t6 t7 / t1 t2 t4
      { date: '2026-03-11', created: 0, closed: 1 }, // t3
    ]);
  });

  test('source tracking: the records of the period, newest first', async () => {
    await db.insert(ticketSourceTracking).values([
      {
        companyId: A.a.id,
        ticketId: A.ids.t1,
        campaign: 'verão',
        source: 'facebook',
        medium: 'ad',
        metadata: { sourceUrl: 'https://fb.me/x' },
        createdAt: at('2026-03-10T12:00:00Z'),
      },
      {
        companyId: A.a.id,
        ticketId: A.ids.t2,
        campaign: 'inverno',
        source: 'instagram',
        medium: 'link',
        createdAt: at('2026-03-11T02:59:00Z'),
      },
      {
        companyId: A.a.id,
        ticketId: A.ids.t8,
        campaign: 'antes',
        source: 'x',
        medium: 'y',
        createdAt: at('2026-03-10T02:59:00Z'),
      },
    ]);
    const list = await json(await t.as(A.a.admin).get(`/dashboard/sourceTracking?${range10}`));
    expect(list.count).toBe(2);
    expect(list.records.map((r: { campaign: string }) => r.campaign)).toEqual(['inverno', 'verão']);
    expect(list.records[1]).toMatchObject({
      ticketId: A.ids.t1,
      source: 'facebook',
      sourceUrl: 'https://fb.me/x',
    });
  });
});

describe('CSV export', () => {
  test('the tickets behind the day, local times, ratings; formulas defused', async () => {
    const [t1] = await db.select().from(tickets).where(eq(tickets.id, A.ids.t1));
    await db.update(contacts).set({ name: '=HYPERLINK("x";"y")' }).where(eq(contacts.id, t1!.contactId));
    const res = await t.as(A.a.admin).get(`/dashboard/export?${range10}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/csv/);
    expect(res.headers.get('content-disposition')).toBe(
      'attachment; filename="atendimentos-2026-03-10-2026-03-10.csv"',
    );
    const lines = (await res.text()).trim().split('\r\n');
    expect(lines[0]).toBe(
      'id;contact;number;queue;attendant;status;created;accepted;firstResponse;closed;rating;protocol;closingReason;saleValue',
    );
    // Created, accepted, answered or closed on the 10th (local): t1 t2 t3 t4 t6 t7 — not t5 nor t8.
    const ids = lines.slice(1).map((l) => Number(l.split(';')[0]));
    expect(ids).toEqual([A.ids.t1, A.ids.t2, A.ids.t3, A.ids.t4, A.ids.t6, A.ids.t7]);
    const t2 = lines.find((l) => l.startsWith(`${A.ids.t2};`))!.split(';');
    expect(t2.slice(5, 11)).toEqual([
      'closed',
      '2026-03-10 08:00:00',
      '2026-03-10 08:30:00',
      '2026-03-10 08:40:00',
      '2026-03-10 23:59:00',
      '1',
    ]);
    // The protocol (default pattern YYYYMMDD-000123); no closing reason nor sale value on this one.
    expect(t2[11]).toMatch(/^\d{8}-\d{6}$/);
    expect(t2.slice(12)).toEqual(['', '']);
    expect(lines.find((l) => l.startsWith(`${A.ids.t1};`))).toContain(`;"'=HYPERLINK(""x"";""y"")";`);
  });

  test('admins only, one company', async () => {
    await expectError(await t.as(A.u1).get(`/dashboard/export?${range10}`), 403, 'ERR_NO_PERMISSION');
    const csv = await (await t.as(B.admin).get(`/dashboard/export?${range10}&companyId=${A.a.id}`)).text();
    expect(csv.trim().split('\r\n')).toHaveLength(3); // header + B's two tickets
  });
});

describe('who may read it', () => {
  test('a plain user gets 403 on every route', async () => {
    for (const path of [
      `/dashboard?${day10}`,
      `/dashboard/ticketsUsers?${range10}`,
      `/dashboard/ticketsDay?${range10}`,
      `/dashboard/sourceTracking?${range10}`,
    ])
      await expectError(await t.as(A.u1).get(path), 403, 'ERR_NO_PERMISSION');
  });

  test("another company's admin sees only its own figures, whatever companyId it sends", async () => {
    const d = await json(await t.as(B.admin).get(`/dashboard?${day10}&companyId=${A.a.id}`));
    expect(d).toMatchObject({ supportHappening: 1, supportPending: 0, supportFinished: 1 });
    expect(d.csat).toEqual({ avg: 1, ratings: 1, responseRate: 1 });
    expect(d.attendants.map((x: { id: number }) => x.id)).toEqual([B.admin.user.id]);
    const users = await json(
      await t.as(B.admin).get(`/dashboard/ticketsUsers?${range10}&companyId=${A.a.id}`),
    );
    expect(users).toEqual([{ userId: B.admin.user.id, name: 'DashB Admin', total: 1 }]);
    const src = await json(
      await t.as(B.admin).get(`/dashboard/sourceTracking?${range10}&companyId=${A.a.id}`),
    );
    expect(src.records.map((r: { campaign: string }) => r.campaign)).toEqual(['B-camp']);
    // …and B's history changed nothing of A's day.
    const a = await json(await t.as(A.a.admin).get(`/dashboard?${day10}`));
    expect(a).toMatchObject({ supportHappening: 2, supportFinished: 3, csat: { ratings: 2 } });
  });

  test('online: an attendant with a connected socket, offline once it closes', async () => {
    const online = async () =>
      (await json(await t.as(A.a.admin).get(`/dashboard?${day10}`))).attendants.find(
        (x: { id: number }) => x.id === A.u1.user.id,
      ).online as boolean;
    expect(await online()).toBe(false);
    const s = await t.socket(A.u1.token);
    await waitFor(online);
    // The dot shows the attendant's presence (online, away, offline), the one the live view and routing use.
    const presence = async () =>
      (await json(await t.as(A.a.admin).get(`/dashboard?${day10}`))).attendants.find(
        (x: { id: number }) => x.id === A.u1.user.id,
      ).presence as string;
    await waitFor(async () => (await presence()) === 'online');
    expect((await t.as(A.u1).put('/users/me/presence', { presence: 'away' })).status).toBe(200);
    expect(await presence()).toBe('away');
    // No sign of life for 11 minutes (a server that died without a disconnect): shown offline…
    await db
      .update(users)
      .set({ lastSeenAt: new Date(Date.now() - 12 * 60_000) })
      .where(eq(users.id, A.u1.user.id));
    expect(await online()).toBe(false);
    // …until the client's 5-minute userStatus (docs/metrics.md) reports again.
    s.emit('userStatus');
    await waitFor(online);
    s.disconnect();
    await waitFor(async () => !(await online()));
  });
});

describe('timestamps written by the ticket and message services', () => {
  test('first acceptance survives a return and a reopen; the first person message is the first response', async () => {
    const w = await (
      await t.as(A.a.admin).post('/whatsapp', { name: 'SimRec', channel: 'simulator' })
    ).json();
    await t
      .as(A.a.admin)
      .post(`/simulator/${w.id}/inbound`, { from: '5511988880001', name: 'Cli', body: 'oi' });
    const tk = await waitFor(
      async () =>
        (
          await db
            .select()
            .from(tickets)
            .where(eq(tickets.whatsappId, w.id as number))
        )[0],
    );
    const read = async () => (await db.select().from(tickets).where(eq(tickets.id, tk.id)))[0]!;
    expect((await read()).acceptedAt).toBeNull();

    expect((await t.as(A.u1).put(`/tickets/${tk.id}`, { status: 'open' })).status).toBe(200);
    const accepted = (await read()).acceptedAt;
    expect(accepted).toBeInstanceOf(Date);
    expect((await read()).firstResponseAt).toBeNull();

    expect((await t.as(A.u1).post(`/messages/${tk.id}`, { body: 'Olá' })).status).toBe(200);
    const first = (await read()).firstResponseAt;
    expect(first).toBeInstanceOf(Date);

    expect((await t.as(A.u1).put(`/tickets/${tk.id}`, { status: 'pending' })).status).toBe(200);
    expect((await t.as(A.u2).put(`/tickets/${tk.id}`, { status: 'open' })).status).toBe(200);
    expect((await t.as(A.u2).post(`/messages/${tk.id}`, { body: 'De novo' })).status).toBe(200);
    expect((await t.as(A.u2).put(`/tickets/${tk.id}`, { status: 'closed' })).status).toBe(200);
    const closed = await read();
    expect(closed.acceptedAt).toEqual(accepted);
    expect(closed.firstResponseAt).toEqual(first);
    expect(closed.closedAt).toBeInstanceOf(Date);

    expect((await t.as(A.u2).put(`/tickets/${tk.id}`, { status: 'open' })).status).toBe(200);
    const reopened = await read();
    expect(reopened).toMatchObject({ status: 'open', closedAt: null, acceptedAt: accepted });
  });
});

describe('per queue and per connection', () => {
  test('every figure narrows to one queue or one connection; another company’s connection shows nothing', async () => {
    const q = await (await t.as(A.a.admin).post('/queue', { name: 'Vendas', color: '#112233' })).json();
    expect(q.id).toBeGreaterThan(0);
    await db.update(tickets).set({ queueId: q.id }).where(eq(tickets.id, A.ids.t1));
    const d = await json(await t.as(A.a.admin).get(`/dashboard?${day10}&queueId=${q.id}`));
    expect(d).toMatchObject({ supportHappening: 0, supportPending: 0, supportFinished: 1 });
    expect(d.supportTime).toEqual({ avg: 60, median: 60, count: 1 });
    expect(d.csat).toEqual({ avg: 3, ratings: 1, responseRate: 1 });
    expect(
      await json(await t.as(A.a.admin).get(`/dashboard/ticketsUsers?${range10}&queueId=${q.id}`)),
    ).toEqual([{ userId: A.u1.user.id, name: 'A user', total: 1 }]);
    const byConnection = await json(await t.as(A.a.admin).get(`/dashboard?${day10}&whatsappId=${A.w}`));
    expect(byConnection).toMatchObject({ supportHappening: 2, supportPending: 1, supportFinished: 3 });
    const foreign = await json(await t.as(A.a.admin).get(`/dashboard?${day10}&whatsappId=${B.w}`));
    expect(foreign).toMatchObject({ supportHappening: 0, supportPending: 0, supportFinished: 0 });
  });
});
