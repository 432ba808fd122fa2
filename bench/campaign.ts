/**
 * npm run bench:campaign — a campaign to 10,000 contacts with no interval between sends, through the real
 * dispatch engine (durable jobs, claim-before-send shipping rows) and the simulator channel. Prints sends per
 * second and checks that every contact's simulated phone received exactly one message. DATABASE_URL selects
 * PostgreSQL (a scratch database is created and dropped); without it, embedded PGlite in memory.
 *   BENCH_CONTACTS (default 10000), BENCH_POLL_MS (job poll, default 50)
 */
import { rmSync } from 'node:fs';
import { sql } from 'drizzle-orm';
import { benchConfig, listenBench, seedBench } from './lib.js';
import { DEFAULT_POOL_SIZE } from '../server/src/db/client.js';
import { scratchDatabase } from '../server/src/db/scratch.js';
import { executeRows } from '../server/src/db/rows.js';
import { buildApp } from '../server/src/app.js';

const N = Number(process.env.BENCH_CONTACTS ?? 10000);
const POLL_MS = Number(process.env.BENCH_POLL_MS ?? 50);

const log = (...a: unknown[]) => console.log('[campaign]', ...a);
const round = (x: number) => Math.round(x * 10) / 10;

async function main() {
  const database = await scratchDatabase(process.env.DATABASE_URL, {
    poolSize: process.env.BENCH_POOL ? Number(process.env.BENCH_POOL) : DEFAULT_POOL_SIZE,
  });
  const { dataDir, config } = benchConfig();
  await seedBench(database.db);
  const app = await buildApp({
    config,
    database,
    logger: false,
    loginLimit: 1000,
    jobs: { pollMs: POLL_MS },
  });
  const base = await listenBench(app);
  const rows = <T>(q: ReturnType<typeof sql>) => executeRows<T>(database.db, q);
  try {
    const login = await (
      await fetch(`${base}/api/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'admin@demo.local', password: 'Demo@1234' }),
      })
    ).json();
    const headers = { authorization: `Bearer ${login.token as string}`, 'content-type': 'application/json' };
    const companyId = login.user.companyId as number;
    const call = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`${base}/api${path}`, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const json = await res.json();
      if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
      return json;
    };
    const [conn] = (await call('GET', '/whatsapp')) as { id: number; channel: string }[];
    if (!conn) throw new Error('no connection');
    for (let i = 0; i < 100 && !app.sessions.get(conn.id); i++) {
      await app.sessions.tick();
      await new Promise((r) => setTimeout(r, 50));
    }
    await call('POST', '/campaign-settings', { settings: { messageInterval: 0, longerIntervalAfter: 0 } });

    // The audience: one contact list of N numbers (inserted in bulk: the bench measures sending, not import).
    const [list] = await rows<{ id: number }>(
      sql`insert into contact_lists (company_id, name) values (${companyId}, 'Bench') returning id`,
    );
    await rows(sql`
      insert into contact_list_items (company_id, contact_list_id, name, number, email)
      select ${companyId}, ${list!.id}, 'Cliente ' || g, '5521' || lpad(g::text, 9, '0'), ''
      from generate_series(1, ${N}) g`);
    log(`database: ${database.kind}; ${N} contacts, no interval, job poll ${POLL_MS} ms`);

    const t0 = performance.now();
    const campaign = await call('POST', '/campaigns', {
      name: 'Bench',
      message1: 'Olá {nome}, oferta A',
      message2: 'Oi {primeiro-nome}! oferta B',
      whatsappId: conn.id,
      contactListId: list!.id,
      scheduledAt: new Date().toISOString(),
    });
    let lastLog = 0;
    for (;;) {
      const [s] = await rows<{ status: string; sent: number }>(sql`
        select c.status, (select count(sent_at)::int from campaign_shippings where campaign_id = c.id) as sent
        from campaigns c where c.id = ${campaign.id}`);
      if (s!.status === 'FINALIZADA') break;
      if (s!.status === 'CANCELADA') throw new Error('campaign cancelled');
      if (performance.now() - lastLog > 2000) {
        log(`${s!.status}: sent ${s!.sent}/${N}`);
        lastLog = performance.now();
      }
      await new Promise((r) => setTimeout(r, 200));
    }
    const seconds = (performance.now() - t0) / 1000;
    const sendsPerSec = N / seconds;
    log(`finished in ${round(seconds)} s: ${Math.round(sendsPerSec)} sends/s`);

    // Exactly once: every number's phone shows one message from the company, and every shipping is sent.
    const [phones] = await rows<{ numbers: number; messages: number; duplicates: number }>(sql`
      select count(*)::int as numbers, coalesce(sum(n), 0)::int as messages,
        count(*) filter (where n > 1)::int as duplicates
      from (select number, count(*) as n from simulator_messages
        where whatsapp_id = ${conn.id} and from_me group by number) x`);
    const [ships] = await rows<{ n: number; sent: number }>(sql`
      select count(*)::int as n, count(sent_at)::int as sent from campaign_shippings where campaign_id = ${campaign.id}`);
    const missing = N - phones!.numbers;
    log(
      `phones reached ${phones!.numbers}/${N}, messages ${phones!.messages}, duplicates ${phones!.duplicates}, shippings sent ${ships!.sent}/${ships!.n}`,
    );
    const ok = phones!.duplicates === 0 && missing === 0 && phones!.messages === N && ships!.sent === N;
    log(ok ? 'OK: each contact received exactly one message' : 'FAILED: duplicates or missing sends');
    console.log(
      JSON.stringify({
        bench: 'campaign',
        db: database.kind === 'pglite' ? 'pglite' : 'postgres',
        contacts: N,
        seconds: round(seconds),
        sendsPerSec: Math.round(sendsPerSec),
        messages: phones!.messages,
        duplicates: phones!.duplicates,
        missing,
        ok,
      }),
    );
    if (!ok) process.exitCode = 1;
  } finally {
    await app.close();
    await database.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
