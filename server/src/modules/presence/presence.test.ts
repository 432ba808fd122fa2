import { describe, expect, test } from 'vitest';
import { eq, sql } from 'drizzle-orm';
import type { Socket } from 'socket.io-client';
import { contacts, presenceLeases, queues, tickets, users } from '../../db/schema/index.js';
import { executeRows } from '../../db/rows.js';
import { manualClock } from '../../lib/clock.js';
import {
  collectEvents,
  expectError,
  secondProcess,
  testApp,
  unique,
  waitFor,
  type Session,
} from '../../../test/helpers.js';
import { PRESENCE_GRACE_MS, PRESENCE_LEASE_MS } from './presence-service.js';

/**
 * #30.2 Presence and #30.8 the supervisor profile and live view (docs/routing.md "Presence", "The live
 * view"): the switch, idleness, the last socket's grace, a dead process's users, the bus event routing
 * listens to, the supervisors' socket events; the supervisor's rights; GET /live and its room; and a second
 * company that can neither read, change nor subscribe to the first's.
 */
const clock = manualClock(new Date());
const t = await testApp({ deps: { clock, jobs: { autoStart: false } } });
const db = t.database.db;
const jobs = t.app.services.jobs;

const presenceOf = async (userId: number) =>
  (await db.select({ p: users.presence }).from(users).where(eq(users.id, userId)))[0]!.p;
const put = (s: Session, presence: unknown) => t.as(s).put('/users/me/presence', { presence });

/** Every user.presence event the bus carries (what routing's listener receives). */
const busEvents: { companyId: number; userId: number; presence: string; previous: string }[] = [];
t.app.services.bus.on('user.presence', (e) => void busEvents.push(e), 'test');

const company = async (name: string) => {
  const c = await t.company(name);
  return { ...c, attendant: await t.user(c.admin, 'user'), supervisor: await t.user(c.admin, 'supervisor') };
};
const a = await company('PresA');
const b = await company('PresB');

/** A socket and every presence event it hears. */
const listen = async (s: Session) => {
  const socket = await t.socket(s.token);
  const heard: { presence: { userId: number; presence: string }; previous: string }[] = [];
  socket.on(`company-${s.user.companyId}-presence`, (p: (typeof heard)[number]) => heard.push(p));
  return { socket, heard };
};
/** The server handled the user's last socket closing here: the end of the grace is scheduled. */
const offlineQueued = async (userId: number) =>
  (
    await executeRows(
      db,
      sql`select 1 from jobs where kind = 'presence.offline' and key = ${`user:${userId}`} and status = 'queued'`,
    )
  ).length > 0;
const closed = (s: Socket) =>
  new Promise<void>((r) => {
    if (s.disconnected) return r();
    s.once('disconnect', () => r());
    s.disconnect();
  });

