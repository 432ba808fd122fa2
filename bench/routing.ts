/**
 * npm run bench:routing — the routing engine under load (docs/routing.md): one company, 10 queues (half round
 * robin, half least busy, capacity 5), 100 online attendants (10 per queue) and 1,000 waiting tickets (seeded
 * with set-based SQL, no events: the first sweep routes them, 500 places for 1,000 tickets). Then, one at a
 * time, an attendant resolves a ticket through the ticket service and the engine gives the freed place to the
 * next waiting ticket: the latency from "place freed" (the close's announcement on the bus) to "ticket
 * assigned and the attendant's socket told" (the engine's emit to the attendant's room), p50/p99; then a
 * burst of 50 resolves at once. Statements per assignment: the engine's own (its counter), and on PostgreSQL
 * every statement this process sent during the measured phase (the resolves included), per assignment.
 * DATABASE_URL selects PostgreSQL (a scratch database); without it, embedded PGlite.
 *   BENCH_SAMPLES (default 300 sequential resolves)
 */
import { rmSync } from 'node:fs';
import { sql } from 'drizzle-orm';
import { benchConfig, seedBench } from './lib.js';
import { scratchDatabase } from '../server/src/db/scratch.js';
import { executeRows } from '../server/src/db/rows.js';
import { buildApp } from '../server/src/app.js';

const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 300);
const QUEUES = 10;
const PER_QUEUE = 10;
const TICKETS = 1000;
const CAPACITY = 5;

const log = (...a: unknown[]) => console.log('[routing]', ...a);
const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]! : 0;
};
const round = (x: number) => Math.round(x * 100) / 100;

/** Statements sent to PostgreSQL by this process (as bench/flows.ts counts them). */
const pgStatements = { all: 0 };
if (process.env.DATABASE_URL) {
  const { default: pg } = await import('pg');
  const proto = pg.Client.prototype as unknown as { query: (...a: unknown[]) => unknown };
  const original = proto.query;
  proto.query = function (this: unknown, ...args: unknown[]) {
    pgStatements.all++;
    return original.apply(this, args);
  };
}

const database = await scratchDatabase(process.env.DATABASE_URL);
const { dataDir, config } = benchConfig();
await seedBench(database.db, false);
const app = await buildApp({ config, database, logger: false, jobs: { autoStart: false } });
const { services } = app;
const db = database.db;
const q = <T = Record<string, unknown>>(s: ReturnType<typeof sql>) => executeRows<T>(db, s);

