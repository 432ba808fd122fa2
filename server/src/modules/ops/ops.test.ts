import { describe, expect, test } from 'vitest';
import { z } from 'zod';
import { sql } from 'drizzle-orm';
import { testApp, waitFor } from '../../../test/helpers.js';
import { defineJob, jobQueue } from '../../jobs/job-queue.js';
import { executeRows } from '../../db/rows.js';
import { requestContext } from '../../lib/request-context.js';

const t = await testApp({ env: { METRICS_TOKEN: 'metrics-token-for-tests' } });
const open = await testApp();
const draining = await testApp();
const closedDocs = await testApp({ env: { API_DOCS: 'off' } });
const logLines: string[] = [];
const logged = await testApp({
  deps: { logger: { level: 'info', stream: { write: (l: string) => logLines.push(l) } } },
});
const metrics = (app: typeof t, headers: Record<string, string> = {}) =>
  fetch(`${app.url}/metrics`, { headers });
const sample = (text: string, line: RegExp) =>
  Number(
    text
      .split('\n')
      .find((l) => line.test(l))
      ?.split(' ')
      .pop(),
  );

describe('operator endpoints', () => {
  test('/api/health is live; /api/ready names the database, the migrations and this process', async () => {
    expect(await (await t.request('GET', '/health')).json()).toEqual({ ok: true });
    const res = await fetch(`${t.url}/api/ready`, {
      headers: { authorization: 'Bearer metrics-token-for-tests' },
    });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body).toMatchObject({ ok: true, status: 'ready', checks: { database: true, migrations: true } });
    expect(body.migrations.applied).toBe(body.migrations.shipped);
    expect(body.migrations.shipped).toBeGreaterThan(10);
    expect(body.process).toMatchObject({ id: t.app.sessions.processId, pid: process.pid });
    expect(body.process.role).toMatchObject({ http: true, sockets: true, jobs: true });
  });

  test('/api/ready tells anyone else its status only: no process, roles, migrations or uptime (#28.9)', async () => {
    const ready = (app: typeof t, headers: Record<string, string> = {}) =>
      fetch(`${app.url}/api/ready`, { headers });
    // METRICS_TOKEN set: without it (or with a wrong one), the status alone, even from loopback.
    const noToken: Record<string, string>[] = [{}, { authorization: 'Bearer wrong-token-of-same-size-xx' }];
    for (const headers of noToken) {
      const res = await ready(t, headers);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ status: 'ready' });
    }
    // No token: a direct loopback caller reads the details, a caller through a proxy does not.
    expect(await (await ready(open)).json()).toMatchObject({
      status: 'ready',
      process: { pid: process.pid },
    });
    const proxied: Record<string, string>[] = [
      { 'x-forwarded-for': '203.0.113.9' },
      { 'x-real-ip': '203.0.113.9' },
    ];
    for (const headers of proxied)
      expect(await (await ready(open, headers)).json()).toEqual({ status: 'ready' });
  });

  test('API_DOCS=off closes /api/openapi.json and /api/docs; they are public by default', async () => {
    // Each body is read to its end: a large answer left unread holds its response open, and the app's close
    // (afterAll) then waits for it forever.
    const status = async (url: string) => {
      const res = await fetch(url);
      await res.arrayBuffer();
      return res.status;
    };
    for (const path of ['/api/openapi.json', '/api/docs', '/api/docs/']) {
      expect(await status(`${open.url}${path}`), path).toBe(200);
      expect(await status(`${closedDocs.url}${path}`), path).toBe(404);
    }
    expect(await status(`${closedDocs.url}/api/health`)).toBe(200);
  });

  test('a draining process (SIGTERM) answers 503 on /api/ready so the balancer stops sending to it', async () => {
    draining.app.ops.drain();
    const res = await draining.request('GET', '/ready');
    expect(res.status).toBe(503);
    expect((await res.json()).status).toBe('draining');
  });

  test('/metrics wants METRICS_TOKEN as a bearer token, and says nothing without it', async () => {
    expect((await metrics(t)).status).toBe(404);
    expect((await metrics(t, { authorization: 'Bearer wrong-token-of-same-size-xx' })).status).toBe(404);
    const res = await metrics(t, { authorization: 'Bearer metrics-token-for-tests' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/plain');
  });

  test('without a token only a direct loopback caller reads /metrics, never one through a proxy', async () => {
    expect((await metrics(open)).status).toBe(200);
    expect((await metrics(open, { 'x-forwarded-for': '203.0.113.9' })).status).toBe(404);
    expect((await metrics(open, { 'x-real-ip': '203.0.113.9' })).status).toBe(404);
  });

  test('metrics count HTTP latency by route pattern, stored inbound messages, connections, outbox and jobs', async () => {
    const a = await t.company('Ops');
    const w = await (await t.as(a.admin).post('/whatsapp', { name: 'Sim', channel: 'simulator' })).json();
    const socket = await t.socket(a.admin.token);
    for (const [i, body] of ['Oi', 'Tudo bem?'].entries())
      expect(
        (
          await t
            .as(a.admin)
            .post(`/simulator/${w.id}/inbound`, { id: `ops-${i}`, from: '11988887777', body })
        ).status,
      ).toBe(202);
    // The same id again is a duplicate: not stored, not counted.
    await t.as(a.admin).post(`/simulator/${w.id}/inbound`, { id: 'ops-0', from: '11988887777', body: 'Oi' });
    const auth = { authorization: 'Bearer metrics-token-for-tests' };
    const text = await waitFor(async () => {
      const m = await (await metrics(t, auth)).text();
      return sample(m, /^recado_inbound_messages_stored_total/) === 2 && m;
    });
    expect(text).toMatch(
      /recado_http_request_duration_seconds_count\{process_id="[^"]+",method="POST",route="\/api\/simulator\/:whatsappId\/inbound",status_code="202"\} 3/,
    );
    expect(sample(text, /^recado_connections\{status="CONNECTED"/)).toBeGreaterThanOrEqual(1);
    expect(sample(text, /^recado_sockets_connected/)).toBeGreaterThanOrEqual(1);
    expect(text).toMatch(/^recado_outbox_oldest_age_seconds\{[^}]*\} 0$/m);
    expect(text).toMatch(/^recado_event_loop_delay_p99_seconds/m);
    expect(text).toMatch(/^nodejs_eventloop_lag_seconds/m);
    // A due job of a kind no process runs waits in the queue: its depth and lateness show.
    await executeRows(
      t.database.db,
      sql`insert into jobs (kind, payload, run_at) values ('ops-unclaimed', '{}', now() - interval '90 seconds')`,
    );
    const jobsText = await (await metrics(t, auth)).text();
    expect(sample(jobsText, /^recado_jobs_depth\{[^}]*kind="ops-unclaimed",status="queued"[,}]/)).toBe(1);
    expect(
      sample(jobsText, /^recado_jobs_oldest_due_age_seconds\{[^}]*kind="ops-unclaimed"[,}]/),
    ).toBeGreaterThan(80);
    await executeRows(t.database.db, sql`delete from jobs where kind = 'ops-unclaimed'`);
    socket.disconnect();
  });
});