describe('the switch: PUT /users/me/presence', () => {
  test('sets online, away and offline; an unknown value is a 400 naming the field and changes nothing', async () => {
    const sup = await listen(a.supervisor);
    const otherCompany = await listen(b.supervisor);
    const colleague = await t.user(a.admin, 'user');
    const peer = await listen(colleague);

    const res = await put(a.attendant, 'online');
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ userId: a.attendant.user.id, presence: 'online', manual: true });
    expect(await presenceOf(a.attendant.user.id)).toBe('online');
    // The user view carries it (what routing and the users page read).
    const view = await (await t.as(a.admin).get(`/users/${a.attendant.user.id}`)).json();
    expect(view.presence).toBe('online');

    const bad = await expectError(await put(a.attendant, 'busy'), 400, 'ERR_VALIDATION');
    expect(JSON.stringify(bad.fields)).toContain('presence');
    await expectError(await t.as(a.attendant).put('/users/me/presence', {}), 400, 'ERR_VALIDATION');
    expect(await presenceOf(a.attendant.user.id)).toBe('online');

    expect((await (await put(a.attendant, 'away')).json()).presence).toBe('away');
    expect((await (await t.as(a.attendant).get('/users/me/presence')).json()).presence).toBe('away');

    // Admins and supervisors hear each change, with what it was before; the bus carries it for routing.
    await waitFor(() => sup.heard.some((e) => e.presence.presence === 'away'));
    expect(
      sup.heard
        .filter((e) => e.presence.userId === a.attendant.user.id)
        .map((e) => [e.previous, e.presence.presence]),
    ).toEqual([
      ['offline', 'online'],
      ['online', 'away'],
    ]);
    await t.app.services.bus.idle();
    expect(busEvents.filter((e) => e.userId === a.attendant.user.id)).toEqual([
      { companyId: a.id, userId: a.attendant.user.id, presence: 'online', previous: 'offline' },
      { companyId: a.id, userId: a.attendant.user.id, presence: 'away', previous: 'online' },
    ]);
    // A plain colleague and another company's supervisor hear nothing of it.
    // (Its own socket bringing it online is the only change it hears.)
    await collectEvents(peer.socket, `company-${a.id}-presence`, 300);
    expect(peer.heard.filter((e) => e.presence.userId !== colleague.user.id)).toEqual([]);
    expect(otherCompany.heard.filter((e) => e.presence.userId !== b.supervisor.user.id)).toEqual([]);
    expect(await collectEvents(otherCompany.socket, `company-${a.id}-presence`, 100)).toEqual([]);
    // The same value again is no change: no event.
    const before = busEvents.length;
    await put(a.attendant, 'away');
    await t.app.services.bus.idle();
    expect(busEvents.length).toBe(before);
    await put(a.attendant, 'offline');
    for (const l of [sup, otherCompany, peer]) await closed(l.socket);
  });

  test('a second company cannot read or change the first company’s presence', async () => {
    await put(a.attendant, 'online');
    // Users are read in one's own company only: the other company's user is a 404, its presence unseen.
    await expectError(await t.as(b.admin).get(`/users/${a.attendant.user.id}`), 404, 'ERR_NO_USER_FOUND');
    const list = await (await t.as(b.supervisor).get('/users/list')).json();
    expect(list.map((u: { id: number }) => u.id)).not.toContain(a.attendant.user.id);
    // PUT /users/me/presence only ever changes the caller.
    await put(b.attendant, 'away');
    expect(await presenceOf(a.attendant.user.id)).toBe('online');
    await put(a.attendant, 'offline');
  });
});

