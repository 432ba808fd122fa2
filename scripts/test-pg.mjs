// npm run test:pg: the server suite against a PostgreSQL server (each test file makes and drops its own database).
import { spawnSync } from 'node:child_process';

const url =
  process.env.TEST_DATABASE_URL ?? process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
console.log(`Server suite on PostgreSQL (${url.replace(/\/\/[^@]*@/, '//***@')})`);
const r = spawnSync('npm', ['run', 'test', '-w', 'server'], {
  stdio: 'inherit',
  env: { ...process.env, DATABASE_URL: url },
});
process.exit(r.status ?? 1);
