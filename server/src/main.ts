import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { SERVER_ROOT } from './lib/paths.js';
import { loadConfig } from './config.js';
import { openDatabase } from './db/client.js';
import { seed } from './db/seed.js';
import { buildApp } from './app.js';
import { readyFields, readyLines } from './lib/startup.js';

/**
 * After SIGTERM or SIGINT the process is gone within this, whatever hangs — a request, a job, the database
 * (docs/security.md): under the 10 s a service manager or `docker stop` waits before SIGKILL.
 */
const SHUTDOWN_LIMIT_MS = 8_000;
/** Requests still running this long after the signal have their connections cut, so the close can finish. */
const DRAIN_LIMIT_MS = 4_000;

/** Process entry: config → database (migrations, seeds) → app → realtime → listen. */
async function main() {
  // Start-up phases in ms since the process started (the `Recado is ready` line; docs/benchmarks.md).
  const phases: Record<string, number> = { modules: Math.round(performance.now()) };
  const mark = (name: string) => (phases[name] = Math.round(performance.now()));
  const config = loadConfig();
  const database = await openDatabase({
    url: config.databaseUrl,
    dataDir: config.databaseUrl ? undefined : config.dataDir,
  });
  mark('database');
  await database.migrate();
  mark('migrations');
  await seed(database.db, {
    superuserEmail: config.superuserEmail,
    superuserPassword: config.superuserPassword,
    demo: config.seedDemo,
    dataDir: config.dataDir,
    production: config.env === 'production',
  });
  mark('seed');
  const webDist = config.webDist ?? join(SERVER_ROOT, '..', 'web', 'dist');
  // Development consoles read lines; production keeps one JSON object a line for log collectors.
  const logStyle = config.env === 'development' ? 'pretty' : 'json';
  const built = await buildApp({ config, database, webDist, logStyle });
  mark('app');
  await built.app.listen({ port: config.port, host: config.host });
  const ready = {
    url: config.publicUrl,
    host: config.host,
    port: (built.app.server.address() as AddressInfo).port,
    database: database.kind === 'pglite' ? `embedded PGlite in ${config.dataDir}` : 'PostgreSQL',
    demo: config.seedDemo,
    // performance.now() counts from the process's start: the figure docs/benchmarks.md reports.
    startupMs: Math.round(performance.now()),
  };
  const cpu = process.cpuUsage();
  if (logStyle === 'pretty') built.app.log.info(readyLines(ready).join('\n  '));
  else
    built.app.log.info(
      {
        ...readyFields(ready),
        startupPhases: phases,
        startupCpuMs: Math.round((cpu.user + cpu.system) / 1000),
      },
      'Recado is ready',
    );

  let stopping = false;
  const stop = async (signal: string) => {
    // A second signal while stopping: the operator insists, go now.
    if (stopping) process.exit(1);
    stopping = true;
    built.app.log.info({ signal }, 'shutting down');
    // A close that hangs (a stuck request, job or database) must not keep the process: cut the requests
    // still running after a while, and give up entirely at the deadline. Plain timers: nothing here waits
    // on the event loop being free of the work that hangs.
    setTimeout(() => {
      built.app.log.warn('requests still running: closing their connections');
      built.app.server.closeAllConnections();
    }, DRAIN_LIMIT_MS).unref();
    setTimeout(() => {
      built.app.log.error({ limitMs: SHUTDOWN_LIMIT_MS }, 'shutdown deadline passed: exiting');
      process.exit(1);
    }, SHUTDOWN_LIMIT_MS).unref();
    await built.close().catch(() => undefined);
    await database.close().catch(() => undefined);
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
