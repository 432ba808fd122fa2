import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  expectError,
  reachablePostgres,
  testApp,
  waitFor,
  type Session,
  type TestApp,
} from '../../../test/helpers.js';
import { systemClock } from '../../lib/clock.js';
import { mediaStore } from '../../messaging/media-store.js';
import { MANIFEST, TABLES } from './archive-spec.js';
import { companyExportService } from './export-service.js';
import { TAR_END, readTar, tarHeader, tarPadding } from './tar.js';

/**
 * #35.4 Company export and import: a seeded company exported on this test's database (PGlite, or PostgreSQL
 * with DATABASE_URL) and imported into a fresh install on the other one; bad archives refused with nothing
 * imported; a second company and a non-super user refused; an export killed mid-table resumes.
 */
const pg = await reachablePostgres();
const otherUrl = process.env.DATABASE_URL ? null : pg;
const tmp = mkdtempSync(join(tmpdir(), 'recado-transfer-'));

const rows = async (t: TestApp, text: string, params: unknown[] = []) =>
  (await t.database.raw(text, params)).rows;
const one = async (t: TestApp, text: string, params: unknown[] = []) => (await rows(t, text, params))[0]!;

/** A company with a bit of everything, written as the app stores it. */
async function seedCompany(t: TestApp, companyId: number, admin: Session) {
  const agent = await t.user(admin, 'user');
  const media = mediaStore(t.dataDir);
  const q = await one(
    t,
    `insert into queues (company_id, name, color) values ($1, 'Vendas', '#112233') returning id`,
    [companyId],
  );
  await t.database.raw(
    `insert into queue_options (company_id, queue_id, title, option) values ($1, $2, 'Preços', '1')`,
    [companyId, q.id],
  );
  const w = await one(
    t,
    `insert into whatsapps (company_id, name, channel, status, token) values ($1, 'Loja', 'baileys', 'CONNECTED', 'secret-token') returning id`,
    [companyId],
  );
  await t.database.raw(`insert into whatsapp_queues (whatsapp_id, queue_id) values ($1, $2)`, [w.id, q.id]);
  await t.database.raw(`insert into user_queues (user_id, queue_id) values ($1, $2)`, [agent.user.id, q.id]);
  const tag = await one(
    t,
    `insert into tags (company_id, name, color) values ($1, 'VIP', '#ff0000') returning id`,
    [companyId],
  );
  const qmPath = await media.save(companyId, Buffer.from('quick media bytes'), 'q.txt', 'quick');
  await t.database.raw(
    `insert into quick_messages (company_id, user_id, shortcode, message, media_path, media_name) values ($1, $2, 'oi', 'Olá, tudo bem?', $3, 'q.txt')`,
    [companyId, agent.user.id, qmPath],
  );
  const contacts = [];
  for (const [name, number] of [
    ['Ana', '5511900000001'],
    ['Bruno', '5511900000002'],
  ]) {
    const c = await one(
      t,
      `insert into contacts (company_id, name, number, custom_fields) values ($1, $2, $3, '{"cpf":"123"}') returning id`,
      [companyId, name, number],
    );
    await t.database.raw(
      `insert into contact_custom_fields (contact_id, name, value) values ($1, 'Cidade', 'Recife')`,
      [c.id],
    );
    contacts.push(c.id as number);
  }
  const photo = await media.save(companyId, Buffer.from('a jpeg, nearly'), 'foto.jpg');
  let n = 0;
  for (const contactId of contacts) {
    const ticket = await one(
      t,
      `insert into tickets (company_id, contact_id, whatsapp_id, queue_id, user_id, status, last_message)
       values ($1, $2, $3, $4, $5, 'open', 'last') returning id`,
      [companyId, contactId, w.id, q.id, agent.user.id],
    );
    await t.database.raw(`insert into ticket_tags (ticket_id, tag_id) values ($1, $2)`, [ticket.id, tag.id]);
    await t.database.raw(
      `insert into ticket_notes (company_id, ticket_id, contact_id, user_id, note) values ($1, $2, $3, $4, 'nota')`,
      [companyId, ticket.id, contactId, agent.user.id],
    );
    let previous: unknown = null;
    for (let i = 0; i < 6; i++) {
      const m = await one(
        t,
        `insert into messages (company_id, ticket_id, contact_id, whatsapp_id, provider_id, body, from_me, user_id, quoted_msg_id,
           media_url, media_type, created_at)
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, now() + ($12 || ' seconds')::interval) returning id`,
        [
          companyId,
          ticket.id,
          contactId,
          w.id,
          `P${contactId}-${i}`,
          `mensagem ${++n} de ${contactId === contacts[0] ? 'Ana' : 'Bruno'}`,
          i % 2 === 1,
          i % 2 === 1 ? agent.user.id : null,
          i === 3 ? previous : null,
          i === 2 && contactId === contacts[0] ? photo : null,
          i === 2 && contactId === contacts[0] ? 'image' : 'chat',
          String(i),
        ],
      );
      previous = m.id;
    }
    await t.database.raw(
      `insert into schedules (company_id, body, contact_id, ticket_id, user_id, whatsapp_id, send_at) values ($1, 'lembrete', $2, $3, $4, $5, now() + interval '1 day')`,
      [companyId, contactId, ticket.id, agent.user.id, w.id],
    );
  }
  const list = await one(
    t,
    `insert into contact_lists (company_id, name) values ($1, 'Clientes') returning id`,
    [companyId],
  );
  await t.database.raw(
    `insert into contact_list_items (company_id, contact_list_id, name, number) values ($1, $2, 'Ana', '5511900000001')`,
    [companyId, list.id],
  );
  await t.database.raw(
    `insert into campaigns (company_id, name, message1, status, whatsapp_id, contact_list_id, tag_id) values ($1, 'Black Friday', 'Promo!', 'INATIVA', $2, $3, $4)`,
    [companyId, w.id, list.id, tag.id],
  );
  return { agent, photo };
}

