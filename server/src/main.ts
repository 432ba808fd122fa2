import { fileURLToPath } from 'node:url';
import { loadConfig } from './config.js';
import { openDatabase } from './db/client.js';
import { seed } from './db/seed.js';
import { buildApp } from './app.js';

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
  const built = await buildApp({ config, database, webDist });
  await built.app.listen({ port: config.port, host: config.host });
  built.app.log.info(
    {
      url: config.publicUrl,
      database: database.kind === 'pglite' ? `embedded PGlite in ${config.dataDir}` : 'PostgreSQL',
    },
    'Recado is running',
  );

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    built.app.log.info({ signal }, 'shutting down');
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
