import { afterAll, describe, expect, test } from 'vitest';
import { sql } from 'drizzle-orm';
import type { Socket } from 'socket.io-client';
import { QUEUE_COLORS } from '@recado/contracts';
import { executeRows } from '../../db/rows.js';
import { expectError, secondProcess, testApp, unique, waitFor, type Session } from '../../../test/helpers.js';
import { webhookReceiver } from '../../../test/webhook-receiver.js';
import { fillWaitingMessage, formatEta } from './waiting-text.js';

// Jobs are run by hand here (the restart test starts a second process whose poller runs them): what these
// tests see comes from the bus listeners, which route at once.
const t = await testApp({ env: { ALLOW_PRIVATE_URLS: 'true' }, deps: { jobs: { autoStart: false } } });
const db = t.database.db;
const receiver = await webhookReceiver();
afterAll(() => receiver.close());

const q = <T = Record<string, unknown>>(query: ReturnType<typeof sql>) => executeRows<T>(db, query);

let seq = 0;
const newNumber = () =>
  `55119${String(Date.now() % 10_000).padStart(4, '0')}${String(seq++).padStart(4, '0')}`;

interface Team {
  companyId: number;
  admin: Session;
  queueId: number;
  whatsappId: number;
  agents: Session[];
  sockets: Socket[];
}

/** A company with one queue (the policy given), a simulator connection on it, and `n` attendants of the queue. */
async function team(
  name: string,
  queue: Record<string, unknown>,
  n: number,
  presence: ('online' | 'away' | 'offline')[] = [],
): Promise<Team> {
  const c = await t.company(name);
  const qr = await t
    .as(c.admin)
    .post('/queue', { name: unique('Fila '), color: QUEUE_COLORS[seq++ % 50], ...queue });
  expect(qr.status, await qr.clone().text()).toBe(201);
  const queueId = (await qr.json()).id as number;
  const wr = await t
    .as(c.admin)
    .post('/whatsapp', { name: unique('Sim '), channel: 'simulator', queueIds: [queueId] });
  expect(wr.status, await wr.clone().text()).toBe(201);
  const agents: Session[] = [];
  const sockets: Socket[] = [];
  for (let i = 0; i < n; i++) {
    const s = await t.user(c.admin);
    expect((await t.as(c.admin).put(`/users/${s.user.id}`, { queueIds: [queueId] })).status).toBe(200);
    sockets.push(await t.socket(s.token));
    const p = presence[i] ?? 'online';
    const pr = await t.as(s).put('/users/me/presence', { presence: p });
    expect(pr.status, await pr.clone().text()).toBe(200);
    agents.push(s);
  }
  await settle();
  return { companyId: c.id, admin: c.admin, queueId, whatsappId: (await wr.json()).id, agents, sockets };
}

/** Everything the bus and the engine were handed so far is done. */
async function settle() {
  for (let i = 0; i < 3; i++) {
    await t.app.services.bus.idle();
    await t.app.services.routing.idle();
  }
}

/** A customer writes; resolves with their ticket id once it is stored. */
async function customerWrites(tm: Team, number = newNumber(), body = 'Oi, preciso de ajuda') {
  const res = await t
    .as(tm.admin)
    .post(`/simulator/${tm.whatsappId}/inbound`, { from: number, name: 'Cliente', body });
  expect(res.status).toBe(202);
  const ticketId = await waitFor(async () => {
    const [r] = await q<{ id: number }>(
      sql`select t.id from tickets t join contacts c on c.id = t.contact_id
        where c.number = ${number} and t.whatsapp_id = ${tm.whatsappId} and t.status <> 'closed'`,
    );
    return r?.id;
  });
  await settle();
  return { ticketId, number };
}

const ticket = async (id: number) =>
  (
    await q<{ status: string; user_id: number | null }>(
      sql`select status, user_id from tickets where id = ${id}`,
    )
  )[0]!;

