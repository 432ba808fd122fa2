import { expect, test } from 'vitest';
import { waitFor } from '../../../test/helpers.js';
import { call, login, restartHarness } from '../../../test/restart.js';

// #30.7 "snooze wakes once after a kill -9 and restart": the real server (server/src/main.ts) in a child
// process snoozes a ticket for a few seconds and is killed with SIGKILL before the time; a new process on the
// same database (PGlite's data directory, or a PostgreSQL database of its own with DATABASE_URL) wakes it
// from the durable job, exactly once.
const { startServer, companyWithSimulator, withDatabase } = await restartHarness('snooze-crash');

test('snooze wakes once after a kill -9 and restart', async () => {
  const first = await startServer();
  const { admin, token, whatsappId } = await companyWithSimulator(first.base, {
    name: 'Snooze crash',
    email: 'admin@snooze.test',
  });
  await call(first.base, 'POST', `/simulator/${whatsappId}/inbound`, token, {
    from: '5511933330001',
    name: 'Cliente',
    body: 'Olá',
  });
  const ticketId = await waitFor(async () => {
    const page = await call(first.base, 'GET', '/tickets?status=pending&showAll=true', token);
    return (page.body.tickets as { id: number }[])[0]?.id;
  });
  expect((await call(first.base, 'PUT', `/tickets/${ticketId}`, token, { status: 'open' })).status).toBe(200);
  // A few seconds ahead: the first process dies before the time comes.
  const until = new Date(Date.now() + 6000).toISOString();
  const snoozed = await call(first.base, 'POST', `/tickets/${ticketId}/snooze`, token, { until });
  expect(snoozed.status, JSON.stringify(snoozed.body)).toBe(200);
  first.kill();
  await first.exited;

  const second = await startServer();
  const token2 = await login(second.base, admin);
  // Still snoozed until its time (unless the restart itself took longer), then back in the open list.
  await waitFor(async () => {
    const v = await call(second.base, 'GET', `/tickets/${ticketId}`, token2);
    return v.status === 200 && v.body.snoozedAt === null;
  }, 60_000);
  const open = await call(second.base, 'GET', '/tickets?status=open', token2);
  expect((open.body.tickets as { id: number }[]).map((x) => x.id)).toContain(ticketId);
  const history = await call(second.base, 'GET', `/ticket/${ticketId}/histories`, token2);
  const actions = (history.body as unknown as { action: string }[]).map((h) => h.action);
  expect(actions.filter((a) => a === 'wake')).toHaveLength(1);
  second.child.kill('SIGTERM');
  await second.exited;

  // In the database: one wake, and the job done (not queued again, not failed).
  await withDatabase(async (database) => {
    const { rows } = await database.raw(
      `select status from jobs where kind = 'ticket.snooze-wake' and key = 'ticket:${ticketId}'`,
    );
    expect(rows.map((r) => r.status)).toEqual(['done']);
    const wakes = await database.raw(
      `select count(*)::int as n from ticket_histories where ticket_id = ${ticketId} and action = 'wake'`,
    );
    expect(wakes.rows[0]!.n).toBe(1);
  });
}, 300_000);