/** What a company's data looks like, independent of ids: counts and the conversations' texts and references. */
async function picture(t: TestApp, companyId: number) {
  const counts: Record<string, number> = {};
  for (const spec of TABLES) {
    const scope = spec.scope.replaceAll('$company', String(companyId));
    counts[spec.name] = Number(
      (await one(t, `select count(*)::int as n from ${spec.name} t where ${scope}`)).n,
    );
  }
  const conversations = await rows(
    t,
    `select c.number, c.name, string_agg(coalesce(m.body, ''), '|' order by m.created_at, m.provider_id) as texts,
       string_agg(coalesce(q.body, '-'), '|' order by m.created_at, m.provider_id) as quotes,
       min(u.email) as agent, min(tg.name) as tag, min(qu.name) as queue, min(w.name) as connection
     from tickets tk join contacts c on c.id = tk.contact_id join messages m on m.ticket_id = tk.id
     left join messages q on q.id = m.quoted_msg_id left join users u on u.id = m.user_id
     left join ticket_tags tt on tt.ticket_id = tk.id left join tags tg on tg.id = tt.tag_id
     left join queues qu on qu.id = tk.queue_id left join whatsapps w on w.id = tk.whatsapp_id
     where tk.company_id = $1 group by c.number, c.name order by c.number`,
    [companyId],
  );
  const customFields = await rows(
    t,
    `select c.name, f.name as field, f.value from contact_custom_fields f join contacts c on c.id = f.contact_id where c.company_id = $1 order by 1`,
    [companyId],
  );
  const schedules = await rows(
    t,
    `select s.body, c.name from schedules s join contacts c on c.id = s.contact_id join tickets tk on tk.id = s.ticket_id and tk.contact_id = c.id where s.company_id = $1 order by 2`,
    [companyId],
  );
  const campaigns = await rows(
    t,
    `select ca.name, cl.name as list, tg.name as tag, w.name as connection from campaigns ca join contact_lists cl on cl.id = ca.contact_list_id
     join tags tg on tg.id = ca.tag_id join whatsapps w on w.id = ca.whatsapp_id where ca.company_id = $1`,
    [companyId],
  );
  return { counts, conversations, customFields, schedules, campaigns };
}

