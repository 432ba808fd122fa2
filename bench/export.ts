/**
 * #35.4 `npm run bench:export`: a company of BENCH_TICKETS (100,000) tickets and BENCH_MESSAGES (1,000,000)
 * messages seeded with set-based SQL on PostgreSQL (DATABASE_URL; a scratch database, dropped after), then
 * the real server as production runs it (`npm run build -w server`, then `node server/dist/main.js`, a child
 * process on BENCH_PORT, default 4610): the company exported (POST /api/company-exports, the durable job, the archive downloaded to
 * disk) and imported back as a new company (POST /api/company-imports, the archive streamed from disk).
 * Reports the times, the archive's size and the server process's RSS — sampled every 100 ms from
 * /proc/<pid>/status (VmRSS), and its VmHWM high-water mark; the target is under 300 MB — the last line JSON.
 * docs/benchmarks.md "Company export and import".
 */
import { spawn } from 'node:child_process';
import { createReadStream, createWriteStream, readFileSync, rmSync, statSync } from 'node:fs';
import http from 'node:http';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { benchConfig, seedBench } from './lib.js';
import { scratchDatabase } from '../server/src/db/scratch.js';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const PORT = Number(process.env.BENCH_PORT ?? 4610);
/** kB → MB of a /proc/<pid>/status field (VmRSS, VmHWM). */
const procMb = (pid: number, field: string) => {
  const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : 0;
};

const TICKETS = Number(process.env.BENCH_TICKETS ?? 100_000);
const MESSAGES = Number(process.env.BENCH_MESSAGES ?? 1_000_000);
const CONTACTS = Math.max(1, Math.floor(TICKETS / 2));
const log = (...a: unknown[]) => console.log('[export]', ...a);
const round = (x: number) => Math.round(x * 10) / 10;
const MB = 1024 * 1024;

if (!process.env.DATABASE_URL) {
  console.error('bench:export needs DATABASE_URL (PostgreSQL: a scratch database is made and dropped)');
  process.exit(2);
}

