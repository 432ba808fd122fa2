/**
 * The big-company history that bench:tickets and bench:dashboard measure: one company with BENCH_TICKETS
 * (100,000) tickets over six months, BENCH_MESSAGES (1,000,000) messages and 30 attendants, seeded with
 * set-based SQL (deterministic, no random()), then the real app on a free port and p50/p95 of each route
 * after 20 warm-up requests, printed as the last JSON line. DATABASE_URL selects PostgreSQL (a scratch
 * database, dropped after; BENCH_KEEP=1 keeps it for EXPLAIN); without it, embedded PGlite.
 */
import { rmSync } from 'node:fs';
import { benchConfig, jsonClient, seedBench } from './lib.js';
import { scratchDatabase } from '../server/src/db/scratch.js';
import { buildApp } from '../server/src/app.js';

const TICKETS = Number(process.env.BENCH_TICKETS ?? 100_000);
const MESSAGES = Number(process.env.BENCH_MESSAGES ?? 1_000_000);
/** Tickets with a long conversation (300 messages: page 5 exists); the rest share what is left. */
const LONG = Math.min(1000, Math.floor(TICKETS / 10));
const LONG_SIZE = 300;
const CONTACTS = Math.max(1, Math.floor(TICKETS / 2));
/** Active tickets (one per contact and connection): 10% open, 10% pending; the rest are closed. */
const OPEN = Math.floor(TICKETS / 10);
const PENDING = Math.floor(TICKETS / 10);

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]! : 0;
};
const round = (x: number) => Math.round(x * 10) / 10;

const FIRST = [
  'Ana',
  'Bruno',
  'Carla',
  'Diego',
  'Eva',
  'Felipe',
  'Gabi',
  'Hugo',
  'Iris',
  'João',
  'Karen',
  'Lucas',
];
const LAST = [
  'Silva',
  'Souza',
  'Costa',
  'Santos',
  'Oliveira',
  'Pereira',
  'Lima',
  'Gomes',
  'Ribeiro',
  'Rocha',
];
const PHRASES = [
  'Olá, bom dia',
  'Gostaria de saber o status do meu pedido',
  'Meu boleto venceu, podem enviar outro?',
  'Obrigado pelo atendimento',
  'Qual o prazo de entrega para o meu CEP?',
  'O produto chegou com defeito',
  'Vocês abrem no sábado?',
  'Preciso trocar o tamanho',
  'Pode me passar o código de rastreio?',
  'Já fiz o pagamento via pix',
  'Perfeito, aguardo o retorno',
  'Bom dia! Em que posso ajudar?',
  'Vou verificar e já retorno',
  'Seu pedido foi enviado hoje',
  'Segue o link para pagamento',
];
const sqlText = (xs: string[]) => `array[${xs.map((x) => `'${x.replace(/'/g, "''")}'`).join(',')}]`;

/** What a bench's routes may use: the demo company's tokens and the seeded ids. */
export interface History {
  admin: string;
  attendant: string;
  /** The first seeded ticket's id; tickets t1 … t1 + TICKETS - 1, the first LONG with 300 messages each. */
  t1: number;
  tickets: number;
  long: number;
  queueIds: number[];
  userIds: number[];
}

export interface Route {
  name: string;
  token: string;
  path: (i: number) => string;
  /** The rows an answer holds (logged, so an empty answer is seen). */
  check: (j: unknown) => number;
}

