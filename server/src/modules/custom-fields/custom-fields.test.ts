import { describe, expect, test } from 'vitest';
import { and, eq, sql } from 'drizzle-orm';
import {
  contactCustomFields,
  contacts,
  customFieldDefinitions,
  messages,
  tickets,
} from '../../db/schema/index.js';
import { fillCustomFieldVariables } from '../../lib/ticket-variables.js';
import { customFieldFilterWhere } from './custom-field-service.js';
import { expectError, testApp, unique, waitFor, type Session } from '../../../test/helpers.js';

const t = await testApp();
const db = t.database.db;

let phoneSeq = 0;
const phone = () =>
  `5521977${String(Date.now() % 10000).padStart(4, '0')}${String(++phoneSeq).padStart(2, '0')}`;

const field = async (s: Session, body: Record<string, unknown>) => {
  const res = await t.as(s).post('/custom-fields', { entity: 'contact', ...body });
  expect(res.status, await res.clone().text()).toBe(201);
  return res.json();
};
const contact = async (s: Session, over: Record<string, unknown> = {}) => {
  const res = await t.as(s).post('/contacts', { name: unique('Contact '), number: phone(), ...over });
  expect(res.status, await res.clone().text()).toBe(201);
  return res.json();
};
const storedOf = async (id: number) =>
  (await db.select({ cf: contacts.customFields }).from(contacts).where(eq(contacts.id, id)))[0]!.cf;

/** A company with one field of each type on contacts. */
async function company(name: string) {
  const c = await t.company(name);
  await field(c.admin, { key: 'note', label: 'Nota', type: 'text' });
  await field(c.admin, { key: 'score', label: 'Score', type: 'number' });
  await field(c.admin, { key: 'birthday', label: 'Aniversário', type: 'date' });
  await field(c.admin, { key: 'plan', label: 'Plano', type: 'list', options: ['gold', 'silver'] });
  await field(c.admin, { key: 'vip', label: 'VIP', type: 'boolean' });
  await field(c.admin, { key: 'site', label: 'Site', type: 'url' });
  return c;
}

describe('definitions', () => {
  test('admins write, everyone reads; keys are slugs unique per entity and fixed once created', async () => {
    const c = await t.company('Defs');
    const user = await t.user(c.admin);
    const created = await field(c.admin, {
      key: 'Plan_2',
      label: 'Plano',
      type: 'list',
      options: ['a', 'b'],
    });
    expect(created).toMatchObject({ key: 'plan_2', entity: 'contact', type: 'list', options: ['a', 'b'] });
    // The same key on tickets is another field.
    await field(c.admin, { entity: 'ticket', key: 'plan_2', label: 'Plano', type: 'text', options: ['x'] });
    await expectError(
      await t
        .as(c.admin)
        .post('/custom-fields', { entity: 'contact', key: 'plan_2', label: 'X', type: 'text' }),
      409,
      'ERR_VALIDATION',
    );
    const listed = await (await t.as(user).get('/custom-fields?entity=ticket')).json();
    expect(listed.map((d: { entity: string; options: string[] }) => [d.entity, d.options])).toEqual([
      ['ticket', []],
    ]);
    expect((await t.as(user).get(`/custom-fields/${created.id}`)).status).toBe(200);
    await expectError(
      await t.as(user).post('/custom-fields', { entity: 'contact', key: 'k', label: 'K', type: 'text' }),
      403,
      'ERR_NO_PERMISSION',
    );
    await expectError(
      await t.as(user).put(`/custom-fields/${created.id}`, { label: 'X' }),
      403,
      'ERR_NO_PERMISSION',
    );
    await expectError(await t.as(user).del(`/custom-fields/${created.id}`), 403, 'ERR_NO_PERMISSION');

    for (const [why, body] of [
      ['bad slug', { key: '1abc', label: 'x', type: 'text' }],
      ['unknown type', { key: 'a', label: 'x', type: 'color' }],
      ['list without options', { key: 'a', label: 'x', type: 'list' }],
      ['repeated options', { key: 'a', label: 'x', type: 'list', options: ['a', 'a'] }],
      ['unknown entity', { entity: 'user', key: 'a', label: 'x', type: 'text' }],
    ] as const) {
      const res = await t.as(c.admin).post('/custom-fields', { entity: 'contact', ...body });
      expect(res.status, why).toBe(400);
    }
    const keyChange = await expectError(
      await t.as(c.admin).put(`/custom-fields/${created.id}`, { key: 'other' }),
      400,
      'ERR_VALIDATION',
    );
    expect(JSON.stringify(keyChange)).toContain('key');
    const updated = await (
      await t
        .as(c.admin)
        .put(`/custom-fields/${created.id}`, { label: 'Plano B', options: ['a', 'b', 'c'], order: 3 })
    ).json();
    expect(updated).toMatchObject({ key: 'plan_2', label: 'Plano B', options: ['a', 'b', 'c'], order: 3 });
  });
});