const database = await scratchDatabase(process.env.DATABASE_URL);
const { dataDir, config } = benchConfig();
let peak = 0;
let serverPid = 0;
const sample = () => {
  if (serverPid) peak = Math.max(peak, procMb(serverPid, 'VmRSS') * MB);
};
const sampler = setInterval(() => {
  try {
    sample();
  } catch {
    /* the server has gone */
  }
}, 100);
try {
  await seedBench(database.db);
  const one = async <T>(q: string) => (await database.raw(q)).rows[0] as T;
  const { id: C } = await one<{ id: number }>(`select id from companies where name = 'Empresa Demo'`);
  const { id: W } = await one<{ id: number }>(`select id from whatsapps where company_id = ${C}`);
  const step = async (label: string, q: string) => {
    const t = performance.now();
    await database.raw(q);
    log(`  ${label}: ${round((performance.now() - t) / 1000)} s`);
  };
  log(`seeding ${TICKETS} tickets and ${MESSAGES} messages in company ${C} (PostgreSQL)`);
  await step(
    `${CONTACTS} contacts`,
    `insert into contacts (company_id, name, number, custom_fields)
      select ${C}, 'Cliente ' || g, '5511' || (900000000 + g)::text, jsonb_build_object('codigo', g)
      from generate_series(1, ${CONTACTS}) g`,
  );
  const { min: c0 } = await one<{ min: number }>(
    `select min(id) as min from contacts where company_id = ${C}`,
  );
  await step(
    `${TICKETS} tickets`,
    `insert into tickets (company_id, contact_id, whatsapp_id, status, last_message, last_message_at, created_at,
        updated_at, closed_at, protocol)
      select ${C}, ${c0} + (g - 1) % ${CONTACTS}, ${W}, 'closed',
        'Obrigado pelo atendimento', now() - g * interval '1 minute', now() - g * interval '1 minute',
        now() - g * interval '1 minute', now() - g * interval '1 minute', 'B' || lpad(g::text, 7, '0')
      from generate_series(1, ${TICKETS}) g`,
  );
  const { min: t0 } = await one<{ min: number }>(
    `select min(id) as min from tickets where company_id = ${C}`,
  );
  await step(
    'ticket tags',
    `insert into tags (company_id, name, color) values (${C}, 'Bench', '#123456');
     insert into ticket_tags (ticket_id, tag_id)
      select t.id, (select id from tags where company_id = ${C} and name = 'Bench') from tickets t
      where t.company_id = ${C} and t.id % 10 = 0`,
  );
  await step(
    `${MESSAGES} messages`,
    `insert into messages (company_id, ticket_id, contact_id, whatsapp_id, provider_id, body, from_me, created_at)
      select ${C}, ${t0} + (g - 1) % ${TICKETS}, ${c0} + ((g - 1) % ${TICKETS}) % ${CONTACTS}, ${W}, 'B' || g,
        'Mensagem ' || g || ' do atendimento, com um texto de tamanho comum para uma conversa', g % 2 = 0,
        now() - (${MESSAGES} - g) * interval '1 second'
      from generate_series(1, ${MESSAGES}) g`,
  );
  await step(
    'quotes',
    `update messages m set quoted_msg_id = m.id - ${TICKETS} where m.company_id = ${C} and m.id % 100 = 0
       and exists (select 1 from messages p where p.id = m.id - ${TICKETS} and p.ticket_id = m.ticket_id)`,
  );
  await database.raw('analyze');

  void config;
  // BENCH_NODE_OPTIONS: the server's V8 flags (e.g. --max-old-space-size=192, docs/benchmarks.md).
  const nodeFlags = (process.env.BENCH_NODE_OPTIONS ?? '').split(' ').filter(Boolean);
  const child = spawn(process.execPath, [...nodeFlags, join(root, 'server/dist/main.js')], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      PORT: String(PORT),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      DATABASE_URL: database.url!,
      NODE_ENV: 'development',
      SEED_DEMO: 'false',
      SUPERUSER_EMAIL: 'super@bench.local',
      SUPERUSER_PASSWORD: 'Bench@12345',
      LOGIN_RATE_LIMIT: '1000',
      LOG_LEVEL: 'warn',
    },
  });
  let output = '';
  child.stdout!.on('data', (d: Buffer) => (output += d.toString()).slice(-5000));
  child.stderr!.on('data', (d: Buffer) => (output += d.toString()).slice(-5000));
  const base = `http://127.0.0.1:${PORT}/api`;
  for (let i = 0; ; i++) {
    if (child.exitCode !== null) throw new Error(`the server stopped:\n${output}`);
    if ((await fetch(`${base}/health`).catch(() => undefined))?.ok) break;
    if (i > 600) throw new Error(`the server did not start:\n${output}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  serverPid = child.pid!;
  const app = {
    close: async () => {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
    },
  };
  const json = async (method: string, path: string, token?: string, body?: unknown) => {
    const r = await fetch(`${base}${path}`, {
      method,
      headers: {
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: r.status, body: (await r.json()) as Record<string, unknown> };
  };
  try {
    const login = await json('POST', '/auth/login', undefined, {
      email: 'super@bench.local',
      password: 'Bench@12345',
    });
    const token = String(login.body.token);
    const rssBefore = procMb(serverPid, 'VmRSS') * MB;
    peak = 0;

    const e0 = performance.now();
    const started = await json('POST', '/company-exports', token, { companyId: C });
    if (started.status !== 202) throw new Error(`export: ${started.status} ${JSON.stringify(started.body)}`);
    const id = Number(started.body.id);
    let status: Record<string, unknown> = started.body;
    let lastLog = 0;
    while (status.status !== 'done') {
      await new Promise((r) => setTimeout(r, 500));
      status = (await json('GET', `/company-exports/${id}`, token)).body;
      if (status.status === 'failed') throw new Error(`export failed: ${String(status.error)}`);
      if (performance.now() - lastLog > 10_000) {
        lastLog = performance.now();
        log(
          `  export: ${String(status.phase)} ${String(status.rowsWritten)} rows, rss ${Math.round(peak / MB)} MB`,
        );
      }
    }
    const archive = join(dataDir, 'bench-archive.tar');
    const dl = await fetch(`${base}/company-exports/${id}/archive`, {
      headers: { authorization: `Bearer ${token}` },
    });
    await pipeline(Readable.fromWeb(dl.body as never), createWriteStream(archive));
    const exportSeconds = (performance.now() - e0) / 1000;
    const exportPeak = peak;
    const archiveBytes = statSync(archive).size;
    log(
      `export: ${round(exportSeconds)} s, ${round(archiveBytes / MB)} MB, peak rss ${Math.round(exportPeak / MB)} MB`,
    );

    peak = 0;
    const i0 = performance.now();
    // Multipart by hand over node:http: the archive streamed from disk, and no client timeout (the import
    // answers when it is done; fetch gives up on headers after 300 s).
    const boundary = `----recado${Date.now()}`;
    const head = Buffer.from(
      `--${boundary}\r\ncontent-disposition: form-data; name="file"; filename="company.tar"\r\n` +
        'content-type: application/x-tar\r\n\r\n',
    );
    const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
    const { status: importStatus, text } = await new Promise<{ status: number; text: string }>(
      (resolve, reject) => {
        const req = http.request(
          `${base}/company-imports`,
          {
            method: 'POST',
            headers: {
              authorization: `Bearer ${token}`,
              'content-type': `multipart/form-data; boundary=${boundary}`,
              'content-length': head.length + archiveBytes + tail.length,
            },
          },
          (res) => {
            let body = '';
            res.setEncoding('utf8');
            res.on('data', (d: string) => (body += d));
            res.on('end', () => resolve({ status: res.statusCode ?? 0, text: body }));
          },
        );
        req.on('error', reject);
        req.write(head);
        const file = createReadStream(archive);
        file.on('error', reject);
        file.on('end', () => req.end(tail));
        file.pipe(req, { end: false });
      },
    );
    const report = JSON.parse(text) as { companyId: number; tables: Record<string, number> };
    if (importStatus !== 201) throw new Error(`import: ${importStatus} ${text}`);
    const importSeconds = (performance.now() - i0) / 1000;
    const importPeak = peak;
    const copied = await one<{ t: number; m: number }>(
      `select (select count(*) from tickets where company_id = ${report.companyId})::int as t,
              (select count(*) from messages where company_id = ${report.companyId})::int as m`,
    );
    if (copied.t !== TICKETS || copied.m !== MESSAGES)
      throw new Error(`imported ${copied.t} tickets and ${copied.m} messages`);
    log(`import: ${round(importSeconds)} s, peak rss ${Math.round(importPeak / MB)} MB`);
    const peakRssMb = Math.round(Math.max(exportPeak, importPeak) / MB);
    const hwmMb = Math.round(procMb(serverPid, 'VmHWM'));
    console.log(
      JSON.stringify({
        bench: 'export',
        db: 'postgres',
        tickets: TICKETS,
        messages: MESSAGES,
        exportSeconds: round(exportSeconds),
        importSeconds: round(importSeconds),
        archiveMb: round(archiveBytes / MB),
        rssBeforeMb: Math.round(rssBefore / MB),
        exportPeakRssMb: Math.round(exportPeak / MB),
        importPeakRssMb: Math.round(importPeak / MB),
        peakRssMb,
        serverVmHwmMb: hwmMb,
        under300Mb: Math.max(peakRssMb, hwmMb) < 300,
        serverNodeOptions: nodeFlags.join(' '),
        loadavg: loadavg().map((x) => round(x)),
      }),
    );
  } finally {
    await app.close();
  }
} finally {
  clearInterval(sampler);
  await database.drop();
  rmSync(dataDir, { recursive: true, force: true });
}