describe('sockets, idleness and the grace period', () => {
  test('a socket brings an offline user online; idle → away; activity → online; a chosen away stays', async () => {
    const u = await t.user(a.admin, 'user');
    expect(await presenceOf(u.user.id)).toBe('offline');
    const { socket, heard } = await listen(u);
    await waitFor(async () => (await presenceOf(u.user.id)) === 'online');

    socket.emit('presenceIdle');
    await waitFor(async () => (await presenceOf(u.user.id)) === 'away');
    // The user's own browsers hear their changes (the switch in every tab follows).
    await waitFor(() => heard.some((e) => e.presence.presence === 'away' && e.previous === 'online'));
    socket.emit('presenceActive');
    await waitFor(async () => (await presenceOf(u.user.id)) === 'online');

    // Chosen on the switch, away outlasts activity and a new socket.
    await put(u, 'away');
    socket.emit('presenceActive');
    const again = await t.socket(u.token);
    await waitFor(
      async () =>
        (await db.select().from(presenceLeases).where(eq(presenceLeases.userId, u.user.id))).length > 0,
    );
    await t.as(u).get('/users/me/presence');
    expect(await presenceOf(u.user.id)).toBe('away');
    await closed(again);
    await closed(socket);
  });

  test('the last socket closing: still online during the grace (a reload does not flap), offline after it', async () => {
    const u = await t.user(a.admin, 'user');
    const sup = await listen(a.supervisor);
    const first = await t.socket(u.token);
    await waitFor(async () => (await presenceOf(u.user.id)) === 'online');

    // A reload: the socket closes and another opens within the grace.
    await closed(first);
    await waitFor(() => offlineQueued(u.user.id));
    const reload = await t.socket(u.token);
    clock.advance(PRESENCE_GRACE_MS + 1000);
    await jobs.runDue();
    expect(await presenceOf(u.user.id)).toBe('online');

    // The browser closes: online until the grace ends, then offline, heard by the supervisors.
    await closed(reload);
    await waitFor(() => offlineQueued(u.user.id));
    clock.advance(PRESENCE_GRACE_MS / 2);
    await jobs.runDue();
    expect(await presenceOf(u.user.id)).toBe('online');
    clock.advance(PRESENCE_GRACE_MS);
    await jobs.runDue();
    expect(await presenceOf(u.user.id)).toBe('offline');
    await waitFor(() =>
      sup.heard.some((e) => e.presence.userId === u.user.id && e.presence.presence === 'offline'),
    );
    await t.app.services.bus.idle();
    expect(busEvents.filter((e) => e.userId === u.user.id).at(-1)).toMatchObject({
      presence: 'offline',
      previous: 'online',
    });
    await closed(sup.socket);
  });

  test('across processes: a socket on another process keeps the user online; a dead process’s users go offline', async () => {
    const second = await secondProcess(t, { clock, jobs: { autoStart: false } });
    try {
      const u = await t.user(a.admin, 'user');
      const sock = (url: string) =>
        import('socket.io-client').then(
          ({ io }) =>
            new Promise<Socket>((resolve, reject) => {
              const s = io(url, {
                path: '/socket.io',
                auth: { token: u.token },
                transports: ['websocket'],
                reconnection: false,
                forceNew: true,
              });
              s.once('connect', () => resolve(s));
              s.once('connect_error', reject);
            }),
        );
      const here = await t.socket(u.token);
      const there = await sock(second.url);
      await waitFor(
        async () =>
          (await db.select().from(presenceLeases).where(eq(presenceLeases.userId, u.user.id))).length === 2,
      );
      // The socket here closes; the one on the other process still holds the user.
      await closed(here);
      await waitFor(() => offlineQueued(u.user.id));
      clock.advance(PRESENCE_GRACE_MS + 1000);
      await jobs.runDue();
      await second.app.services.jobs.runDue();
      expect(await presenceOf(u.user.id)).toBe('online');

      // The other process dies with the socket open: it never says goodbye, its hold is not renewed.
      second.app.services.presence.crash();
      await closed(there);
      // A restart keeps the state: the database still says online.
      expect(await presenceOf(u.user.id)).toBe('online');
      clock.advance(PRESENCE_LEASE_MS + 1000);
      await jobs.runDue();
      expect(await presenceOf(u.user.id)).toBe('offline');
      expect(await db.select().from(presenceLeases).where(eq(presenceLeases.userId, u.user.id))).toEqual([]);
    } finally {
      await second.close();
    }
  });

  test('a restart keeps presence: a new process reads what the old one left, a chosen away included', async () => {
    const u = await t.user(a.admin, 'user');
    await put(u, 'away');
    const next = await secondProcess(t, { clock, jobs: { autoStart: false } });
    try {
      const res = await fetch(`${next.url}/api/users/me/presence`, {
        headers: { authorization: `Bearer ${u.token}` },
      });
      expect(await res.json()).toMatchObject({ presence: 'away', manual: true });
    } finally {
      await next.close();
    }
  });
});

