import { describe, expect, test } from 'vitest';
import { call, restartHarness } from '../../../test/restart.js';

// #32.4 (docs/productivity.md "Protocol numbers"): two real server processes (server/src/main.ts in child
// processes) on one PostgreSQL database create 1,000 tickets of one company at once, half through each, by
// POST /api/tickets. Numbers have no gap-free promise, but none is given twice and every one follows the
// company's pattern. PGlite's data directory takes one process only, so this file needs DATABASE_URL.
const pgUrl = process.env.DATABASE_URL;
const harness = pgUrl
  ? await restartHarness('protocol-two', { env: { API_RATE_LIMIT: '100000' } })
  : undefined;

const TICKETS = 1000;
const IN_FLIGHT = 20; // per process
const PATTERN = 'RC-YYYY-00000';

describe.skipIf(!harness)(
  `two server processes on one PostgreSQL database${pgUrl ? '' : ' (skipped: DATABASE_URL is not set; two processes cannot share a PGlite database)'}`,
  () => {
    test('1,000 tickets created at once through two processes: every protocol set, none twice, in the pattern', async () => {
      const { startServer, companyWithSimulator, withDatabase } = harness!;
      const [a, b] = await Promise.all([startServer(), startServer()]);
      const { token, whatsappId } = await companyWithSimulator(a.base, {
        name: 'Protocols',
        email: 'admin@protocols.test',
      });
      expect((await call(a.base, 'PUT', '/settings/protocolPattern', token, { value: PATTERN })).status).toBe(
        200,
      );

      // The 1,000 customers, written straight to the database: the tickets are what goes through the servers.
      const contactIds = await withDatabase(async (d) => {
        const [w] = (await d.raw('SELECT company_id FROM whatsapps WHERE id = $1', [whatsappId])).rows;
        const { rows } = await d.raw(
          `INSERT INTO contacts (company_id, name, number)
             SELECT $1, 'C' || i, '55119' || lpad(i::text, 8, '0') FROM generate_series(1, $2) AS i
           RETURNING id`,
          [w!.company_id, TICKETS],
        );
        return rows.map((r) => Number(r.id));
      });
      expect(contactIds).toHaveLength(TICKETS);

      // Each process its half, IN_FLIGHT requests at a time, both at once.
      const started = Date.now();
      const answers = await Promise.all(
        [a, b].map(async (server, half) => {
          const mine = contactIds.filter((_, i) => i % 2 === half);
          const got: { status: number; protocol: unknown; body: unknown }[] = [];
          let next = 0;
          const worker = async () => {
            while (next < mine.length) {
              const contactId = mine[next++]!;
              const r = await call(server.base, 'POST', '/tickets', token, {
                contactId,
                whatsappId,
                status: 'pending',
              });
              got.push({ status: r.status, protocol: r.body?.protocol, body: r.body });
            }
          };
          await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
          return got;
        }),
      );
      console.info(`${TICKETS} tickets through two processes in ${Date.now() - started} ms`);
      for (const got of answers) {
        expect(got).toHaveLength(TICKETS / 2);
        const refused = got.filter((g) => g.status !== 201);
        expect(refused.slice(0, 3), JSON.stringify(refused.slice(0, 3))).toEqual([]);
      }

      const rows = await withDatabase(
        async (d) =>
          (
            await d.raw(
              `SELECT t.protocol FROM tickets t JOIN whatsapps w ON w.company_id = t.company_id
                WHERE w.id = $1`,
              [whatsappId],
            )
          ).rows as { protocol: string }[],
      );
      const protocols = rows.map((r) => r.protocol);
      expect(protocols).toHaveLength(TICKETS);
      expect(protocols.filter((p) => !p)).toEqual([]);
      const seen = new Set<string>();
      const twice = protocols.filter((p) => seen.size === seen.add(p).size);
      expect(twice).toEqual([]);
      expect(protocols.filter((p) => !/^RC-\d{4}-\d{5}$/.test(p))).toEqual([]);
      // What the servers answered is what was stored.
      expect(new Set(answers.flat().map((g) => g.protocol))).toEqual(new Set(protocols));
    }, 150_000);
  },
);