describe('values on contacts', () => {
  test('typed values are stored and read back; a bad one is a 400 naming the field and changes nothing', async () => {
    const c = await company('Vals');
    const ct = await contact(c.admin, {
      customFields: {
        note: ' hello ',
        score: '42',
        birthday: '1990-02-28',
        plan: 'gold',
        vip: true,
        site: 'https://x.test/a',
      },
    });
    expect(ct.customFields).toEqual({
      note: 'hello',
      score: 42,
      birthday: '1990-02-28',
      plan: 'gold',
      vip: true,
      site: 'https://x.test/a',
    });
    expect((await (await t.as(c.admin).get(`/contacts/${ct.id}`)).json()).customFields).toEqual(
      ct.customFields,
    );

    for (const [key, value] of [
      ['score', 'many'],
      ['birthday', '1990-02-30'],
      ['birthday', 'yesterday'],
      ['plan', 'bronze'],
      ['vip', 'maybe'],
      ['site', 'javascript:alert(1)'],
      ['site', 'not a url'],
      ['nope', 'x'],
      ['note', 5],
    ] as const) {
      const body = await expectError(
        await t
          .as(c.admin)
          .put(`/contacts/${ct.id}`, { name: 'Changed Name', customFields: { [key]: value } }),
        400,
        'ERR_VALIDATION',
      );
      expect(body.message, `${key}=${value}`).toContain(`customFields.${key}`);
      expect(body.fields[0].path).toBe(`customFields.${key}`);
    }
    // Nothing changed: neither the name nor the values.
    const after = await (await t.as(c.admin).get(`/contacts/${ct.id}`)).json();
    expect(after.name).toBe(ct.name);
    expect(after.customFields).toEqual(ct.customFields);
    // A create refused for a bad value stores no contact.
    const number = phone();
    await expectError(
      await t.as(c.admin).post('/contacts', { name: 'Bad Value', number, customFields: { plan: 'x' } }),
      400,
      'ERR_VALIDATION',
    );
    expect(await db.select().from(contacts).where(eq(contacts.number, number))).toEqual([]);

    // An update changes the keys sent; null removes one.
    const upd = await (
      await t
        .as(c.admin)
        .put(`/contacts/${ct.id}`, { customFields: { score: 7.5, vip: null, plan: 'silver' } })
    ).json();
    expect(upd.customFields).toEqual({
      note: 'hello',
      score: 7.5,
      birthday: '1990-02-28',
      plan: 'silver',
      site: 'https://x.test/a',
    });
    expect(await storedOf(ct.id)).toEqual(upd.customFields);
  });

  test('required fields must be given on create and cannot be removed', async () => {
    const c = await t.company('Req');
    await field(c.admin, { key: 'cpf', label: 'CPF', type: 'text', required: true });
    const body = await expectError(
      await t.as(c.admin).post('/contacts', { name: 'No Cpf', number: phone() }),
      400,
      'ERR_VALIDATION',
    );
    expect(body.fields[0].path).toBe('customFields.cpf');
    const ct = await contact(c.admin, { customFields: { cpf: '123' } });
    await expectError(
      await t.as(c.admin).put(`/contacts/${ct.id}`, { customFields: { cpf: null } }),
      400,
      'ERR_VALIDATION',
    );
    // Other updates leave it alone.
    expect((await t.as(c.admin).put(`/contacts/${ct.id}`, { name: 'Renamed' })).status).toBe(200);
  });

  test('deleting a definition removes its values', async () => {
    const c = await company('Del');
    const ct = await contact(c.admin, { customFields: { plan: 'gold', note: 'n' } });
    const defs = await (await t.as(c.admin).get('/custom-fields?entity=contact')).json();
    const plan = defs.find((d: { key: string }) => d.key === 'plan');
    expect((await t.as(c.admin).del(`/custom-fields/${plan.id}`)).status).toBe(200);
    expect(await storedOf(ct.id)).toEqual({ note: 'n' });
    await expectError(
      await t.as(c.admin).put(`/contacts/${ct.id}`, { customFields: { plan: 'gold' } }),
      400,
      'ERR_VALIDATION',
    );
  });
});