describe('request ids', () => {
  test('a request id sent by the load balancer is kept', async () => {
    await logged.request('GET', '/version', { headers: { 'x-request-id': 'lb-abc-123' } });
    expect(logLines.some((l) => JSON.parse(l).reqId === 'lb-abc-123')).toBe(true);
  });

  test('a job scheduled during a request runs under the same request id (its logs carry it)', async () => {
    const seen: (string | undefined)[] = [];
    const warnings: object[] = [];
    const log = { warn: (o: object) => warnings.push(o), error: (o: object) => warnings.push(o) };
    const jobs = jobQueue({ db: t.database.db, log, pollMs: 60_000 });
    const probe = defineJob({
      kind: `probe-${Date.now()}`,
      payload: z.object({ fail: z.boolean() }),
      handler: async (job) => {
        seen.push(requestContext.reqId());
        if (job.payload.fail) throw new Error('boom');
      },
      options: { maxAttempts: 1 },
    });
    jobs.register(probe);
    await requestContext.run('req-from-http', () => jobs.schedule(probe, { payload: { fail: false } }));
    await requestContext.run('req-that-fails', () => jobs.schedule(probe, { payload: { fail: true } }));
    await jobs.schedule(probe, { payload: { fail: false } });
    expect(await jobs.runDue()).toBe(3);
    expect(seen.sort()).toEqual(['req-from-http', 'req-that-fails', undefined].sort());
    expect(warnings).toContainEqual(expect.objectContaining({ reqId: 'req-that-fails', kind: probe.kind }));
    const rows = await executeRows<{ request_id: string | null }>(
      t.database.db,
      sql`select request_id from jobs where kind = ${probe.kind} order by id`,
    );
    expect(rows.map((r) => r.request_id)).toEqual(['req-from-http', 'req-that-fails', null]);
  });
});
