import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { SERVER_ROOT } from './lib/paths.js';
import { loadConfig } from './config.js';
import { openDatabase } from './db/client.js';
import { seed } from './db/seed.js';
import { buildApp } from './app.js';
import { readyFields, readyLines } from './lib/startup.js';

const SHUTDOWN_LIMIT_MS = 10_000;

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
    if (stopping) return;
    stopping = true;
    built.app.log.info({ signal }, 'shutting down');
    // A close that hangs (a stuck connection or job) must not keep the port: give up after a while.
    setTimeout(() => process.exit(1), SHUTDOWN_LIMIT_MS).unref();
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
