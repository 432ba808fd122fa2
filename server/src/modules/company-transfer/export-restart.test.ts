import { writeFileSync } from 'node:fs';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { call, login, restartHarness } from '../../../test/restart.js';
import { waitFor } from '../../../test/helpers.js';
import { readTar } from './tar.js';

// #35.4 The real server (as `npm start` runs it) killed with SIGKILL in the middle of a company export's
// messages table; restarted, it takes the job over when the lease ends and continues from the last page it
// recorded: the archive holds every message exactly once and the export counts one resume.
const { startServer, companyWithSimulator, withDatabase } = await restartHarness('company-export');
const MESSAGES = 40_000;

it('an export killed mid-table continues after a restart, without duplicates', async () => {
  const first = await startServer();
  const { admin, whatsappId } = await companyWithSimulator(first.base, {
    name: 'Exporta',
    email: 'admin@exporta.test',
  });
  const signedIn = await call(first.base, 'POST', '/auth/login', undefined, admin);
  const companyId = Number((signedIn.body.user as { companyId: number }).companyId);
  await first.stop();

  // Enough messages that the export takes a while (set-based, straight into the database).
  await withDatabase(async (db) => {
    const c = (
      await db.raw(
        `insert into contacts (company_id, name, number) values ($1, 'Cliente', '5511999990000') returning id`,
        [companyId],
      )
    ).rows[0]!.id;
    const t = (
      await db.raw(
        `insert into tickets (company_id, contact_id, whatsapp_id, status) values ($1, $2, $3, 'closed') returning id`,
        [companyId, c, whatsappId],
      )
    ).rows[0]!.id;
    await db.raw(
      `insert into messages (company_id, ticket_id, contact_id, whatsapp_id, provider_id, body, from_me)
       select $1, $2, $3, $4, 'R' || g, 'mensagem ' || g || ' com algum texto para ocupar espaço no arquivo', g % 2 = 0
       from generate_series(1, ${MESSAGES}) g`,
      [companyId, t, c, whatsappId],
    );
  });

  const second = await startServer();
  const t2 = await login(second.base, admin);
  const started = await call(second.base, 'POST', '/company-exports', t2, {});
  expect(started.status, JSON.stringify(started.body)).toBe(202);
  const id = Number(started.body.id);
  // Killed while the messages table is being written (some pages recorded, not all).
  const mid = await waitFor(async () => {
    const r = await call(second.base, 'GET', `/company-exports/${id}`, t2);
    if (r.body.status === 'done') throw new Error('the export finished before the kill: seed more messages');
    return r.body.current === 'messages' && Number(r.body.rowsWritten) > 2000 ? r.body : null;
  }, 120_000);
  second.kill();
  await second.exited;

  const third = await startServer();
  const t3 = await login(third.base, admin);
  let last: unknown;
  const done = await waitFor(async () => {
    const r = await call(third.base, 'GET', `/company-exports/${id}`, t3);
    last = r.body;
    if (r.body.status === 'failed') throw new Error(String(r.body.error));
    return r.body.status === 'done' ? r.body : null;
  }, 240_000).catch((err: Error) => {
    throw new Error(`${err.message}: ${JSON.stringify(last)}\n${third.output().slice(-3000)}`);
  });
  expect(done.resumes).toBeGreaterThanOrEqual(1);
  expect(Number(done.rowsWritten)).toBeGreaterThanOrEqual(Number(mid.rowsWritten));

  const res = await fetch(`${third.base}/company-exports/${id}/archive`, {
    headers: { authorization: `Bearer ${t3}` },
  });
  expect(res.status).toBe(200);
  const file = join(mkdtempSync(join(tmpdir(), 'recado-export-restart-')), 'a.tar');
  writeFileSync(file, Buffer.from(await res.arrayBuffer()));
  let count = 0;
  const seen = new Set<number>();
  for await (const e of readTar(file)) {
    if (e.name !== 'tables/messages.jsonl') continue;
    let rest = '';
    for await (const c of e.body()) {
      rest += c.toString('utf8');
      let i: number;
      while ((i = rest.indexOf('\n')) >= 0) {
        seen.add(Number(JSON.parse(rest.slice(0, i)).id));
        count++;
        rest = rest.slice(i + 1);
      }
    }
  }
  expect(count).toBe(MESSAGES);
  expect(seen.size).toBe(MESSAGES);
  await third.stop();
}, 600_000);