async function loads(tm: Team) {
  const rows = await q<{ user_id: number; n: number }>(
    sql`select user_id, count(*)::int as n from tickets
      where company_id = ${tm.companyId} and status = 'open' group by user_id`,
  );
  return tm.agents.map((a) => rows.find((r) => r.user_id === a.user.id)?.n ?? 0);
}

const conversation = async (tm: Team, number: string) =>
  (await (await t.as(tm.admin).get(`/simulator/${tm.whatsappId}/conversations/${number}`)).json()) as {
    fromMe: boolean;
    body: string;
  }[];

// Busy machines and PostgreSQL: the waits are on conditions; the limit only ends a stuck run.
describe('routing', { timeout: 180_000 }, () => {
  test('the waiting-line text: placeholders and the ETA in the company language', () => {
    expect(fillWaitingMessage('Você é o {{position}}º da fila; tempo estimado {{eta}}', 3, '5 minutos')).toBe(
      'Você é o 3º da fila; tempo estimado 5 minutos',
    );
    expect(formatEta(30, 'pt')).toBe('menos de 1 minuto');
    expect(formatEta(300, 'en')).toBe('5 minutes');
    expect(formatEta(60, 'es')).toBe('1 minuto');
    expect(formatEta(null, 'en')).toBe('a few minutes');
    expect(formatEta(4800, 'pt')).toBe('1 h 20 min');
  });

  test('round robin over 3 online attendants and 30 tickets gives 10 each; the attendant is told', async () => {
    const tm = await team('RoundRobin', { assignmentPolicy: 'round_robin' }, 3);
    const told = new Map<number, number>();
    tm.sockets.forEach((s, i) =>
      s.on(
        `company-${tm.companyId}-ticket`,
        (p: { ticket: { id: number; userId: number | null; status: string } }) => {
          if (p.ticket.status === 'open' && p.ticket.userId === tm.agents[i]!.user.id)
            told.set(p.ticket.id, p.ticket.userId);
        },
      ),
    );
    const ids: number[] = [];
    for (let i = 0; i < 30; i++) ids.push((await customerWrites(tm)).ticketId);
    expect(await loads(tm)).toEqual([10, 10, 10]);
    // Each attendant's socket heard of each of its tickets.
    await waitFor(() => told.size === 30);
    // Alternating: consecutive tickets never go to the same attendant.
    const owners = [];
    for (const id of ids) owners.push((await ticket(id)).user_id);
    for (let i = 1; i < owners.length; i++) expect(owners[i]).not.toBe(owners[i - 1]);
    // The timeline says who took it and how.
    const [h] = await q<{ action: string; data: { by: string; policy: string } }>(
      sql`select action, data from ticket_histories where ticket_id = ${ids[0]} and action = 'accept'`,
    );
    expect(h).toMatchObject({ action: 'accept', data: { by: 'routing', policy: 'round_robin' } });
  });

  test('least busy gives to the fewest open tickets, ties to the longest idle', async () => {
    const tm = await team('LeastBusy', {}, 3);
    const [a, b] = tm.agents;
    // Loads 3, 1, 0 under manual (picked by hand).
    for (const [who, n] of [
      [a!, 3],
      [b!, 1],
    ] as const)
      for (let i = 0; i < n; i++) {
        const { ticketId } = await customerWrites(tm);
        expect((await t.as(who).put(`/tickets/${ticketId}`, { status: 'open' })).status).toBe(200);
      }
    expect(await loads(tm)).toEqual([3, 1, 0]);
    for (let i = 0; i < 4; i++) await customerWrites(tm);
    expect(await loads(tm)).toEqual([3, 1, 0]); // manual: they wait
    expect(
      (await t.as(tm.admin).put(`/queue/${tm.queueId}`, { assignmentPolicy: 'least_busy' })).status,
    ).toBe(200);
    await settle();
    const after = await loads(tm);
    expect(after[0]).toBe(3); // the busiest got nothing
    expect(after[1]! + after[2]!).toBe(5);
    expect([...after].sort()).toEqual([2, 3, 3]);
  });

  test('capacity 2: the third customer waits, is told their place, and is assigned after a resolve', async () => {
    const tm = await team(
      'Capacity',
      {
        assignmentPolicy: 'round_robin',
        capacity: 2,
        waitingMessage: 'Você é o {{position}}º da fila; tempo estimado {{eta}}',
      },
      1,
    );
    const first = await customerWrites(tm);
    await customerWrites(tm);
    const third = await customerWrites(tm);
    expect(await loads(tm)).toEqual([2]);
    expect((await ticket(third.ticketId)).status).toBe('pending');
    // The customer's phone shows their place in line, through the normal outbound path.
    const told = await waitFor(async () =>
      (await conversation(tm, third.number)).find((m) => m.fromMe && m.body.includes('da fila')),
    );
    expect(told.body).toMatch(/^Você é o 1º da fila; tempo estimado (menos de 1 minuto|\d+ minutos?)$/);
    // Those served at once were not told anything.
    expect((await conversation(tm, first.number)).some((m) => m.body.includes('da fila'))).toBe(false);
    // A place frees: the waiting ticket goes to the attendant.
    expect((await t.as(tm.agents[0]!).put(`/tickets/${first.ticketId}`, { status: 'closed' })).status).toBe(
      200,
    );
    await waitFor(async () => (await ticket(third.ticketId)).status === 'open');
    expect(await ticket(third.ticketId)).toEqual({ status: 'open', user_id: tm.agents[0]!.user.id });
    expect(await loads(tm)).toEqual([2]);
  });

  test('capacity raised on the queue and the user maxTickets: places free at once', async () => {
    const tm = await team('Raise', { assignmentPolicy: 'least_busy', capacity: 1 }, 1);
    for (let i = 0; i < 3; i++) await customerWrites(tm);
    expect(await loads(tm)).toEqual([1]);
    const me = tm.agents[0]!.user.id;
    // The queue's capacity overrides the user's own maximum.
    expect((await t.as(tm.admin).put(`/users/${me}`, { maxTickets: 2 })).status).toBe(200);
    await settle();
    expect(await loads(tm)).toEqual([1]);
    // No queue capacity: the user's maximum applies.
    expect((await t.as(tm.admin).put(`/queue/${tm.queueId}`, { capacity: null })).status).toBe(200);
    await settle();
    expect(await loads(tm)).toEqual([2]);
    expect((await t.as(tm.admin).put(`/users/${me}`, { maxTickets: null })).status).toBe(200);
    await settle();
    expect(await loads(tm)).toEqual([3]);
  });

  test('an away attendant receives nothing; coming online they get the waiting tickets', async () => {
    const tm = await team('Away', { assignmentPolicy: 'round_robin', capacity: 3 }, 2, ['online', 'away']);
    for (let i = 0; i < 5; i++) await customerWrites(tm);
    expect(await loads(tm)).toEqual([3, 0]);
    expect((await t.as(tm.agents[1]!).put('/users/me/presence', { presence: 'online' })).status).toBe(200);
    await settle();
    await waitFor(async () => (await loads(tm))[1] === 2);
  });

  test('an owned contact returns to its owner; with the owner offline the policy applies', async () => {
    const tm = await team('Owner', { assignmentPolicy: 'round_robin' }, 2);
    const [a, b] = tm.agents;
    const number = newNumber();
    const firstVisit = await customerWrites(tm, number);
    const firstTo = (await ticket(firstVisit.ticketId)).user_id;
    expect(
      (
        await t
          .as(tm.agents.find((x) => x.user.id === firstTo)!)
          .put(`/tickets/${firstVisit.ticketId}`, { status: 'closed' })
      ).status,
    ).toBe(200);
    // B owns the customer.
    await q(
      sql`update contacts set owner_id = ${b!.user.id} where number = ${number} and company_id = ${tm.companyId}`,
    );
    for (let i = 0; i < 2; i++) {
      // Whoever round robin would pick next, the owner gets them.
      const again = await customerWrites(tm, number, `Voltei ${i}`);
      expect(await ticket(again.ticketId)).toEqual({ status: 'open', user_id: b!.user.id });
      const [asg] = await q<{ reason: string }>(
        sql`select reason from routing_assignments where ticket_id = ${again.ticketId}`,
      );
      expect(asg!.reason).toBe('owner');
      expect((await t.as(b!).put(`/tickets/${again.ticketId}`, { status: 'closed' })).status).toBe(200);
      await settle();
    }
    // The owner goes offline: the queue's policy (A is the only one online).
    expect((await t.as(b!).put('/users/me/presence', { presence: 'offline' })).status).toBe(200);
    const third = await customerWrites(tm, number, 'E agora?');
    expect(await ticket(third.ticketId)).toEqual({ status: 'open', user_id: a!.user.id });
  });

  test('skip: the ticket goes to the next attendant, never back to the skipper, and is counted', async () => {
    const tm = await team('Skip', { assignmentPolicy: 'round_robin' }, 3);
    const { ticketId } = await customerWrites(tm);
    const first = (await ticket(ticketId)).user_id!;
    const skipper = tm.agents.find((x) => x.user.id === first)!;
    // Only the attendant who has it may skip it.
    const other = tm.agents.find((x) => x.user.id !== first)!;
    await expectError(await t.as(other).post(`/tickets/${ticketId}/skip`), 404, 'ERR_NO_TICKET_FOUND');
    const res = await t.as(skipper).post(`/tickets/${ticketId}/skip`);
    expect(res.status, await res.clone().text()).toBe(200);
    await settle();
    const second = (await ticket(ticketId)).user_id!;
    expect(second).not.toBeNull();
    expect(second).not.toBe(first);
    // The second skips too: the third attendant, not either skipper.
    await t.as(tm.agents.find((x) => x.user.id === second)!).post(`/tickets/${ticketId}/skip`);
    await settle();
    const third = (await ticket(ticketId)).user_id!;
    expect([first, second]).not.toContain(third);
    const [asg] = await q<{ reason: string }>(
      sql`select reason from routing_assignments where ticket_id = ${ticketId} order by id desc limit 1`,
    );
    expect(asg!.reason).toBe('skip');
    const stats = (await (await t.as(tm.admin).get('/routing/stats')).json()) as {
      userId: number;
      skips: number;
    }[];
    expect(stats.find((s) => s.userId === first)!.skips).toBe(1);
    expect(stats.find((s) => s.userId === second)!.skips).toBe(1);
    expect(stats.find((s) => s.userId === third)!.skips).toBe(0);
    // A ticket that is not open cannot be skipped.
    await t.as(tm.agents.find((x) => x.user.id === third)!).put(`/tickets/${ticketId}`, { status: 'closed' });
    await expectError(
      await t.as(tm.agents.find((x) => x.user.id === third)!).post(`/tickets/${ticketId}/skip`),
      409,
      'ERR_TICKET_NOT_SKIPPABLE',
    );
  });

  test('ticket.assigned webhook: ticket, user, policy and reason', async () => {
    const tm = await team('Hook', { assignmentPolicy: 'least_busy' }, 1);
    const wh = await t.as(tm.admin).post('/webhooks', { url: receiver.url, events: ['ticket.assigned'] });
    expect(wh.status, await wh.clone().text()).toBe(201);
    const { ticketId } = await customerWrites(tm);
    await settle();
    const hook = await waitFor(async () => {
      await t.app.services.jobs.runDue();
      return receiver.received.find(
        (r) => r.json.event === 'ticket.assigned' && r.json.companyId === tm.companyId,
      );
    });
    expect(hook.json.data).toMatchObject({
      ticket: { id: ticketId, status: 'open', userId: tm.agents[0]!.user.id },
      user: { id: tm.agents[0]!.user.id },
      policy: 'least_busy',
      reason: 'policy',
    });
  });

  test('bad input: capacity and maxTickets negative or fractional are 400 naming the field, nothing changed', async () => {
    const tm = await team('BadInput', { assignmentPolicy: 'round_robin', capacity: 2 }, 1);
    for (const capacity of [-1, 1.5, 'dois'])
      for (const res of [
        await t.as(tm.admin).put(`/queue/${tm.queueId}`, { capacity, assignmentPolicy: 'least_busy' }),
        await t.as(tm.admin).post('/queue', { name: unique('Q'), color: '#123456', capacity }),
      ]) {
        const body = await expectError(res, 400, 'ERR_VALIDATION');
        expect(JSON.stringify(body)).toContain('capacity');
      }
    await expectError(
      await t.as(tm.admin).put(`/queue/${tm.queueId}`, { assignmentPolicy: 'fastest' }),
      400,
      'ERR_VALIDATION',
    );
    const queue = await (await t.as(tm.admin).get(`/queue/${tm.queueId}`)).json();
    expect(queue).toMatchObject({ assignmentPolicy: 'round_robin', capacity: 2 });
    const me = tm.agents[0]!.user.id;
    const body = await expectError(
      await t.as(tm.admin).put(`/users/${me}`, { maxTickets: -3 }),
      400,
      'ERR_VALIDATION',
    );
    expect(JSON.stringify(body)).toContain('maxTickets');
    expect((await (await t.as(tm.admin).get(`/users/${me}`)).json()).maxTickets).toBeNull();
    // The owner's wait is a whole number of minutes; the owner mode one of its three values.
    for (const value of ['-1', '2.5', 'cinco', '100000'])
      await expectError(
        await t.as(tm.admin).put('/settings/ownerWaitMinutes', { value }),
        400,
        'ERR_VALIDATION',
      );
    await expectError(
      await t.as(tm.admin).put('/settings/ownerRouting', { value: 'sometimes' }),
      400,
      'ERR_VALIDATION',
    );
    expect((await (await t.as(tm.admin).get('/settings/ownerWaitMinutes')).json()).value).toBe('5');
  });

  test("a second company cannot see or change the first one's routing, nor skip its tickets", async () => {
    const tm = await team('TenantA', { assignmentPolicy: 'round_robin', capacity: 4 }, 1);
    const { ticketId } = await customerWrites(tm);
    const other = await t.company('TenantB');
    const intruder = await t.user(other.admin);
    expect((await t.as(other.admin).get(`/queue/${tm.queueId}`)).status).toBe(404);
    expect(
      (await t.as(other.admin).put(`/queue/${tm.queueId}`, { assignmentPolicy: 'manual', capacity: 0 }))
        .status,
    ).toBe(404);
    expect((await t.as(other.admin).put(`/users/${tm.agents[0]!.user.id}`, { maxTickets: 0 })).status).toBe(
      404,
    );
    await expectError(await t.as(intruder).post(`/tickets/${ticketId}/skip`), 404, 'ERR_NO_TICKET_FOUND');
    await expectError(await t.as(other.admin).post(`/tickets/${ticketId}/skip`), 404, 'ERR_NO_TICKET_FOUND');
    const stats = (await (await t.as(other.admin).get('/routing/stats')).json()) as { userId: number }[];
    expect(stats.some((s) => s.userId === tm.agents[0]!.user.id)).toBe(false);
    // An attendant cannot read the stats; a supervisor (the live view) reads their own company's.
    expect((await t.as(tm.agents[0]!).get('/routing/stats')).status).toBe(403);
    const supervisor = await t.user(tm.admin, 'supervisor');
    const own = (await (await t.as(supervisor).get('/routing/stats')).json()) as { userId: number }[];
    expect(own.some((s) => s.userId === tm.agents[0]!.user.id)).toBe(true);
    expect(await (await t.as(tm.admin).get(`/queue/${tm.queueId}`)).json()).toMatchObject({
      assignmentPolicy: 'round_robin',
      capacity: 4,
    });
    expect(await ticket(ticketId)).toEqual({ status: 'open', user_id: tm.agents[0]!.user.id });
  });

  /** `n` waiting tickets put straight into the database (no event: as if the process died before its listeners). */
  async function waitingTickets(tm: Team, n: number) {
    await q(sql`insert into contacts (company_id, name, number)
      select ${tm.companyId}, 'Cliente ' || g, ${`5521${Date.now() % 100000}`} || lpad(g::text, 4, '0')
      from generate_series(1, ${n}) g`);
    await q(sql`insert into tickets (company_id, contact_id, whatsapp_id, queue_id, status)
      select ${tm.companyId}, c.id, ${tm.whatsappId}, ${tm.queueId}, 'pending' from contacts c
      where c.company_id = ${tm.companyId} and not exists (select 1 from tickets t where t.contact_id = c.id)`);
  }

  test('two processes assign 200 tickets to 10 attendants of capacity 5 at once: none twice, none over capacity', async () => {
    const tm = await team('Concurrent', { assignmentPolicy: 'least_busy', capacity: 5 }, 10);
    await waitingTickets(tm, 200);
    const other = await secondProcess(t, { jobs: { autoStart: false } }, { ownPool: true });
    try {
      const engines = [t.app.services.routing, other.app.services.routing];
      const round = () =>
        Promise.all(
          engines.flatMap((e) => [
            e.route(tm.companyId, tm.queueId),
            e.sweep(),
            e.route(tm.companyId, tm.queueId),
          ]),
        );
      await round();
      const check = async () => {
        const l = await loads(tm);
        expect(Math.max(...l)).toBeLessThanOrEqual(5);
        const [dup] = await q<{ n: number }>(
          sql`select count(*)::int as n from (select ticket_id from routing_assignments a
            join tickets t on t.id = a.ticket_id where t.company_id = ${tm.companyId}
            group by ticket_id having count(*) > 1) d`,
        );
        expect(dup!.n).toBe(0);
        return l;
      };
      expect(await check()).toEqual(Array(10).fill(5));
      // 20 resolved at once, both processes race for the freed places.
      await q(sql`update tickets set status = 'closed' where id in (select id from tickets
        where company_id = ${tm.companyId} and status = 'open' order by id limit 20)`);
      await round();
      expect(await check()).toEqual(Array(10).fill(5));
      const [{ n }] = (await q<{ n: number }>(
        sql`select count(*)::int as n from routing_assignments a join tickets t on t.id = a.ticket_id
          where t.company_id = ${tm.companyId}`,
      )) as [{ n: number }];
      expect(n).toBe(70);
      // Each assignment is one accept in the timeline.
      const [{ h }] = (await q<{ h: number }>(
        sql`select count(*)::int as h from ticket_histories where company_id = ${tm.companyId} and action = 'accept'`,
      )) as [{ h: number }];
      expect(h).toBe(70);
    } finally {
      await other.close();
    }
  });

  test('a restart resumes the waiting assignments (the start job and the sweep)', async () => {
    const tm = await team('Restart', { assignmentPolicy: 'round_robin', capacity: 2 }, 2);
    await waitingTickets(tm, 6);
    expect(await loads(tm)).toEqual([0, 0]);
    // A process starting on the database (its job poller on) routes what waits.
    const next = await secondProcess(t, { jobs: { autoStart: true, pollMs: 50 } });
    try {
      await waitFor(async () => (await loads(tm)).join() === '2,2');
    } finally {
      await next.close();
    }
  });
});