describe('the supervisor profile', () => {
  test('sees every queue’s tickets and the live view, but not settings, billing or users management', async () => {
    const [q] = await db
      .insert(queues)
      .values({ companyId: a.id, name: unique('Fora'), color: '#123456' })
      .returning();
    const [contact] = await db
      .insert(contacts)
      .values({ companyId: a.id, name: 'Cliente Sup', number: `5511${Date.now().toString().slice(-9)}` })
      .returning();
    const [ticket] = await db
      .insert(tickets)
      .values({ companyId: a.id, contactId: contact!.id, queueId: q!.id, status: 'pending' })
      .returning();
    // Not in the queue, yet the supervisor lists it and opens it; a plain user of no queue does not.
    const pending = await (await t.as(a.supervisor).get('/tickets?status=pending&showAll=true')).json();
    expect(pending.tickets.map((x: { id: number }) => x.id)).toContain(ticket!.id);
    expect((await t.as(a.supervisor).get(`/tickets/${ticket!.id}`)).status).toBe(200);
    const plain = await (await t.as(a.attendant).get('/tickets?status=pending&showAll=true')).json();
    expect(plain.tickets.map((x: { id: number }) => x.id)).not.toContain(ticket!.id);
    // Its socket joins the list's whole room, like an admin's.
    const socket = await t.socket(a.supervisor.token);
    const ack = await new Promise<{ ok: boolean; rooms?: string[] }>((r) =>
      socket.emit('joinTickets', 'pending', r),
    );
    expect(ack.ok).toBe(true);
    const ready = await new Promise<{ rooms: string[] }>((r) => socket.emit('ready', r));
    expect(ready.rooms).toContain(`company-${a.id}-tickets-pending`);
    expect(ready.rooms).toContain(`company-${a.id}-supervisors`);
    expect(ready.rooms).not.toContain(`company-${a.id}-admins`);
    await closed(socket);

    expect((await t.as(a.supervisor).get('/live')).status).toBe(200);
    await expectError(
      await t.as(a.supervisor).put('/settings/userRating', { value: 'enabled' }),
      403,
      'ERR_NO_PERMISSION',
    );
    await expectError(await t.as(a.supervisor).get('/invoices/all'), 403, 'ERR_NO_PERMISSION');
    await expectError(
      await t
        .as(a.supervisor)
        .post('/users', { name: 'Novo', email: `${unique('n')}@x.test`, password: 'User@123' }),
      403,
      'ERR_NO_PERMISSION',
    );
    await expectError(
      await t.as(a.supervisor).put(`/users/${a.attendant.user.id}`, { profile: 'admin' }),
      403,
      'ERR_NO_PERMISSION',
    );
    await expectError(
      await t.as(a.supervisor).del(`/users/${a.attendant.user.id}`),
      403,
      'ERR_NO_PERMISSION',
    );
    // An admin makes a user a supervisor in the users form.
    const promoted = await t.as(a.admin).put(`/users/${a.attendant.user.id}`, { profile: 'supervisor' });
    expect((await promoted.json()).profile).toBe('supervisor');
    await t.as(a.admin).put(`/users/${a.attendant.user.id}`, { profile: 'user' });
  });

  test('the away time is a company setting an admin sets, a whole number; supervisors cannot', async () => {
    const got = await (await t.as(a.attendant).get('/settings/presenceAwayMinutes')).json();
    expect(got).toEqual({ key: 'presenceAwayMinutes', value: '10' });
    expect(
      (await (await t.as(a.admin).put('/settings/presenceAwayMinutes', { value: '5' })).json()).value,
    ).toBe('5');
    for (const value of ['-1', '2.5', 'abc', '100000'])
      await expectError(
        await t.as(a.admin).put('/settings/presenceAwayMinutes', { value }),
        400,
        'ERR_VALIDATION',
      );
    expect((await (await t.as(a.attendant).get('/settings/presenceAwayMinutes')).json()).value).toBe('5');
  });
});

