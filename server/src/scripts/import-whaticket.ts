/**
 * `npm run import:whaticket -- --from postgres://… --company <id> [--media <public folder>]` (docs/migration.md).
 * Imports into Recado's own database (the server's configuration: DATABASE_URL, else the embedded PGlite in DATA_DIR) —
 * stop Recado first when it runs embedded (PGlite allows one process). Prints progress, then the report as
 * one JSON object on the last line; exits 1 when nothing (or not everything) could be imported.
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '../config.js';
import { openDatabase } from '../db/client.js';
import { seed } from '../db/seed.js';
import { importWhaticket } from './whaticket-import.js';

const { values } = parseArgs({
  options: { from: { type: 'string' }, company: { type: 'string' }, media: { type: 'string' } },
});
const companyId = Number(values.company);
if (!values.from || !Number.isInteger(companyId) || companyId <= 0) {
  console.error(
    'usage: npm run import:whaticket -- --from postgres://user@host/db --company <id> [--media <path>]',
  );
  process.exit(2);
}
// The same database, migrations and seed (plans, super user) as `npm start`, so a fresh install can import first.
const config = loadConfig();
const dataDir = config.dataDir;
const database = await openDatabase({
  url: config.databaseUrl,
  dataDir: config.databaseUrl ? undefined : dataDir,
});
await database.migrate();
await seed(database.db, {
  superuserEmail: config.superuserEmail,
  superuserPassword: config.superuserPassword,
  demo: false,
  dataDir,
  production: config.env === 'production',
});
const report = await importWhaticket({
  from: values.from,
  companyId,
  target: database,
  mediaDir: values.media ? resolve(values.media) : undefined,
  dataDir,
  log: (line) => console.log(line),
});
await database.close();
if (report.error) console.error(`import failed: ${report.error}`);
for (const [table, r] of Object.entries(report.tables)) {
  console.log(`${table}: read ${r.read}, imported ${r.imported}, updated ${r.updated}, skipped ${r.skipped}`);
  for (const [why, n] of Object.entries(r.reasons)) console.log(`  ${n} × ${why}`);
}
for (const note of report.notes) console.log(`note: ${note}`);
console.log(JSON.stringify(report));
process.exit(report.ok ? 0 : 1);