describe('list filters', () => {
  test('contacts filter by custom fields (containment, values read by type)', async () => {
    const c = await company('Filt');
    const gold = await contact(c.admin, { customFields: { plan: 'gold', score: 10, vip: true } });
    await contact(c.admin, { customFields: { plan: 'silver', score: 10 } });
    await contact(c.admin);
    const q = (f: unknown) =>
      t.as(c.admin).get(`/contacts?customFields=${encodeURIComponent(JSON.stringify(f))}`);
    const ids = async (f: unknown) => (await (await q(f)).json()).contacts.map((x: { id: number }) => x.id);
    expect(await ids({ plan: 'gold' })).toEqual([gold.id]);
    expect(await ids({ vip: 'true', score: '10' })).toEqual([gold.id]);
    expect((await ids({ score: 10 })).length).toBe(2);
    expect(await ids({ plan: 'gold', vip: false })).toEqual([]);
    expect((await expectError(await q({ nope: 1 }), 400, 'ERR_VALIDATION')).message).toContain(
      'customFields.nope',
    );
    await expectError(await q({ plan: 'bronze' }), 400, 'ERR_VALIDATION');
    await expectError(await t.as(c.admin).get('/contacts?customFields=%7Bbad'), 400, 'ERR_VALIDATION');
    await expectError(await q([1]), 400, 'ERR_VALIDATION');
  });

  test('tickets carry values, change them through PUT /tickets/{id} and filter by them', async () => {
    const c = await t.company('Tick');
    await field(c.admin, { entity: 'ticket', key: 'order_no', label: 'Pedido', type: 'number' });
    await field(c.admin, {
      entity: 'ticket',
      key: 'channel',
      label: 'Canal',
      type: 'list',
      options: ['web', 'loja'],
    });
    await t.as(c.admin).post('/whatsapp', { name: 'Sim', channel: 'simulator' });
    const a = await contact(c.admin);
    const b = await contact(c.admin);
    const ta = await (
      await t
        .as(c.admin)
        .post('/tickets', { contactId: a.id, status: 'open', customFields: { order_no: 99 } })
    ).json();
    expect(ta.customFields).toEqual({ order_no: 99 });
    const tb = await (await t.as(c.admin).post('/tickets', { contactId: b.id, status: 'open' })).json();
    const upd = await t.as(c.admin).put(`/tickets/${tb.id}`, { customFields: { channel: 'loja' } });
    expect(upd.status, await upd.clone().text()).toBe(200);
    expect((await upd.json()).customFields).toEqual({ channel: 'loja' });
    const bad = await expectError(
      await t.as(c.admin).put(`/tickets/${tb.id}`, { priority: 'urgent', customFields: { channel: 'fax' } }),
      400,
      'ERR_VALIDATION',
    );
    expect(bad.fields[0].path).toBe('customFields.channel');
    const [row] = await db.select().from(tickets).where(eq(tickets.id, tb.id));
    expect(row!.priority).toBe(1);
    expect(row!.customFields).toEqual({ channel: 'loja' });
    const list = async (f: unknown) =>
      (
        await (
          await t
            .as(c.admin)
            .get(`/tickets?status=open&showAll=true&customFields=${encodeURIComponent(JSON.stringify(f))}`)
        ).json()
      ).tickets.map((x: { id: number }) => x.id);
    expect(await list({ channel: 'loja' })).toEqual([tb.id]);
    expect(await list({ order_no: '99' })).toEqual([ta.id]);
    // A rare value is applied as its matching ids, a common one as the containment: the same tickets either
    // way, and only this company's (another company's ticket with the same value never joins the ids).
    const other = await t.company('TickOther');
    await field(other.admin, {
      entity: 'ticket',
      key: 'channel',
      label: 'Canal',
      type: 'list',
      options: ['loja'],
    });
    await t.as(other.admin).post('/whatsapp', { name: 'Sim', channel: 'simulator' });
    const oc = await contact(other.admin);
    await t
      .as(other.admin)
      .post('/tickets', { contactId: oc.id, status: 'open', customFields: { channel: 'loja' } });
    const matching = async (rare: number) => {
      const where = await customFieldFilterWhere(
        db,
        c.id,
        'ticket',
        tickets.customFields,
        { channel: 'loja' },
        rare,
      );
      const query = db
        .select({ id: tickets.id })
        .from(tickets)
        .where(and(eq(tickets.companyId, c.id), where));
      return { sql: query.toSQL().sql, ids: (await query).map((r) => r.id) };
    };
    const asIds = await matching(2000);
    const asContainment = await matching(0);
    expect(asIds.ids).toEqual([tb.id]);
    expect(asContainment.ids).toEqual([tb.id]);
    expect(asIds.sql).not.toContain('@>');
    expect(asContainment.sql).toContain('@>');
    // A contact field is not a ticket field.
    await expectError(
      await t.as(c.admin).get(`/tickets?customFields=${encodeURIComponent('{"plan":"gold"}')}`),
      400,
      'ERR_VALIDATION',
    );
  });
});

