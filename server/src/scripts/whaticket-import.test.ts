import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { reachablePostgres, testApp, unique, type TestApp } from '../../test/helpers.js';
import { whaticketFixture } from '../../test/whaticket-fixture.js';
import { importWhaticket, type WhaticketImportReport } from './whaticket-import.js';

// The source is a real PostgreSQL database (the importer reads Whaticket with `pg`); without a server the
// file is skipped. The target is the test app's database: PGlite, or PostgreSQL under DATABASE_URL.
const server = await reachablePostgres();

describe.skipIf(!server)('import from Whaticket SaaS (#35.5)', () => {
  let t: TestApp;
  let source: Awaited<ReturnType<typeof whaticketFixture>>;
  let first: WhaticketImportReport;
  const media = mkdtempSync(join(tmpdir(), 'whaticket-public-'));

  beforeAll(async () => {
    t = await testApp();
    source = await whaticketFixture(server!);
    mkdirSync(join(media, 'company1'));
    writeFileSync(join(media, 'company1', 'foto.jpg'), Buffer.from('jpeg bytes'));
    first = await importWhaticket({
      from: source.url,
      companyId: 1,
      target: t.database,
      mediaDir: media,
      dataDir: t.dataDir,
    });
  }, 120_000);
  afterAll(async () => {
    await source?.drop();
    await t?.close();
  });

  const q = async (text: string, params: unknown[] = []) => (await t.database.raw(text, params)).rows;
  const counts = async (companyId: number) => {
    const out: Record<string, number> = {};
    for (const table of [
      'users',
      'queues',
      'whatsapps',
      'contacts',
      'tickets',
      'messages',
      'tags',
      'quick_messages',
      'schedules',
      'contact_lists',
      'contact_list_items',
      'campaigns',
    ])
      out[table] = Number(
        (await q(`select count(*)::int as n from ${table} where company_id = $1`, [companyId]))[0]!.n,
      );
    out.ticket_tags = Number(
      (
        await q(
          `select count(*)::int as n from ticket_tags tt join tickets t on t.id = tt.ticket_id where t.company_id = $1`,
          [companyId],
        )
      )[0]!.n,
    );
    return out;
  };

  test('company 1 arrives: counts, a conversation in order with its times, tags, numbers', async () => {
    expect(first.error).toBeUndefined();
    expect(first.ok).toBe(true);
    const id = first.recadoCompanyId!;
    expect((await q(`select name, email from companies where id = $1`, [id]))[0]).toEqual({
      name: 'Loja Um',
      email: 'um@loja.test',
    });
    expect(await counts(id)).toEqual({
      users: 2,
      queues: 2,
      whatsapps: 1,
      contacts: 2,
      tickets: 2,
      messages: 5,
      tags: 2,
      quick_messages: 1,
      schedules: 2,
      contact_lists: 1,
      contact_list_items: 2,
      campaigns: 2,
      ticket_tags: 3,
    });
    const ticket = (
      await q(
        `select t.id, t.status, c.number from tickets t join contacts c on c.id = t.contact_id
      where t.company_id = $1 and t.uuid = 'a0000000-0000-4000-8000-000000000001'`,
        [id],
      )
    )[0]!;
    expect(ticket.status).toBe('open');
    expect(ticket.number).toBe('5511987654321');
    const msgs = await q(
      `select body, from_me, media_type, media_url, provider_id, created_at from messages
      where ticket_id = $1 order by created_at, id`,
      [ticket.id],
    );
    expect(msgs.map((m) => [m.body, m.from_me, new Date(m.created_at as string).toISOString()])).toEqual([
      ['Oi, quero um orçamento', false, '2025-03-01T12:00:00.000Z'],
      ['Claro! Qual produto?', true, '2025-03-01T12:01:00.000Z'],
      ['foto.jpg', false, '2025-03-01T12:02:00.000Z'],
      ['Obrigada!', false, '2025-03-01T12:05:00.000Z'],
    ]);
    expect(msgs[0]!.provider_id).toBe('3EB0AAA1');
    expect(msgs[2]!.media_type).toBe('image');
    expect(String(msgs[2]!.media_url)).toMatch(new RegExp(`^${id}/`)); // copied into the media store
    const tags = await q(
      `select g.name from ticket_tags tt join tags g on g.id = tt.tag_id where tt.ticket_id = $1 order by g.name`,
      [ticket.id],
    );
    expect(tags.map((g) => g.name)).toEqual(['Lead', 'VIP']);
    const numbers = await q(`select number from contacts where company_id = $1 order by number`, [id]);
    expect(numbers.map((c) => c.number)).toEqual(['5511987654321', '5521988887777']);
  });

  test('what needs attention is imported safely: connections disconnected, no password hashes, campaigns not re-sent', async () => {
    const id = first.recadoCompanyId!;
    const [conn] = await q(
      `select status, is_default, complation_message from whatsapps where company_id = $1`,
      [id],
    );
    expect(conn).toEqual({ status: 'DISCONNECTED', is_default: true, complation_message: 'Tchau' });
    const users = await q(`select email, password_hash from users where company_id = $1 order by email`, [
      id,
    ]);
    expect(users.map((u) => u.email)).toEqual(['ana@loja-um.test', 'beto@loja-um.test']);
    for (const u of users) expect(String(u.password_hash)).not.toContain('$2a$08$');
    expect(
      (
        await t.request('POST', '/auth/login', {
          body: { email: 'ana@loja-um.test', password: '$2a$08$secret' },
        })
      ).status,
    ).not.toBe(200);
    const campaigns = await q(`select name, status from campaigns where company_id = $1 order by name`, [id]);
    expect(campaigns).toEqual([
      { name: 'Black Friday', status: 'FINALIZADA' },
      { name: 'Natal', status: 'INATIVA' },
    ]);
    const schedules = await q(`select body, status from schedules where company_id = $1 order by body`, [id]);
    expect(schedules).toEqual([
      { body: 'Lembrete enviado', status: 'ENVIADA' },
      { body: 'Lembrete futuro', status: 'ERRO' },
    ]);
    expect(
      (await q(`select value from settings where company_id = $1 and key = 'userRating'`, [id]))[0]?.value,
    ).toBe('enabled');
    expect(first.tables.Settings!.reasons['no Recado setting "wtV"']).toBe(1);
  });

  test('a second run updates and never duplicates', async () => {
    const id = first.recadoCompanyId!;
    const before = await counts(id);
    const again = await importWhaticket({
      from: source.url,
      companyId: 1,
      target: t.database,
      mediaDir: media,
      dataDir: t.dataDir,
    });
    expect(again.ok).toBe(true);
    expect(again.recadoCompanyId).toBe(id);
    expect(await counts(id)).toEqual(before);
    expect(again.tables.Messages).toMatchObject({ read: 5, imported: 0, updated: 5 });
    expect(
      Number((await q(`select count(*)::int as n from companies where name like 'Loja Um%'`))[0]!.n),
    ).toBe(1);
  });

  test('a contact deleted in Recado after the import comes back, with its tickets and messages, on the next run', async () => {
    const id = first.recadoCompanyId!;
    const before = await counts(id);
    await q(`delete from contacts where company_id = $1 and number = '5511987654321'`, [id]);
    expect((await counts(id)).messages).toBe(1);
    const again = await importWhaticket({
      from: source.url,
      companyId: 1,
      target: t.database,
      dataDir: t.dataDir,
    });
    expect(again.error).toBeUndefined();
    expect(await counts(id)).toEqual(before);
  });

  test('a run stopped half-way keeps its committed batches, and the next run continues without duplicates', async () => {
    const other = await whaticketFixture(server!);
    try {
      const stopped = await importWhaticket({
        from: other.url,
        companyId: 1,
        target: t.database,
        batchSize: 2,
        log: (line) => {
          if (line === '  Messages: 2 read') throw new Error('killed');
        },
      });
      expect(stopped.ok).toBe(false);
      expect(stopped.error).toBe('killed');
      const id = stopped.recadoCompanyId!;
      expect(id).not.toBe(first.recadoCompanyId); // another source: another company
      const messages = async () =>
        Number((await q(`select count(*)::int as n from messages where company_id = $1`, [id]))[0]!.n);
      expect(await messages()).toBe(2);
      const resumed = await importWhaticket({
        from: other.url,
        companyId: 1,
        target: t.database,
        batchSize: 2,
      });
      expect(resumed.ok).toBe(true);
      expect(resumed.recadoCompanyId).toBe(id);
      expect(resumed.tables.Messages).toMatchObject({ read: 5, imported: 3, updated: 2 });
      expect(await messages()).toBe(5);
      // Its users' e-mails already sign in to the first imported company: skipped, with the reason.
      expect(
        resumed.tables.Users!.reasons['e-mail already belongs to a user of another Recado company'],
      ).toBe(2);
    } finally {
      await other.drop();
    }
  });

  test('POST /api/company-imports/whaticket: the super user imports and gets the report; a company admin may not', async () => {
    const other = await whaticketFixture(server!);
    try {
      const company = await t.company(unique('Wt'));
      const denied = await t
        .as(company.admin)
        .post('/company-imports/whaticket', { from: other.url, companyId: 1 });
      expect(denied.status).toBe(403);
      const su = await t.superuser();
      const res = await t.as(su).post('/company-imports/whaticket', { from: other.url, companyId: 1 });
      const report = (await res.json()) as WhaticketImportReport;
      expect([res.status, report.error]).toEqual([200, undefined]);
      expect(report.ok).toBe(true);
      expect(report.tables.Messages).toMatchObject({ read: 5, imported: 5 });
      const missing = await t.as(su).post('/company-imports/whaticket', { from: other.url, companyId: 99 });
      expect(missing.status).toBe(422);
      expect(((await missing.json()) as WhaticketImportReport).error).toContain('company 99');
      expect(
        (await t.as(su).post('/company-imports/whaticket', { from: 'http://x', companyId: 1 })).status,
      ).toBe(400);
    } finally {
      await other.drop();
    }
  });

  test("company 2's data is never imported", async () => {
    for (const text of ['segredo', 'Da dois', 'Loja Dois', 'Secreta', 'caio@loja-dois.test', '5531977776666'])
      for (const [table, col] of [
        ['messages', 'body'],
        ['campaigns', 'name'],
        ['companies', 'name'],
        ['tags', 'name'],
        ['users', 'email'],
        ['contacts', 'number'],
      ])
        expect(await q(`select 1 from ${table} where ${col} = $1`, [text])).toEqual([]);
  });

  test('a source without "Messages" is named and nothing is imported', async () => {
    const broken = await whaticketFixture(server!, { omit: ['Messages'] });
    try {
      const companiesBefore = (await q(`select count(*)::int as n from companies`))[0]!.n;
      const r = await importWhaticket({ from: broken.url, companyId: 2, target: t.database });
      expect(r.ok).toBe(false);
      expect(r.missingTables).toEqual(['Messages']);
      expect(r.error).toContain('"Messages"');
      expect((await q(`select count(*)::int as n from companies`))[0]!.n).toBe(companiesBefore);
    } finally {
      await broken.drop();
    }
  });
});
