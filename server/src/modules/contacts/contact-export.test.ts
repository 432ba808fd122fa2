import { describe, expect, test } from 'vitest';
import { eq } from 'drizzle-orm';
import { contacts, users } from '../../db/schema/index.js';
import { expectError, testApp, unique, type Session } from '../../../test/helpers.js';

// #32.6 GET /contacts/export.csv: the contacts list's query and visibility as CSV built on the server,
// columns headed in the user's language, scoped to the company, and recorded in the audit log.
const t = await testApp();
const db = t.database.db;

let seq = 0;
const phone = () => `5521966${String(Date.now() % 10000).padStart(4, '0')}${String(++seq).padStart(2, '0')}`;

const contact = async (s: Session, over: Record<string, unknown> = {}) => {
  const res = await t.as(s).post('/contacts', { name: unique('Contact '), number: phone(), ...over });
  expect(res.status, await res.clone().text()).toBe(201);
  return (await res.json()) as { id: number; name: string; number: string; email: string };
};

/** The export's records: BOM checked and removed, CRLF lines (no cell here holds a line break). */
async function exported(s: Session, query = '') {
  const res = await t.as(s).get(`/contacts/export.csv${query}`);
  expect(res.status, await res.clone().text()).toBe(200);
  expect(res.headers.get('content-type')).toContain('text/csv');
  expect(res.headers.get('content-disposition')).toBe('attachment; filename="contatos.csv"');
  const bytes = new Uint8Array(await res.arrayBuffer());
  expect([...bytes.slice(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
  const text = new TextDecoder('utf-8', { ignoreBOM: true }).decode(bytes).slice(1);
  expect(text.endsWith('\r\n')).toBe(true);
  return text.slice(0, -2).split('\r\n');
}

const setLanguage = (s: Session, language: string) =>
  db.update(users).set({ language }).where(eq(users.id, s.user.id));

describe('GET /contacts/export.csv', () => {
  test('columns with a custom field, escaping, the list filters; another company never included', async () => {
    const a = await t.company('ExportA');
    const b = await t.company('ExportB');
    const field = await t
      .as(a.admin)
      .post('/custom-fields', { entity: 'contact', key: 'plan', label: 'Plano; anual', type: 'text' });
    expect(field.status, await field.clone().text()).toBe(201);

    const ana = await contact(a.admin, {
      name: 'Ana Exportada',
      email: 'ana@export.test',
      customFields: { plan: 'gold' },
    });
    const bruno = await contact(a.admin, {
      name: 'Bruno Exportado',
      customFields: { plan: '=HYPERLINK("x")' },
    });
    const carla = await contact(a.admin, { name: 'Carla Outra' });
    const foreign = await contact(b.admin, { name: 'Ana Exportada B' });

    // Everything, in the list's order (name): header in Portuguese (the default), label escaped.
    const all = await exported(a.admin);
    expect(all[0]).toBe('Nome;Número;E-mail;"Plano; anual"');
    expect(all.slice(1)).toEqual([
      `Ana Exportada;${ana.number};ana@export.test;gold`,
      `Bruno Exportado;${bruno.number};;"'=HYPERLINK(""x"")"`,
      `Carla Outra;${carla.number};;`,
    ]);
    expect(all.join('\n')).not.toContain(foreign.number);

    // The list's search term and custom-field filter, the same query the list takes.
    expect((await exported(a.admin, '?searchParam=Exportad')).slice(1)).toEqual([
      `Ana Exportada;${ana.number};ana@export.test;gold`,
      `Bruno Exportado;${bruno.number};;"'=HYPERLINK(""x"")"`,
    ]);
    const filter = encodeURIComponent(JSON.stringify({ plan: 'gold' }));
    expect(await exported(a.admin, `?customFields=${filter}`)).toEqual([
      'Nome;Número;E-mail;"Plano; anual"',
      `Ana Exportada;${ana.number};ana@export.test;gold`,
    ]);
    // Nothing matches: the header alone.
    expect(await exported(a.admin, '?searchParam=ninguem-aqui')).toEqual([
      'Nome;Número;E-mail;"Plano; anual"',
    ]);
    await expectError(
      await t.as(a.admin).get('/contacts/export.csv?customFields=%7Bbad'),
      400,
      'ERR_VALIDATION',
    );

    // The second company's user (English) gets only their own, without A's field.
    const bUser = await t.user(b.admin);
    await setLanguage(bUser, 'en');
    expect(await exported(bUser)).toEqual(['Name;Number;E-mail', `Ana Exportada B;${foreign.number};`]);
    await setLanguage(bUser, 'es');
    expect((await exported(bUser))[0]).toBe('Nombre;Número;Correo');
    expect((await t.request('GET', '/contacts/export.csv')).status).toBe(401);
  });

  test('an attendant under the own-contacts rule exports only own and unowned contacts', async () => {
    const c = await t.company('ExportOwn');
    const agent = await t.user(c.admin);
    const other = await t.user(c.admin);
    const mine = await contact(c.admin, { name: 'Aaa Minha' });
    const theirs = await contact(c.admin, { name: 'Bbb Deles' });
    const nobody = await contact(c.admin, { name: 'Ccc Ninguem' });
    await db.update(contacts).set({ ownerId: agent.user.id }).where(eq(contacts.id, mine.id));
    await db.update(contacts).set({ ownerId: other.user.id }).where(eq(contacts.id, theirs.id));
    const on = await t.as(c.admin).put('/settings/ownContactsOnly', { value: 'enabled' });
    expect(on.status).toBe(200);

    expect((await exported(agent)).slice(1)).toEqual([
      `Aaa Minha;${mine.number};`,
      `Ccc Ninguem;${nobody.number};`,
    ]);
    expect(await exported(c.admin)).toHaveLength(4);
  });

  test('paged reads: every contact once, in order, past a page boundary', async () => {
    const c = await t.company('ExportMany');
    const total = 2345;
    const rows = Array.from({ length: total }, (_, i) => ({
      companyId: c.id,
      // Equal names across pages: the id breaks the tie, so the keyset neither skips nor repeats.
      name: `Pessoa ${String(Math.floor(i / 3)).padStart(4, '0')}`,
      number: `55219${String(10_000_000 + i)}`,
    }));
    for (let i = 0; i < rows.length; i += 1000) await db.insert(contacts).values(rows.slice(i, i + 1000));
    const lines = (await exported(c.admin)).slice(1);
    expect(lines).toHaveLength(total);
    expect(new Set(lines).size).toBe(total);
    expect(lines).toEqual(rows.map((r) => `${r.name};${r.number};`));
  });

  test('recorded in the audit log as export.contacts, with the actor and the filters', async () => {
    const c = await t.company('ExportAudit');
    const user = await t.user(c.admin);
    await contact(c.admin, { name: 'Auditada Silva' });
    expect(await exported(user, '?searchParam=Auditada')).toHaveLength(2);
    const res = await t.as(c.admin).get('/audit-log?action=export.contacts');
    expect(res.status).toBe(200);
    const { entries } = (await res.json()) as { entries: Record<string, unknown>[] };
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({
      action: 'export.contacts',
      targetType: 'contact',
      actorId: user.user.id,
      actorEmail: user.user.email,
      after: { searchParam: expect.stringMatching(/^auditada$/i) }, // the parsed query
    });
    // Another company's log does not have it.
    const other = await t.company('ExportAuditB');
    const theirs = await (await t.as(other.admin).get('/audit-log?action=export.contacts')).json();
    expect(theirs.entries).toHaveLength(0);
  });
});
