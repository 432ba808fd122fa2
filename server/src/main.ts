import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { loadConfig } from './config.js';
import { openDatabase } from './db/client.js';
import { seed } from './db/seed.js';
import { buildApp } from './app.js';
import { readyFields, readyLines } from './lib/startup.js';

const SHUTDOWN_LIMIT_MS = 10_000;

/** Process entry: config → database (migrations, seeds) → app → realtime → listen. */
async function main() {
  const config = loadConfig();
  const database = await openDatabase({
    url: config.databaseUrl,
    dataDir: config.databaseUrl ? undefined : config.dataDir,
  });
  await database.migrate();
  await seed(database.db, {
    superuserEmail: config.superuserEmail,
    superuserPassword: config.superuserPassword,
    demo: config.seedDemo,
    dataDir: config.dataDir,
    production: config.env === 'production',
  });
  const webDist = config.webDist ?? fileURLToPath(new URL('../../web/dist', import.meta.url));
  // Development consoles read lines; production keeps one JSON object a line for log collectors.
  const logStyle = config.env === 'development' ? 'pretty' : 'json';
  const built = await buildApp({ config, database, webDist, logStyle });
  await built.app.listen({ port: config.port, host: config.host });
  const ready = {
    url: config.publicUrl,
    host: config.host,
    port: (built.app.server.address() as AddressInfo).port,
    database: database.kind === 'pglite' ? `embedded PGlite in ${config.dataDir}` : 'PostgreSQL',
    demo: config.seedDemo,
  };
  if (logStyle === 'pretty') built.app.log.info(readyLines(ready).join('\n  '));
  else built.app.log.info(readyFields(ready), 'Recado is ready');

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