async function download(t: TestApp, s: Session, id: number, file: string) {
  const res = await t.request('GET', `/company-exports/${id}/archive`, { token: s.token });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('application/x-tar');
  writeFileSync(file, Buffer.from(await res.arrayBuffer()));
  return file;
}

async function upload(t: TestApp, s: Session, file: string) {
  const form = new FormData();
  form.append('file', new Blob([readFileSync(file)]), 'company.tar');
  return fetch(`${t.url}/api/company-imports`, {
    method: 'POST',
    headers: { authorization: `Bearer ${s.token}` },
    body: form,
  });
}

/** A copy of the archive with one entry's bytes changed by `edit` (and its header rewritten to match). */
async function rewrite(file: string, out: string, edit: (name: string, data: Buffer) => Buffer) {
  const parts: Buffer[] = [];
  for await (const e of readTar(file)) {
    const chunks: Buffer[] = [];
    for await (const c of e.body()) chunks.push(c);
    const data = edit(e.name, Buffer.concat(chunks));
    parts.push(tarHeader(e.name, data.length), data, tarPadding(data.length));
  }
  parts.push(TAR_END);
  writeFileSync(out, Buffer.concat(parts));
  return out;
}

describe.skipIf(!pg)('company export and import (#35.4)', async () => {
  const source = await testApp();
  const target = await testApp({ databaseUrl: otherUrl });
  const a = await source.company('Origem');
  const b = await source.company('Outra');
  const seeded = await seedCompany(source, a.id, a.admin);

  it('exports a company and imports it into a fresh install on the other database: same counts, texts, references', async () => {
    const started = await source.as(a.admin).post('/company-exports', {});
    expect(started.status).toBe(202);
    const exp = await started.json();
    const done = await waitFor(async () => {
      const r = await (await source.as(a.admin).get(`/company-exports/${exp.id}`)).json();
      if (r.status === 'failed') throw new Error(r.error);
      return r.status === 'done' ? r : null;
    }, 60_000);
    expect(done).toMatchObject({ companyId: a.id, phase: 'done', tablesDone: TABLES.length });
    expect(done.size).toBeGreaterThan(0);
    const file = await download(source, a.admin, exp.id, join(tmp, 'a.tar'));

    // The manifest, first; no password hash, token or secret anywhere in the archive.
    const text = readFileSync(file).toString('latin1');
    expect(text.slice(0, 100)).toContain(MANIFEST);
    expect(text).not.toContain('password_hash');
    expect(text).not.toContain('secret-token');
    expect(text).toContain('mensagem 1 de Ana');

    // Another company's admin sees nothing of it; the super user cannot be asked for by a company admin.
    await expectError(await source.as(b.admin).get(`/company-exports/${exp.id}`), 404, 'ERR_NOT_FOUND');
    await expectError(
      await source.as(b.admin).get(`/company-exports/${exp.id}/archive`),
      404,
      'ERR_NOT_FOUND',
    );
    await expectError(
      await source.as(b.admin).post('/company-exports', { companyId: a.id }),
      403,
      'ERR_NO_PERMISSION',
    );
    const list = await (await source.as(b.admin).get('/company-exports')).json();
    expect(list.map((e: { id: number }) => e.id)).not.toContain(exp.id);
    // A plain user cannot export; an admin cannot import.
    const agentRes = await source.as(seeded.agent).post('/company-exports', {});
    expect(agentRes.status).toBe(403);
    expect((await upload(target, (await target.company('Qualquer')).admin, file)).status).toBe(403);

    // An existing user with one of the archive's e-mails on the target: renamed, reported.
    const ta = await target.company('Destino');
    await target.database.raw(`update users set email = $1 where id = $2`, [a.adminEmail, ta.admin.user.id]);
    const res = await upload(target, await target.superuser(), file);
    const report = await res.json();
    expect(res.status, JSON.stringify(report)).toBe(201);
    expect(report.renamedUsers).toEqual([{ old: a.adminEmail, new: expect.stringContaining('+imported') }]);
    expect(report.mediaFiles).toBe(2);

    const before = await picture(source, a.id);
    const after = await picture(target, report.companyId);
    expect(after.counts).toEqual(before.counts);
    expect(before.counts.messages).toBe(12);
    const renamed = (c: Record<string, unknown>) => ({ ...c, agent: c.agent });
    expect(after.conversations.map(renamed)).toEqual(before.conversations.map(renamed));
    expect(after.customFields).toEqual(before.customFields);
    expect(after.schedules).toEqual(before.schedules);
    expect(after.campaigns).toEqual(before.campaigns);
    expect(report.tables.messages).toBe(12);

    // Media copied under the new company, same bytes; connections disconnected; users without a password.
    const m = await one(
      target,
      `select media_url from messages where company_id = $1 and media_url is not null`,
      [report.companyId],
    );
    expect(String(m.media_url).startsWith(`${report.companyId}/`)).toBe(true);
    expect(readFileSync(mediaStore(target.dataDir).fullPath(String(m.media_url))).toString()).toBe(
      'a jpeg, nearly',
    );
    const w = await one(target, `select status, token from whatsapps where company_id = $1`, [
      report.companyId,
    ]);
    expect(w).toEqual({ status: 'DISCONNECTED', token: '' });
    const agentEmail = seeded.agent.user.email;
    const login = await target.request('POST', '/auth/login', {
      body: { email: agentEmail, password: 'User@123' },
    });
    expect(login.status).toBe(401);
    // The app's "forgot password" is how they get in: it knows the imported user.
    const forgot = await target.request('POST', `/forgetpassword/${encodeURIComponent(agentEmail)}`);
    expect(forgot.status, await forgot.clone().text()).toBe(200);

    // The audit logs: the export on the source company's, the import on the platform's.
    expect(
      (
        await rows(source, `select 1 from audit_log where company_id = $1 and action = 'export.company'`, [
          a.id,
        ])
      ).length,
    ).toBe(1);
    expect(
      (
        await rows(
          source,
          `select 1 from audit_log where company_id = $1 and action = 'export.company_download'`,
          [a.id],
        )
      ).length,
    ).toBe(1);
    expect(
      (
        await rows(target, `select 1 from audit_log where action = 'company.imported' and target_id = $1`, [
          String(report.companyId),
        ])
      ).length,
    ).toBe(1);

    // Bad archives: refused with the file named, and nothing imported.
    const companies = async () => Number((await one(target, 'select count(*)::int as n from companies')).n);
    const messages = async () => Number((await one(target, 'select count(*)::int as n from messages')).n);
    const n0 = { companies: await companies(), messages: await messages() };
    const bytes = readFileSync(file);
    const truncated = join(tmp, 'truncated.tar');
    writeFileSync(truncated, bytes.subarray(0, Math.floor(bytes.length * 0.6)));
    const t1 = await expectError(
      await upload(target, await target.superuser(), truncated),
      400,
      'ERR_ARCHIVE_TRUNCATED',
    );
    expect(t1.details.file).toBeTruthy();

    const tampered = await rewrite(file, join(tmp, 'tampered.tar'), (name, data) =>
      name === 'tables/messages.jsonl'
        ? Buffer.from(data.toString().replace('mensagem 3', 'mensagem X'))
        : data,
    );
    const t2 = await expectError(
      await upload(target, await target.superuser(), tampered),
      400,
      'ERR_ARCHIVE_TAMPERED',
    );
    expect(t2.details).toMatchObject({ file: 'tables/messages.jsonl', table: 'messages' });

    const newer = await rewrite(file, join(tmp, 'newer.tar'), (name, data) =>
      name === MANIFEST ? Buffer.from(JSON.stringify({ ...JSON.parse(data.toString()), version: 2 })) : data,
    );
    await expectError(await upload(target, await target.superuser(), newer), 422, 'ERR_ARCHIVE_VERSION');

    const corrupt = join(tmp, 'corrupt.tar');
    const c = Buffer.from(bytes);
    // The second entry's header (after the manifest's blocks): a byte of its name changed.
    let second = 512;
    for await (const e of readTar(file)) {
      if (e.name !== MANIFEST) break;
      second = e.dataOffset + Math.ceil(e.size / 512) * 512;
    }
    c[second + 3] = c[second + 3]! ^ 0x20;
    writeFileSync(corrupt, c);
    await expectError(await upload(target, await target.superuser(), corrupt), 400, 'ERR_ARCHIVE_CORRUPT');

    // A line that is not JSON, in an archive whose manifest was made to match: refused, the line named.
    let original = Buffer.alloc(0);
    for await (const e of readTar(file)) {
      if (e.name !== 'tables/messages.jsonl') continue;
      const chunks: Buffer[] = [];
      for await (const ch of e.body()) chunks.push(ch);
      original = Buffer.concat(chunks);
    }
    const lines = original.toString().split('\n');
    lines[4] = '{"id": 5, "body": "cut';
    const broken = Buffer.from(lines.join('\n'));
    const badLine = await rewrite(file, join(tmp, 'badline.tar'), (name, data) => {
      if (name === 'tables/messages.jsonl') return broken;
      if (name !== MANIFEST) return data;
      const m = JSON.parse(data.toString());
      m.tables.messages.sha256 = createHash('sha256').update(broken).digest('hex');
      m.tables.messages.bytes = broken.length;
      return Buffer.from(JSON.stringify(m));
    });
    const t3 = await expectError(
      await upload(target, await target.superuser(), badLine),
      400,
      'ERR_ARCHIVE_CORRUPT',
    );
    expect(t3.details).toEqual({ file: 'tables/messages.jsonl', table: 'messages', line: 5 });

    expect({ companies: await companies(), messages: await messages() }).toEqual(n0);
  }, 120_000);

  it('an export killed in the middle of a table resumes from the last page recorded, without duplicates', async () => {
    const row = await one(
      source,
      `insert into company_exports (company_id, requested_by, status) values ($1, $2, 'queued') returning id`,
      [a.id, a.admin.user.id],
    );
    const id = Number(row.id);
    const base = {
      db: source.database.db,
      dataDir: source.dataDir,
      media: mediaStore(source.dataDir),
      clock: systemClock,
      jobs: source.app.services.jobs,
      install: 'test',
      log: { warn: () => undefined, info: () => undefined },
      batch: 4,
    };
    const crashing = companyExportService({
      ...base,
      afterWrite: (part, n) => {
        if (part === 'messages' && n >= 8) throw new Error('killed');
      },
    });
    await expect(crashing.run(id)).rejects.toThrow('killed');
    const mid = await one(source, `select status, progress from company_exports where id = $1`, [id]);
    const progress = (typeof mid.progress === 'string' ? JSON.parse(mid.progress) : mid.progress) as {
      current: { part: string; rows: number; bytes: number };
    };
    expect(progress.current).toMatchObject({ part: 'messages', rows: 4 });
    // The killed page's bytes are on disk past the recorded size.
    const partial = await open(join(source.dataDir, 'company-exports', String(id), 'messages.jsonl'), 'r');
    expect((await partial.stat()).size).toBeGreaterThan(progress.current.bytes);
    await partial.close();

    await companyExportService(base).run(id);
    const done = await one(source, `select status, progress from company_exports where id = $1`, [id]);
    expect(done.status).toBe('done');
    const p = (typeof done.progress === 'string' ? JSON.parse(done.progress) : done.progress) as {
      resumes: number;
      done: Record<string, number>;
    };
    expect(p.resumes).toBe(1);
    expect(p.done.messages).toBe(12);
    const file = await download(source, a.admin, id, join(tmp, 'resumed.tar'));
    for await (const e of readTar(file)) {
      if (e.name !== 'tables/messages.jsonl') continue;
      const chunks: Buffer[] = [];
      for await (const c of e.body()) chunks.push(c);
      const ids = chunks.length
        ? Buffer.concat(chunks)
            .toString()
            .trim()
            .split('\n')
            .map((l) => JSON.parse(l).id)
        : [];
      expect(ids).toHaveLength(12);
      expect(new Set(ids).size).toBe(12);
    }
    // And it imports.
    const res = await upload(target, await target.superuser(), file);
    expect(res.status, await res.clone().text()).toBe(201);
  }, 120_000);
});