try {
  // The company, its admin, connection, queues, attendants and waiting tickets: set-based SQL.
  const [company] = await q<{ id: number }>(
    sql`insert into companies (name, plan_id, due_date) select 'Routing bench', id, '2099-01-01' from plans
      order by id desc limit 1 returning id`,
  );
  const companyId = company!.id;
  const [admin] = await q<{ id: number }>(
    sql`insert into users (company_id, name, email, password_hash, profile)
      values (${companyId}, 'Admin', 'admin@routing.bench', 'x', 'admin') returning id`,
  );
  const [w] = await q<{ id: number }>(
    sql`insert into whatsapps (company_id, name, channel, status, is_default)
      values (${companyId}, 'Sim', 'simulator', 'CONNECTED', true) returning id`,
  );
  const queueIds = (
    await q<{ id: number }>(
      sql`insert into queues (company_id, name, color, assignment_policy, capacity)
        select ${companyId}, 'Fila ' || g, '#' || lpad(to_hex(g * 4000), 6, '0'),
          case when g % 2 = 0 then 'round_robin' else 'least_busy' end, ${CAPACITY}
        from generate_series(1, ${QUEUES}) g returning id`,
    )
  ).map((r) => r.id);
  await q(sql`insert into users (company_id, name, email, password_hash, profile, presence)
    select ${companyId}, 'Atendente ' || g, 'a' || g || '@routing.bench', 'x', 'user', 'online'
    from generate_series(1, ${QUEUES * PER_QUEUE}) g`);
  await q(sql`insert into user_queues (user_id, queue_id)
    select u.id, (${JSON.stringify(queueIds)}::jsonb ->> ((row_number() over (order by u.id) - 1) % ${QUEUES})::int)::int
    from users u where u.company_id = ${companyId} and u.profile = 'user'`);
  await q(sql`insert into contacts (company_id, name, number)
    select ${companyId}, 'Cliente ' || g, '55119' || lpad(g::text, 8, '0') from generate_series(1, ${TICKETS}) g`);
  await q(sql`insert into tickets (company_id, contact_id, whatsapp_id, queue_id, status, created_at)
    select ${companyId}, c.id, ${w!.id},
      (${JSON.stringify(queueIds)}::jsonb ->> ((row_number() over (order by c.id) - 1) % ${QUEUES})::int)::int,
      'pending', now() - interval '1 hour' + (row_number() over (order by c.id)) * interval '1 second'
    from contacts c where c.company_id = ${companyId}`);
  log(`seeded ${QUEUES} queues, ${QUEUES * PER_QUEUE} attendants, ${TICKETS} waiting tickets`);

  // "Told": the engine's emit to the attendant's own room (Socket.IO hands it to their sockets from there).
  const toldAt = new Map<number, number>();
  const toUser = app.events.toUser.bind(app.events);
  app.events.toUser = ((cid: number, uid: number, entity: never, payload: never) => {
    const p = payload as { ticket?: { id: number; status: string } };
    if (entity === 'ticket' && p.ticket?.status === 'open') toldAt.set(p.ticket.id, performance.now());
    return toUser(cid, uid, entity, payload);
  }) as typeof app.events.toUser;

  const t0 = performance.now();
  await services.routing.sweep();
  await services.bus.idle();
  const initialMs = performance.now() - t0;
  const [{ open }] = (await q<{ open: number }>(
    sql`select count(*)::int as open from tickets where company_id = ${companyId} and status = 'open'`,
  )) as [{ open: number }];
  log(`first sweep: ${open} assigned in ${Math.round(initialMs)} ms`);

  // "Freed": the close's announcement on the bus (after its commit), seen by a tap inside emit.
  const freedAt = new Map<number, number>();
  services.bus.tap(({ event, payload }) => {
    if (event !== 'ticket.announced') return;
    const p = payload as {
      ticket: { userId: number | null; status: string };
      change: { before: { status?: string } | null };
    };
    if (p.ticket.status === 'closed' && p.change.before?.status === 'open' && p.ticket.userId)
      freedAt.set(p.ticket.userId, performance.now());
  }, 'bench');
  const tenant = { userId: admin!.id, companyId, profile: 'admin', super: false, sessionId: 'bench' };

  /** Resolves `n` open tickets at once; answers each freed place's latency to the next assignment's emit. */
  async function resolve(n: number) {
    const picked = await q<{ id: number; user_id: number; queue_id: number }>(
      sql`select id, user_id, queue_id from tickets where company_id = ${companyId} and status = 'open'
        order by random() limit ${n}`,
    );
    const before = new Set(toldAt.keys());
    await Promise.all(picked.map((t) => services.tickets.update(tenant, t.id, { status: 'closed' })));
    await services.bus.idle();
    await services.routing.idle();
    // Each freed attendant got a new ticket: from their close's announcement to its emit.
    const newly = await q<{ id: number; user_id: number }>(
      sql`select a.ticket_id as id, a.user_id from routing_assignments a
        where a.company_id = ${companyId} and a.user_id in (select (jsonb_array_elements_text(${JSON.stringify(
          picked.map((p) => p.user_id),
        )}::jsonb))::int)
        order by a.id desc limit ${n * 2}`,
    );
    const lat: number[] = [];
    for (const p of picked) {
      const got = newly.find((x) => x.user_id === p.user_id && !before.has(x.id) && toldAt.has(x.id));
      const freed = freedAt.get(p.user_id);
      if (got && freed !== undefined) lat.push(toldAt.get(got.id)! - freed);
    }
    return { lat, assigned: newly.filter((x) => !before.has(x.id)).length };
  }

  const engine0 = services.routing.statements();
  const pg0 = pgStatements.all;
  const latencies: number[] = [];
  let assigned = 0;
  for (let i = 0; i < SAMPLES; i++) {
    const r = await resolve(1);
    latencies.push(...r.lat);
    assigned += r.assigned;
  }
  const engineStatements = services.routing.statements() - engine0;
  const pgDuring = pgStatements.all - pg0;
  const burst = await resolve(50);
  log(
    `sequential: ${latencies.length} samples p50 ${round(pct(latencies, 50))} ms p99 ${round(pct(latencies, 99))} ms; burst of 50: p99 ${round(pct(burst.lat, 99))} ms`,
  );
  const result = {
    bench: 'routing',
    db: database.kind,
    queues: QUEUES,
    attendants: QUEUES * PER_QUEUE,
    waiting: TICKETS,
    capacity: CAPACITY,
    firstSweepAssigned: open,
    firstSweepMs: Math.round(initialMs),
    samples: latencies.length,
    freedToToldP50Ms: round(pct(latencies, 50)),
    freedToToldP99Ms: round(pct(latencies, 99)),
    freedToToldMaxMs: round(Math.max(...latencies)),
    burst50P99Ms: round(pct(burst.lat, 99)),
    engineStatementsPerAssignment: round(engineStatements / Math.max(1, assigned)),
    pgStatementsPerResolveAndAssignment:
      database.kind === 'postgres' ? round(pgDuring / Math.max(1, assigned)) : null,
  };
  console.log(JSON.stringify(result));
} finally {
  await app.close();
  await database.drop();
  rmSync(dataDir, { recursive: true, force: true });
}