describe('tenancy', () => {
  test("a second company can't read, change, delete or use another company's fields", async () => {
    const a = await company('TenA');
    const b = await t.company('TenB');
    const defs = await (await t.as(a.admin).get('/custom-fields')).json();
    const plan = defs.find((d: { key: string }) => d.key === 'plan');
    expect(await (await t.as(b.admin).get('/custom-fields')).json()).toEqual([]);
    await expectError(await t.as(b.admin).get(`/custom-fields/${plan.id}`), 404, 'ERR_NOT_FOUND');
    await expectError(
      await t.as(b.admin).put(`/custom-fields/${plan.id}`, { label: 'Mine' }),
      404,
      'ERR_NOT_FOUND',
    );
    await expectError(await t.as(b.admin).del(`/custom-fields/${plan.id}`), 404, 'ERR_NOT_FOUND');
    const [still] = await db
      .select()
      .from(customFieldDefinitions)
      .where(eq(customFieldDefinitions.id, plan.id));
    expect(still!.label).toBe('Plano');
    // B's contacts know none of A's keys, on writes and filters.
    await expectError(
      await t
        .as(b.admin)
        .post('/contacts', { name: 'B Contact', number: phone(), customFields: { plan: 'gold' } }),
      400,
      'ERR_VALIDATION',
    );
    await expectError(
      await t.as(b.admin).get(`/contacts?customFields=${encodeURIComponent('{"plan":"gold"}')}`),
      400,
      'ERR_VALIDATION',
    );
    // The same key defined by B is B's own: A's contacts never show in B's filter.
    await field(b.admin, { key: 'plan', label: 'Plano', type: 'list', options: ['gold'] });
    await contact(a.admin, { customFields: { plan: 'gold' } });
    const mine = await contact(b.admin, { customFields: { plan: 'gold' } });
    const listed = await (
      await t.as(b.admin).get(`/contacts?customFields=${encodeURIComponent('{"plan":"gold"}')}`)
    ).json();
    expect(listed.contacts.map((x: { id: number }) => x.id)).toEqual([mine.id]);
  });
});

