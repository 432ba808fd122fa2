/**
 * npm run bench:ticket-writes — what a ticket change costs through the real app (#32 outbox): an admin accepts
 * and returns tickets (PUT /api/tickets/:id) with a webhook on `ticket.updated` and the timeline listening;
 * prints p50/p95 of the answer and, on PostgreSQL, the statements per change — the change itself and everything
 * its listeners and the outbox write (awaited with the bus's idle()), BEGIN/COMMIT counted apart.
 * DATABASE_URL selects PostgreSQL (a scratch database is created and dropped); without it, embedded PGlite.
 *   BENCH_TICKETS (default 200): tickets, each accepted then returned (2 changes per ticket)
 */
import { rmSync } from 'node:fs';
import { benchConfig, statementCounter, jsonClient, listenBench, seedBench } from './lib.js';
import { scratchDatabase } from '../server/src/db/scratch.js';
import { buildApp } from '../server/src/app.js';
import { webhookReceiver } from '../server/test/webhook-receiver.js';

const TICKETS = Number(process.env.BENCH_TICKETS ?? 200);
const log = (...a: unknown[]) => console.log('[ticket-writes]', ...a);
const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]! : 0;
};
const round = (x: number) => Math.round(x * 100) / 100;

/** Statements sent to PostgreSQL by this process (bench/lib.ts statementCounter). */
const { statements, byText, install: countStatements } = statementCounter({ keyLength: 90 });

async function main() {
  if (process.env.DATABASE_URL) await countStatements();
  const database = await scratchDatabase(process.env.DATABASE_URL);
  const { dataDir, config } = benchConfig({ ALLOW_PRIVATE_URLS: 'true' });
  const receiver = await webhookReceiver();
  await seedBench(database.db);
  const app = await buildApp({ config, database, logger: false, loginLimit: 1000 });
  const base = await listenBench(app);
  const { call, close } = jsonClient(8);
  try {
    const login = await call(base, 'POST', '/auth/login', undefined, {
      email: 'admin@demo.local',
      password: 'Demo@1234',
    });
    const token = (login.body as { token: string }).token;
    const list = (await call(base, 'GET', '/whatsapp', token)).body as { id: number; name: string }[];
    const conn = list[0]!;
    await call(base, 'PUT', `/whatsapp/${conn.id}`, token, {
      name: conn.name,
      queueIds: [],
      greetingMessage: '',
    });
    const hook = await call(base, 'POST', '/webhooks', token, {
      url: receiver.url,
      events: ['ticket.updated'],
    });
    if (hook.status !== 201) throw new Error(`webhook: ${hook.status}`);
    for (let i = 0; i < TICKETS; i++) {
      const r = await call(base, 'POST', `/simulator/${conn.id}/inbound`, token, {
        from: `55119${String(20000000 + i).slice(-8)}`,
        body: `oi ${i}`,
      });
      if (r.status !== 202) throw new Error(`inbound ${r.status}`);
    }
    let ids: number[] = [];
    for (let tries = 0; ids.length < TICKETS && tries < 600; tries++) {
      await app.services.bus.idle();
      ids = [];
      for (let page = 1; ids.length < TICKETS; page++) {
        const r = (await call(base, 'GET', `/tickets?status=pending&showAll=true&pageNumber=${page}`, token))
          .body as { tickets: { id: number }[]; hasMore: boolean };
        ids.push(...r.tickets.map((t) => t.id));
        if (!r.hasMore) break;
      }
      if (ids.length < TICKETS) await new Promise((r) => setTimeout(r, 100));
    }
    log(`database: ${database.kind}; ${ids.length} tickets, each accepted then returned`);
    await app.services.bus.idle();
    const st0 = { ...statements };
    byText.clear();
    const ms: number[] = [];
    for (const id of ids)
      for (const status of ['open', 'pending']) {
        const t0 = performance.now();
        const r = await call(base, 'PUT', `/tickets/${id}`, token, { status });
        ms.push(performance.now() - t0);
        if (r.status !== 200) throw new Error(`PUT ${r.status}`);
        // Everything the change causes (listeners, outbox purge) counts as its cost.
        await app.services.bus.idle();
      }
    const changes = ids.length * 2;
    const perChange = (statements.all - st0.all) / changes;
    const txPerChange = (statements.txControl - st0.txControl) / changes;
    if (process.env.BENCH_STATEMENTS)
      for (const [text, n] of [...byText].sort((a, b) => b[1] - a[1]).slice(0, 30))
        log(`${(n / changes).toFixed(2)}  ${text}`);
    if (database.kind === 'postgres')
      log(
        `statements per change: ${perChange.toFixed(2)} (of which BEGIN/COMMIT/ROLLBACK ${txPerChange.toFixed(2)})`,
      );
    log(`PUT /tickets/:id p50 ${round(pct(ms, 50))} ms, p95 ${round(pct(ms, 95))} ms`);
    console.log(
      JSON.stringify({
        bench: 'ticket-writes',
        db: database.kind,
        changes,
        statementsPerChange: database.kind === 'postgres' ? round(perChange) : null,
        txControlPerChange: database.kind === 'postgres' ? round(txPerChange) : null,
        p50Ms: round(pct(ms, 50)),
        p95Ms: round(pct(ms, 95)),
      }),
    );
  } finally {
    close();
    await app.close();
    await receiver.close();
    await database.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
process.exit(0);
