import { expect, test } from 'vitest';
import { waitFor } from '../../../test/helpers.js';
import { call, restartHarness } from '../../../test/restart.js';

// #28.5 (docs/external-api.md "Idempotency"): the real server in a child process, killed with SIGKILL in the
// middle of a burst of sends with externalKeys, then started again on the same database (PGlite's data
// directory, or a PostgreSQL database of its own when DATABASE_URL is set). Resending every key answers
// every one (201), each message exists exactly once, and a key answered before the crash answers the same.
const { startServer, companyWithSimulator, withDatabase } = await restartHarness('h2-crash', {
  env: { API_RATE_LIMIT: '100000' },
});

const KEYS = 80;
const KILL_DELAY_MS = 25;
const number = (i: number) => `5511977${String(100000 + (i % 6)).slice(-6)}`;
const sendBody = (i: number) => ({ number: number(i), body: `crash burst ${i}`, externalKey: `order-${i}` });

test('kill -9 mid-burst of keyed sends, restart, resend every key: each message once, every key answered', async () => {
  const first = await startServer();
  const { token: adminToken, whatsappId } = await companyWithSimulator(first.base, {
    name: 'Crash',
    email: 'admin@crash.test',
  });
  const token = (await call(first.base, 'GET', `/whatsapp/${whatsappId}/token`, adminToken)).body
    .token as string;

  // The burst: 16 sends in flight at a time; SIGKILL once a quarter are answered.
  const before = new Map<number, Record<string, unknown>>();
  let next = 0;
  let killing = false;
  let killed = false;
  const worker = async () => {
    while (!killed && next < KEYS) {
      const i = next++;
      const r = await call(first.base, 'POST', '/messages/send', token, sendBody(i)).catch(() => undefined);
      if (r?.status === 201) before.set(i, r.body);
      if (!killing && before.size >= KEYS / 4) {
        // A little after an answer, while the other sends are in the middle of their work.
        killing = true;
        setTimeout(() => {
          killed = true;
          first.kill();
        }, KILL_DELAY_MS);
      }
    }
  };
  await Promise.all(Array.from({ length: 16 }, worker));
  await first.exited;
  expect(killed).toBe(true);
  expect(before.size).toBeLessThan(KEYS);

  const second = await startServer();
  // Every key again, as a client that lost its answers would: each is answered, none is still "in progress".
  const after = new Map<number, Record<string, unknown>>();
  const statuses: number[] = [];
  for (let i = 0; i < KEYS; i++) {
    const r = await call(second.base, 'POST', '/messages/send', token, sendBody(i));
    statuses.push(r.status);
    after.set(i, r.body);
  }
  expect(statuses.filter((s) => s !== 201)).toEqual([]);
  // A key answered before the crash answers the same message now.
  for (const [i, answer] of before) expect(after.get(i)).toMatchObject({ ...answer, duplicate: true });
  const ids = [...after.values()].map((a) => a.messageId as number);
  expect(new Set(ids).size).toBe(KEYS);

  // Every message reaches the customer (the outbox sends what the crash left stored but unsent).
  await waitFor(async () => {
    for (const id of ids) {
      const s = await call(second.base, 'GET', `/messages/status/${id}`, token);
      if (s.status !== 200 || (s.body.ack as number) < 1) return false;
    }
    return true;
  }, 60_000);
  second.child.kill('SIGTERM');
  await second.exited;

  // In the database: exactly one message per key, and it is the one the key answers.
  await withDatabase(async (database) => {
    const { rows } = await database.raw(
      `select body, count(*)::int as n, min(id)::int as id from messages where from_me and body like 'crash burst %' group by body`,
    );
    const byBody = new Map(rows.map((r) => [r.body as string, r as { n: number; id: number }]));
    for (let i = 0; i < KEYS; i++) {
      const row = byBody.get(`crash burst ${i}`);
      expect(row, `key ${i}`).toMatchObject({ n: 1, id: after.get(i)!.messageId });
    }
    expect(byBody.size).toBe(KEYS);
  });
}, 300_000);