describe('extraInfo and CSV', () => {
  test('the migration turns extraInfo names into text fields and copies values (again: no change)', async () => {
    const c = await t.company('Mig');
    const ct = await contact(c.admin, {
      extraInfo: [
        { name: 'CPF', value: '123' },
        { name: 'Código Cliente', value: 'A-1' },
        { name: 'Vazio', value: '' },
      ],
    });
    const other = await contact(c.admin, { extraInfo: [{ name: 'cpf', value: '999' }] });
    const d = await t.company('MigOther');
    await contact(d.admin, { extraInfo: [{ name: 'Outra', value: 'x' }] });
    await db.execute(sql`select custom_fields_from_extra_info()`);
    await db.execute(sql`select custom_fields_from_extra_info()`);
    const defs = await (await t.as(c.admin).get('/custom-fields')).json();
    expect(
      defs.map((f: { key: string; label: string; type: string }) => [f.key, f.label, f.type]).sort(),
    ).toEqual([
      ['codigo_cliente', 'Código Cliente', 'text'],
      ['cpf', 'CPF', 'text'],
      ['vazio', 'Vazio', 'text'],
    ]);
    expect(await storedOf(ct.id)).toEqual({ cpf: '123', codigo_cliente: 'A-1' });
    expect(await storedOf(other.id)).toEqual({ cpf: '999' });
    expect(
      (await (await t.as(d.admin).get('/custom-fields')).json()).map((f: { key: string }) => f.key),
    ).toEqual(['outra']);
    // The old list is still there and still answers.
    expect((await (await t.as(c.admin).get(`/contacts/${ct.id}`)).json()).extraInfo).toHaveLength(3);
    const rows = await db
      .select()
      .from(contactCustomFields)
      .where(and(eq(contactCustomFields.contactId, ct.id)));
    expect(rows).toHaveLength(3);
  });

  test('the contacts upload reads custom field columns by label or key; a bad cell is the row error', async () => {
    const c = await company('Csv');
    const n1 = phone();
    const n2 = phone();
    const res = await t.as(c.admin).post('/contacts/upload', [
      { Nome: 'Row One', Telefone: n1, Plano: 'gold', VIP: 'sim', score: '3', Aniversário: '2000-01-01' },
      { Nome: 'Row Two', Telefone: n2, Plano: 'bronze' },
    ]);
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.newContacts).toHaveLength(1);
    expect(body.errorBag).toEqual([
      expect.objectContaining({ row: 2, error: expect.objectContaining({ field: 'customFields.plan' }) }),
    ]);
    const created = await waitFor(
      async () => (await db.select().from(contacts).where(eq(contacts.number, n1)))[0],
    );
    expect(created.customFields).toEqual({ plan: 'gold', vip: true, score: 3, birthday: '2000-01-01' });
  });
});

describe('message variables', () => {
  test('{{contact.custom.<key>}} and {{ticket.custom.<key>}} are filled in every text sent on a ticket', async () => {
    expect(
      fillCustomFieldVariables(
        '{{contact.custom.plan}}/{{ ticket.custom.Order_No }}/{{contact.custom.none}}/{{name}}',
        {
          contact: { plan: 'gold' },
          ticket: { order_no: 7 },
        },
      ),
    ).toBe('gold/7//{{name}}');
    const c = await company('Vars');
    await field(c.admin, { entity: 'ticket', key: 'order_no', label: 'Pedido', type: 'number' });
    await t.as(c.admin).post('/whatsapp', { name: 'Sim', channel: 'simulator' });
    const ct = await contact(c.admin, { customFields: { plan: 'gold', vip: true } });
    const tk = await (
      await t
        .as(c.admin)
        .post('/tickets', { contactId: ct.id, status: 'open', customFields: { order_no: 42 } })
    ).json();
    const res = await t.as(c.admin).post(`/messages/${tk.id}`, {
      body: 'Plano {{contact.custom.plan}}, VIP {{contact.custom.vip}}, pedido {{ticket.custom.order_no}}',
    });
    expect(res.status, await res.clone().text()).toBeLessThan(300);
    const sent = await waitFor(async () => {
      const rows = await db
        .select({ body: messages.body })
        .from(messages)
        .where(eq(messages.ticketId, tk.id));
      return rows.find((r) => r.body.includes('Plano'));
    });
    expect(sent.body).toContain('Plano gold, VIP true, pedido 42');
  });
});
