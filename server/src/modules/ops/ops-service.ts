import { timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { sql } from 'drizzle-orm';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { MIGRATIONS_DIR, type Database } from '../../db/client.js';
import { executeRows } from '../../db/rows.js';
import type { DomainBus } from '../../events/domain-events.js';

export interface OpsDeps {
  database: Database;
  processId: string;
  bus: DomainBus;
  /** METRICS_TOKEN: /metrics wants `Authorization: Bearer <token>`; absent, only direct loopback callers. */
  metricsToken?: string;
  /** Sockets connected to this process. */
  sockets: () => number;
  /** Connections whose session runs in this process. */
  sessions: () => number[];
  /** The job poller runs here. */
  jobs: () => boolean;
}

/** Migrations the build ships (drizzle's journal): /api/ready compares them with the applied ones. */
const shippedMigrations = (): number =>
  (JSON.parse(readFileSync(join(MIGRATIONS_DIR, 'meta', '_journal.json'), 'utf8')) as { entries: unknown[] })
    .entries.length;

const LOOPBACK = new Set(['127.0.0.1', '::1', '::ffff:127.0.0.1']);

/**
 * The operator's view of one process (docs/deployment.md): liveness, readiness (database, migrations, role,
 * draining) and Prometheus metrics in a registry of its own (tests run several apps in one process).
 */
export function opsService(deps: OpsDeps) {
  const { database, processId } = deps;
  const registry = new Registry();
  registry.setDefaultLabels({ process_id: processId });
  // Node's defaults: memory, CPU, handles, GC and nodejs_eventloop_lag_seconds.
  collectDefaultMetrics({ register: registry });
  const shipped = shippedMigrations();
  let draining = false;

  const httpDuration = new Histogram({
    name: 'recado_http_request_duration_seconds',
    help: 'HTTP request latency by route (the route pattern, not the path)',
    labelNames: ['method', 'route', 'status_code'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const inbound = new Counter({
    name: 'recado_inbound_messages_stored_total',
    help: 'Inbound customer messages stored by this process',
    registers: [registry],
  });
  deps.bus.on(
    'message.stored',
    ({ message }) => {
      if (!message.fromMe) inbound.inc();
    },
    'metrics',
  );

  const rows = <T>(q: ReturnType<typeof sql>) => executeRows<T>(database.db, q);
  new Gauge({
    name: 'recado_outbox_depth',
    help: 'Replies waiting in the outbox (all processes), by status',
    labelNames: ['status'],
    registers: [registry],
    async collect() {
      this.reset();
      for (const r of await rows<{ status: string; n: number }>(
        sql`select status, count(*)::int as n from outbound_queue group by status`,
      ))
        this.set({ status: r.status }, Number(r.n));
    },
  });
  new Gauge({
    name: 'recado_outbox_oldest_age_seconds',
    help: 'Age of the oldest pending reply in the outbox (0 when empty)',
    registers: [registry],
    async collect() {
      const [r] = await rows<{ age: number | null }>(
        sql`select extract(epoch from now() - min(created_at))::float8 as age from outbound_queue where status = 'pending'`,
      );
      this.set(Number(r?.age ?? 0));
    },
  });
  new Gauge({
    name: 'recado_jobs_oldest_due_age_seconds',
    help: 'How late the oldest due queued job of each kind is',
    labelNames: ['kind'],
    registers: [registry],
    async collect() {
      this.reset();
      for (const r of await rows<{ kind: string; age: number | null }>(
        sql`select kind, extract(epoch from now() - min(run_at))::float8 as age
            from jobs where status = 'queued' and run_at <= now() group by kind`,
      ))
        this.set({ kind: r.kind }, Math.max(0, Number(r.age ?? 0)));
    },
  });
  new Gauge({
    name: 'recado_jobs_depth',
    help: 'Jobs queued and due, or running, by kind and status',
    labelNames: ['kind', 'status'],
    registers: [registry],
    async collect() {
      this.reset();
      for (const r of await rows<{ kind: string; status: string; n: number }>(
        sql`select kind, status, count(*)::int as n
            from jobs where status = 'running' or (status = 'queued' and run_at <= now())
            group by kind, status`,
      ))
        this.set({ kind: r.kind, status: r.status }, Number(r.n));
    },
  });
  new Gauge({
    name: 'recado_connections',
    help: 'WhatsApp connections (all companies) by state',
    labelNames: ['status'],
    registers: [registry],
    async collect() {
      this.reset();
      for (const r of await rows<{ status: string; n: number }>(
        sql`select status, count(*)::int as n from whatsapps group by status`,
      ))
        this.set({ status: r.status }, Number(r.n));
    },
  });
  new Gauge({
    name: 'recado_sessions_running',
    help: 'Connections whose session runs in this process',
    registers: [registry],
    collect() {
      this.set(deps.sessions().length);
    },
  });
  new Gauge({
    name: 'recado_sockets_connected',
    help: 'Socket.IO clients connected to this process',
    registers: [registry],
    collect() {
      this.set(deps.sockets());
    },
  });
  // The default lag gauge samples once per scrape; this one reports the 99th percentile since the last.
  const loop = monitorEventLoopDelay({ resolution: 20 });
  loop.enable();
  new Gauge({
    name: 'recado_event_loop_delay_p99_seconds',
    help: 'Event-loop delay, 99th percentile since the previous scrape',
    registers: [registry],
    collect() {
      this.set(loop.percentile(99) / 1e9);
      loop.reset();
    },
  });

  const tokenOk = (header: string | undefined) => {
    const want = Buffer.from(`Bearer ${deps.metricsToken}`);
    const got = Buffer.from(header ?? '');
    return got.length === want.length && timingSafeEqual(got, want);
  };

  return {
    registry,
    get draining() {
      return draining;
    },
    /** SIGTERM: /api/ready answers 503 so the load balancer stops sending new work here. */
    drain() {
      draining = true;
    },
    stop() {
      loop.disable();
    },
    observe(req: FastifyRequest, reply: FastifyReply) {
      const route = req.routeOptions.url ?? 'unmatched';
      httpDuration.observe(
        { method: req.method, route, status_code: String(reply.statusCode) },
        reply.elapsedTime / 1000,
      );
    },
    /** Who may read /metrics: the bearer token when one is configured, else a direct loopback caller. */
    mayReadMetrics(req: FastifyRequest): boolean {
      if (deps.metricsToken) return tokenOk(req.headers.authorization);
      const proxied = req.headers['x-forwarded-for'] !== undefined || req.headers['x-real-ip'] !== undefined;
      return !proxied && LOOPBACK.has(req.socket.remoteAddress ?? '');
    },
    async ready() {
      const checks = { database: false, migrations: false };
      let applied = 0;
      try {
        const [r] = await rows<{ n: number }>(
          sql`select count(*)::int as n from drizzle.__drizzle_migrations`,
        );
        checks.database = true;
        applied = Number(r?.n ?? 0);
        checks.migrations = applied >= shipped;
      } catch {
        // Unreachable database (or no migrations table yet): not ready.
      }
      const ok = checks.database && checks.migrations && !draining;
      return {
        ok,
        status: draining ? 'draining' : ok ? 'ready' : 'not_ready',
        checks,
        migrations: { applied, shipped },
        process: {
          id: processId,
          pid: process.pid,
          database: database.kind,
          role: { http: true, sockets: true, jobs: deps.jobs(), sessions: deps.sessions() },
          uptimeSeconds: Math.round(process.uptime()),
        },
      };
    },
  };
}
export type OpsService = ReturnType<typeof opsService>;