export async function runHistoryBench(opts: {
  bench: string;
  /** Requests per route when BENCH_REQUESTS is not set. */
  requests: number;
  /** The dashboard's history too: acceptance and first-response times, ratings, bot states, ad tracking. */
  dashboard?: boolean;
  /** #32.7 Custom fields on tickets and contacts: a list field (3 values) and a number field (1,000 values). */
  customFields?: boolean;
  routes: (h: History) => Route[];
}) {
  const REQUESTS = Number(process.env.BENCH_REQUESTS ?? opts.requests);
  const log = (...a: unknown[]) => console.log(`[${opts.bench}]`, ...a);
  const database = await scratchDatabase(process.env.DATABASE_URL);
  const db = database.kind === 'pglite' ? 'pglite' : 'postgres';
  const { dataDir, config } = benchConfig();
  try {
    await seedBench(database.db);
    const one = async <T>(q: string) => (await database.raw(q)).rows[0] as T;
    const { id: C } = await one<{ id: number }>(`select id from companies where name = 'Empresa Demo'`);
    const { id: W } = await one<{ id: number }>(`select id from whatsapps where company_id = ${C}`);
    log(`database: ${db}; seeding ${TICKETS} tickets and ${MESSAGES} messages in company ${C}`);
    const t0 = performance.now();
    const step = async (label: string, q: string) => {
      const t = performance.now();
      await database.raw(q);
      log(`  ${label}: ${round((performance.now() - t) / 1000)} s`);
    };

    // Six more queues and 28 more attendants (each in two queues), beside the demo's admin and attendant.
    await step(
      'queues and users',
      `insert into queues (company_id, name, color, order_queue)
        select ${C}, 'Fila ' || g, '#' || lpad(to_hex(g * 4099), 6, '0'), g + 2 from generate_series(1, 6) g`,
    );
    await database.raw(
      `insert into users (company_id, name, email, password_hash, profile)
        select ${C}, 'Agente ' || g, 'agente' || g || '@bench.local',
          (select password_hash from users where email = 'admin@demo.local'), 'user'
        from generate_series(1, 28) g`,
    );
    await database.raw(
      `insert into user_queues (user_id, queue_id)
        select u.id, q.id from users u join queues q on q.company_id = u.company_id
        where u.company_id = ${C} and u.email like 'agente%' and (u.id + q.id) % 4 < 2`,
    );
    const queueIds = (
      await database.raw(`select id from queues where company_id = ${C} order by id`)
    ).rows.map((r) => Number(r.id));
    const userIds = (await database.raw(`select id from users where company_id = ${C} order by id`)).rows.map(
      (r) => Number(r.id),
    );
    const qa = `array[${queueIds.join(',')}]`;
    const ua = `array[${userIds.join(',')}]`;

    await step(
      `${CONTACTS} contacts`,
      `insert into contacts (company_id, name, number)
        select ${C}, (${sqlText(FIRST)})[1 + g % ${FIRST.length}] || ' ' ||
          (${sqlText(LAST)})[1 + (g / ${FIRST.length}) % ${LAST.length}] || ' ' || g,
          '5511' || (900000000 + g)::text
        from generate_series(1, ${CONTACTS}) g`,
    );
    const { min: c0 } = await one<{ min: number }>(
      `select min(id) as min from contacts where company_id = ${C}`,
    );
    // Each ticket's protocol given here: the insert trigger numbers a ticket without one from the company's
    // counter row, one update of that row per ticket — in one 100,000-row statement every update walks the
    // versions the earlier ones left (quadratic). The counter is set to the last number afterwards.
    const PROTOCOL = `to_char(at, 'YYYYMMDD') || '-' || lpad(g::text, 6, '0')`;
    // Ticket g: the first OPEN are open (each with its own contact), the next PENDING pending, the rest
    // closed; one in ten has no queue; updates spread over six months (deterministic, no random()).
    if (opts.dashboard)
      await step(
        `${TICKETS} tickets`,
        `insert into tickets (company_id, contact_id, whatsapp_id, queue_id, user_id, status, last_message,
            last_message_at, unread_messages, created_at, updated_at, accepted_at, first_response_at, closed_at,
            protocol)
          select ${C}, ${c0} + (g - 1) % ${CONTACTS}, ${W},
            case when g % 10 = 0 then null else (${qa})[1 + g % ${queueIds.length}] end,
            case when g <= ${OPEN} or g > ${OPEN + PENDING} then (${ua})[1 + g % ${userIds.length}] end,
            case when g <= ${OPEN} then 'open' when g <= ${OPEN + PENDING} then 'pending' else 'closed' end,
            (${sqlText(PHRASES)})[1 + g % ${PHRASES.length}], at, g % 3, at - interval '2 hours', at,
            case when g <= ${OPEN} or g > ${OPEN + PENDING} then at - interval '2 hours' + (g % 40) * interval '1 minute' end,
            case when g <= ${OPEN} or g > ${OPEN + PENDING} then at - interval '2 hours' + (g % 40 + g % 7) * interval '1 minute' end,
            case when g > ${OPEN + PENDING} then at end, ${PROTOCOL}
          from (select g, now() - ((g * 7919) % 15552000) * interval '1 second' as at
                from generate_series(1, ${TICKETS}) g) s`,
      );
    else
      await step(
        `${TICKETS} tickets`,
        `insert into tickets (company_id, contact_id, whatsapp_id, queue_id, user_id, status, last_message,
            last_message_at, unread_messages, created_at, updated_at, closed_at, protocol)
          select ${C}, ${c0} + (g - 1) % ${CONTACTS}, ${W},
            case when g % 10 = 0 then null else (${qa})[1 + g % ${queueIds.length}] end,
            case when g <= ${OPEN} or g > ${OPEN + PENDING} then (${ua})[1 + g % ${userIds.length}] end,
            case when g <= ${OPEN} then 'open' when g <= ${OPEN + PENDING} then 'pending' else 'closed' end,
            (${sqlText(PHRASES)})[1 + g % ${PHRASES.length}], at, g % 3, at - interval '2 hours', at,
            case when g > ${OPEN + PENDING} then at end, ${PROTOCOL}
          from (select g, now() - ((g * 7919) % 15552000) * interval '1 second' as at
                from generate_series(1, ${TICKETS}) g) s`,
      );
    await database.raw(
      `insert into ticket_protocol_counters (company_id, last) values (${C}, ${TICKETS})
        on conflict (company_id) do update set last = excluded.last`,
    );
    if (opts.dashboard) {
      // A rating on a third of the closed tickets, a bot conversation on one in five, a tracked ad on one in ten.
      await step(
        'ratings, bot states, source tracking',
        `insert into user_ratings (company_id, ticket_id, user_id, rate, created_at)
          select company_id, id, user_id, 1 + id % 3, closed_at from tickets
          where company_id = ${C} and status = 'closed' and id % 3 = 0`,
      );
      await database.raw(
        `insert into ticket_bot_states (ticket_id, company_id, whatsapp_id, started_at, ended_at, end_reason)
          select id, company_id, whatsapp_id, created_at, created_at + interval '3 minutes', 'queue' from tickets
          where company_id = ${C} and id % 5 = 0`,
      );
      await database.raw(
        `insert into ticket_source_tracking (company_id, ticket_id, campaign, source, medium, metadata, created_at)
          select company_id, id, 'campanha ' || id % 7, 'facebook', 'ad',
            jsonb_build_object('sourceUrl', 'https://fb.me/ad' || id % 7), created_at from tickets
          where company_id = ${C} and id % 10 = 0`,
      );
    }
    if (opts.customFields) {
      await step(
        'custom fields',
        `insert into custom_field_definitions (company_id, entity, key, label, type, options)
          select ${C}, e, k, k, ty, case when ty = 'list' then '["gold","silver","bronze"]'::jsonb else '[]'::jsonb end
          from (values ('ticket'), ('contact')) en(e)
          cross join (values ('plan', 'list'), ('order_no', 'number')) f(k, ty)`,
      );
      await step(
        'custom field values',
        `update tickets set custom_fields = jsonb_build_object('plan', (array['gold','silver','bronze'])[1 + id % 3],
          'order_no', id % 1000) where company_id = ${C}`,
      );
      await step(
        'contact custom field values',
        `update contacts set custom_fields = jsonb_build_object('plan', (array['gold','silver','bronze'])[1 + id % 3],
          'order_no', id % 1000) where company_id = ${C}`,
      );
    }
    const { min: t1 } = await one<{ min: number }>(
      `select min(id) as min from tickets where company_id = ${C}`,
    );
    // Long conversations on the first LONG tickets (open ones); the other messages spread over the rest.
    const longCount = Math.min(MESSAGES, LONG * LONG_SIZE);
    const insertMessages = (from: string, n: number, ticket: string, k: string) =>
      `insert into messages (company_id, ticket_id, contact_id, whatsapp_id, provider_id, body, from_me, ack,
          read, created_at, updated_at)
        select ${C}, t.id, t.contact_id, ${W}, 'B' || s, b.body, s % 2 = 0, 3, true, b.at, b.at
        from generate_series(${from}, ${from} + ${n} - 1) s
        join tickets t on t.id = ${ticket}
        cross join lateral (select
          case when s % 997 = 0 then 'Quero o reembolso do pedido ' || s
            else (${sqlText(PHRASES)})[1 + (s * 7) % ${PHRASES.length}] || ' #' || s end as body,
          t.created_at + (${k}) * interval '1 minute' as at) b`;
    await step(
      `${longCount} messages in ${LONG} long conversations`,
      insertMessages('1', longCount, `${t1} + (s - 1) / ${LONG_SIZE}`, `(s - 1) % ${LONG_SIZE}`),
    );
    const rest = MESSAGES - longCount;
    if (rest > 0)
      await step(
        `${rest} messages in the other ${TICKETS - LONG} tickets`,
        insertMessages(
          String(longCount + 1),
          rest,
          `${t1} + ${LONG} + (s - ${longCount + 1}) % ${TICKETS - LONG}`,
          `(s - ${longCount + 1}) / ${TICKETS - LONG}`,
        ),
      );
    // A settled history, as autovacuum leaves it in production (this machine's PostgreSQL runs with autovacuum
    // off): the seed rewrote every ticket, and without the visibility map the lists and the dashboard's
    // index-only reads visit the heap for each candidate (the text search's p95: 28-30 ms vs 21 ms vacuumed).
    await step('vacuum analyze', 'vacuum analyze');
    log(`seeded in ${round((performance.now() - t0) / 1000)} s`);

    const app = await buildApp({ config, database, logger: false, loginLimit: 1000 });
    await app.app.listen({ port: 0, host: '127.0.0.1' });
    const address = app.app.server.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    const { call, close: closeClient } = jsonClient(4);
    // Paths here carry /api: the client adds it.
    const request = async (method: string, path: string, token?: string, body?: unknown) => {
      const r = await call(`http://127.0.0.1:${port}`, method, path.replace(/^\/api/, ''), token, body);
      return { status: r.status, json: r.body };
    };
    try {
      const login = async (email: string) => {
        const r = await request('POST', '/api/auth/login', undefined, { email, password: 'Demo@1234' });
        if (r.status !== 200) throw new Error(`login ${email}: ${r.status}`);
        return (r.json as { token: string }).token;
      };
      const admin = await login('admin@demo.local');
      const attendant = await login('atendente@demo.local');

      const routes = opts.routes({
        admin,
        attendant,
        t1,
        tickets: TICKETS,
        long: LONG,
        queueIds,
        userIds,
      });
      const figures: Record<string, { p50: number; p95: number; rows: number }> = {};
      for (const route of routes) {
        let rows = 0;
        for (let i = 0; i < 20; i++) await request('GET', route.path(i), route.token); // warm-up
        const times: number[] = [];
        for (let i = 0; i < REQUESTS; i++) {
          const t = performance.now();
          const r = await request('GET', route.path(i + 20), route.token);
          times.push(performance.now() - t);
          if (r.status !== 200) throw new Error(`${route.name}: ${r.status} ${JSON.stringify(r.json)}`);
          rows = Math.max(rows, route.check(r.json));
        }
        figures[route.name] = { p50: round(pct(times, 50)), p95: round(pct(times, 95)), rows };
        log(
          `${route.name}: p50 ${figures[route.name]!.p50} ms, p95 ${figures[route.name]!.p95} ms (${rows} rows)`,
        );
      }
      console.log(
        JSON.stringify({
          bench: opts.bench,
          db,
          tickets: TICKETS,
          messages: MESSAGES,
          requests: REQUESTS,
          ...Object.fromEntries(
            Object.entries(figures).flatMap(([k, v]) => [
              [`${k}P50Ms`, v.p50],
              [`${k}P95Ms`, v.p95],
            ]),
          ),
        }),
      );
    } finally {
      closeClient();
      await app.close();
    }
  } finally {
    if (process.env.BENCH_KEEP) log('scratch database kept');
    else await database.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