describe('GET /live and the live room', () => {
  test('per queue: waiting, longest wait, SLA at risk and breached; per attendant: presence, load, capacity, last reply', async () => {
    const c = await company('LiveA');
    const [q1, q2] = await db
      .insert(queues)
      .values([
        { companyId: c.id, name: 'A Vendas', color: '#111111' },
        { companyId: c.id, name: 'B Suporte', color: '#222222' },
      ])
      .returning();
    await db.update(users).set({ maxTickets: 3 }).where(eq(users.id, c.attendant.user.id));
    const now = clock.now().getTime();
    let n = 0;
    const ticket = async (values: Partial<typeof tickets.$inferInsert>) => {
      const [contact] = await db
        .insert(contacts)
        .values({ companyId: c.id, name: `Live ${++n}`, number: `55219${String(now).slice(-6)}${n}` })
        .returning();
      return (
        await db
          .insert(tickets)
          .values({ companyId: c.id, contactId: contact!.id, ...values })
          .returning()
      )[0]!;
    };
    await ticket({ queueId: q1!.id, status: 'pending', createdAt: new Date(now - 300_000) });
    await ticket({
      queueId: q1!.id,
      status: 'pending',
      createdAt: new Date(now - 60_000),
      slaAtRiskAt: new Date(now - 1000),
    });
    await ticket({
      queueId: q1!.id,
      status: 'open',
      userId: c.attendant.user.id,
      slaBreached: ['first_response'],
    });
    await ticket({ queueId: q1!.id, status: 'closed', userId: c.attendant.user.id });
    await ticket({ queueId: q2!.id, status: 'open', userId: c.attendant.user.id });
    await ticket({ queueId: null, status: 'pending', createdAt: new Date(now - 10_000) });
    await put(c.attendant, 'online');
    await db
      .update(users)
      .set({ lastReplyAt: new Date(now - 42_000) })
      .where(eq(users.id, c.attendant.user.id));

    for (const who of [c.admin, c.supervisor]) {
      const res = await t.as(who).get('/live');
      expect(res.status).toBe(200);
      const live = await res.json();
      expect(live.queues).toEqual([
        expect.objectContaining({
          queueId: q1!.id,
          name: 'A Vendas',
          waiting: 2,
          longestWaitSeconds: 300,
          slaAtRisk: 1,
          slaBreached: 1,
          open: 1,
        }),
        expect.objectContaining({
          queueId: q2!.id,
          waiting: 0,
          longestWaitSeconds: 0,
          slaAtRisk: 0,
          open: 1,
        }),
        expect.objectContaining({ queueId: null, waiting: 1, longestWaitSeconds: 10 }),
      ]);
      const me = live.attendants.find((x: { userId: number }) => x.userId === c.attendant.user.id);
      expect(me).toMatchObject({
        presence: 'online',
        openTickets: 2,
        capacity: 3,
        secondsSinceLastReply: 42,
      });
      const sup = live.attendants.find((x: { userId: number }) => x.userId === c.supervisor.user.id);
      expect(sup).toMatchObject({
        presence: 'offline',
        openTickets: 0,
        capacity: null,
        secondsSinceLastReply: null,
      });
      // Only this company's people.
      expect(live.attendants.map((x: { userId: number }) => x.userId)).not.toContain(a.attendant.user.id);
    }
    await expectError(await t.as(c.attendant).get('/live'), 403, 'ERR_NO_PERMISSION');
    await put(c.attendant, 'offline');
  });

  test('pushes to the live room on presence and ticket changes; others cannot join it', async () => {
    const c = await company('LiveB');
    const other = await company('LiveC');
    const watch = await t.socket(c.supervisor.token);
    const joined = await new Promise<{ ok: boolean }>((r) => watch.emit('join', 'live', r));
    expect(joined.ok).toBe(true);
    const pushes: { live: { attendants: { userId: number; presence: string }[] } }[] = [];
    watch.on(`company-${c.id}-live`, (p: (typeof pushes)[number]) => pushes.push(p));

    // A plain attendant is refused the room; another company's supervisor joins only its own.
    const plain = await t.socket(c.attendant.token);
    expect((await new Promise<{ ok: boolean }>((r) => plain.emit('join', 'live', r))).ok).toBe(false);
    const stranger = await t.socket(other.supervisor.token);
    expect((await new Promise<{ ok: boolean }>((r) => stranger.emit('join', 'live', r))).ok).toBe(true);
    const strangerHeard = collectEvents(stranger, `company-${c.id}-live`, 2500);
    const plainHeard = collectEvents(plain, `company-${c.id}-live`, 2500);
    // Another company's supervisor cannot read this company's view.
    const theirs = await (await t.as(other.supervisor).get('/live')).json();
    expect(theirs.attendants.map((x: { userId: number }) => x.userId)).not.toContain(c.attendant.user.id);

    // The attendant goes online: the supervisor's view shows it without asking.
    await put(c.attendant, 'online');
    await waitFor(() =>
      pushes.some((p) =>
        p.live.attendants.some((x) => x.userId === c.attendant.user.id && x.presence === 'online'),
      ),
    );
    // A burst of changes is coalesced: five switches give far fewer pushes than changes.
    const before = pushes.length;
    for (const p of ['away', 'online', 'away', 'online', 'away'] as const) await put(c.attendant, p);
    await waitFor(() =>
      pushes.some((p) =>
        p.live.attendants.some((x) => x.userId === c.attendant.user.id && x.presence === 'away'),
      ),
    );
    await waitFor(
      () => pushes.at(-1)!.live.attendants.find((x) => x.userId === c.attendant.user.id)!.presence === 'away',
    );
    expect(pushes.length - before).toBeLessThan(5);
    expect(await strangerHeard).toEqual([]);
    expect(await plainHeard).toEqual([]);
    for (const s of [watch, plain, stranger]) await closed(s);
    await put(c.attendant, 'offline');
  });
});
