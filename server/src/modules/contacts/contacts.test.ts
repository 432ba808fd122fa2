import { describe, expect, test } from 'vitest';
import { and, eq, sql } from 'drizzle-orm';
import { contacts } from '../../db/schema/index.js';
import type { Channel } from '../../messaging/channel.js';
import {
  collectEvents,
  nextEvent,
  testApp,
  unique,
  type Session,
  waitFor,
  expectError,
} from '../../../test/helpers.js';
import type { ContactEvent } from '@recado/contracts';
import { parseUploadRow } from './contact-upload.js';

const t = await testApp();
const db = t.database.db;

type Company = Awaited<ReturnType<typeof t.company>>;

let phoneSeq = 0;
/** A fresh Brazilian mobile, as people type it: "(21) 9XXXX-XXXX". */
const phone = () => {
  const n = String(10_000_000 + (((Date.now() % 1_000_000) * 37 + phoneSeq++ * 7919) % 89_999_999)).padStart(
    8,
    '0',
  );
  return `(21) 9${n.slice(0, 4)}-${n.slice(4)}`;
};
const canonical = (typed: string) => `55${typed.replace(/\D/g, '')}`;

const newContact = (over: Record<string, unknown> = {}) => ({
  name: unique('Contact '),
  number: phone(),
  email: '',
  ...over,
});

const createContact = async (s: Session, over: Record<string, unknown> = {}) => {
  const res = await t.as(s).post('/contacts', newContact(over));
  expect(res.status, await res.clone().text()).toBe(201);
  return res.json();
};

const simulatorConnection = async (admin: Session, name = unique('Sim')) => {
  const res = await t.as(admin).post('/whatsapp', { name, channel: 'simulator' });
  expect(res.status).toBe(201);
  const w = (await res.json()) as { id: number; status: string; isDefault: boolean };
  expect(w).toMatchObject({ status: 'CONNECTED', isDefault: true });
  return w;
};
/** The running channel of a connection, to stand in for WhatsApp's answers. */
const channelOf = (whatsappId: number) => {
  const ch = t.app.sessions.get(whatsappId);
  if (!ch) throw new Error('channel not running');
  return ch as Channel & Record<string, unknown>;
};

describe('creating and reading', () => {
  test('normalises the number, keeps extra info, reads it back', async () => {
    const c = await t.company('CtCreate');
    const body = await createContact(c.admin, {
      name: '  Maria Souza ',
      number: '(11) 98888-7777',
      email: ' Maria@Example.COM ',
      extraInfo: [
        { name: 'CPF', value: '123' },
        { name: 'Cidade', value: 'São Paulo' },
      ],
    });
    expect(body).toMatchObject({
      name: 'Maria Souza',
      number: '5511988887777',
      email: 'maria@example.com',
      profilePicUrl: '',
      isGroup: false,
    });
    expect(body.extraInfo.map((f: { name: string; value: string }) => [f.name, f.value])).toEqual([
      ['CPF', '123'],
      ['Cidade', 'São Paulo'],
    ]);
    const read = await (await t.as(c.admin).get(`/contacts/${body.id}`)).json();
    expect(read).toEqual(body);
    expect(read.extraInfo[0]).toEqual({ id: expect.any(Number), name: 'CPF', value: '123' });
    // A plain user reads and creates too.
    const u = await t.user(c.admin);
    expect((await t.as(u).get(`/contacts/${body.id}`)).status).toBe(200);
    await createContact(u);
  });

  test('the ninth digit and the 55 prefix make one contact, whatever the spelling', async () => {
    const c = await t.company('CtNinth');
    const first = await createContact(c.admin, { number: '11 98888-7777' });
    expect(first.number).toBe('5511988887777');
    for (const number of ['551188887777', '+55 (11) 98888-7777', '5511988887777', '(11) 8888-7777'])
      await expectError(
        await t.as(c.admin).post('/contacts', newContact({ number })),
        409,
        'ERR_DUPLICATED_CONTACT',
      );
    // A landline stays as it is and is another number.
    const landline = await createContact(c.admin, { number: '(11) 3333-4444' });
    expect(landline.number).toBe('551133334444');
    // Another company may keep the same person.
    const other = await t.company('CtNinthOther');
    expect((await createContact(other.admin, { number: '551188887777' })).number).toBe('5511988887777');
    const rows = await db
      .select()
      .from(contacts)
      .where(and(eq(contacts.companyId, c.id), eq(contacts.number, '5511988887777')));
    expect(rows).toHaveLength(1);
  });

  test('two concurrent creations of one number make one contact', async () => {
    const c = await t.company('CtRace');
    const number = phone();
    const results = await Promise.all(
      Array.from({ length: 4 }, () => t.as(c.admin).post('/contacts', newContact({ number }))),
    );
    expect(results.map((r) => r.status).sort()).toEqual([201, 409, 409, 409]);
    const rows = await db
      .select()
      .from(contacts)
      .where(and(eq(contacts.companyId, c.id), eq(contacts.number, canonical(number))));
    expect(rows).toHaveLength(1);
  });

  test.each([
    ['missing name', { name: undefined }],
    ['short name', { name: 'A' }],
    ['blank name', { name: '   ' }],
    ['oversize name', { name: 'x'.repeat(51) }],
    ['numeric name', { name: 12345 }],
    ['missing number', { number: undefined }],
    ['7-digit number', { number: '9888777' }],
    ['7 digits with punctuation', { number: '(98) 887-77' }],
    ['letters in the number', { number: '11 9888A-7777' }],
    ['numeric number', { number: 11988887777 }],
    ['oversize number', { number: '1'.repeat(51) }],
    ['bad e-mail', { email: 'not-an-email' }],
    ['oversize e-mail', { email: `${'x'.repeat(120)}@a.test` }],
    ['e-mail of wrong type', { email: 42 }],
    ['extraInfo not an array', { extraInfo: 'x' }],
    ['extraInfo without a name', { extraInfo: [{ value: 'v' }] }],
    ['oversize extraInfo value', { extraInfo: [{ name: 'n', value: 'v'.repeat(1001) }] }],
    [
      'too many extraInfo',
      { extraInfo: Array.from({ length: 51 }, (_, i) => ({ name: `f${i}`, value: '' })) },
    ],
  ])('refuses %s with 400 ERR_VALIDATION', async (_, over) => {
    const c = await t.company('CtInvalid');
    await expectError(await t.as(c.admin).post('/contacts', newContact(over)), 400, 'ERR_VALIDATION');
    const [n] = await db
      .select({ n: sql<number>`count(*)::int` })
      .from(contacts)
      .where(eq(contacts.companyId, c.id));
    expect(n!.n).toBe(0);
  });

  test('refuses a body that is not an object, or not JSON', async () => {
    const c = await t.company('CtNotJson');
    for (const body of [[], 'null', '"x"', '{bad'])
      await expectError(
        await t.request('POST', '/contacts', { token: c.admin.token, body }),
        400,
        'ERR_VALIDATION',
      );
  });

  test.each([
    ['/contacts/abc', 400, 'ERR_VALIDATION'],
    ['/contacts/0', 400, 'ERR_VALIDATION'],
    ['/contacts/-1', 400, 'ERR_VALIDATION'],
    ['/contacts/1.5', 400, 'ERR_VALIDATION'],
    ['/contacts/99999999999', 400, 'ERR_VALIDATION'],
    ['/contacts/2147483647', 404, 'ERR_NO_CONTACT_FOUND'],
    ['/contacts?pageNumber=0', 400, 'ERR_VALIDATION'],
    ['/contacts?pageNumber=abc', 400, 'ERR_VALIDATION'],
    [`/contacts?searchParam=${'x'.repeat(101)}`, 400, 'ERR_VALIDATION'],
    ['/contacts?date=yesterday', 400, 'ERR_VALIDATION'],
    ['/contacts?dateStart=2024-13-01', 400, 'ERR_VALIDATION'],
    ['/contacts?dateEnd=2024-02-30', 400, 'ERR_VALIDATION'],
  ])('GET %s answers %i %s', async (path, status, code) => {
    const c = await t.company('CtBadIds');
    await expectError(await t.as(c.admin).get(path), status, code);
  });

  test('signed-out callers get 401', async () => {
    expect((await t.request('GET', '/contacts')).status).toBe(401);
    expect((await t.request('POST', '/contacts/upload', { body: [] })).status).toBe(401);
  });
});

describe('listing and searching', () => {
  test('pages by 20 ordered by name, with hasMore and count; /contacts/list has everything', async () => {
    const c = await t.company('CtMany');
    await Promise.all(
      Array.from({ length: 24 }, (_, i) =>
        createContact(c.admin, { name: `Person ${String(i).padStart(2, '0')}` }),
      ),
    );
    const p1 = await (await t.as(c.admin).get('/contacts?pageNumber=1')).json();
    expect(p1.contacts).toHaveLength(20);
    expect(p1).toMatchObject({ hasMore: true, count: 24 });
    expect(p1.contacts[0].name).toBe('Person 00');
    expect(p1.contacts[0].extraInfo).toBeUndefined();
    const p2 = await (await t.as(c.admin).get('/contacts?pageNumber=2')).json();
    expect(p2.contacts.map((x: { name: string }) => x.name)).toEqual([
      'Person 20',
      'Person 21',
      'Person 22',
      'Person 23',
    ]);
    expect(p2).toMatchObject({ hasMore: false, count: 24 });
    const all = await (await t.as(c.admin).get('/contacts/list')).json();
    expect(all).toHaveLength(24);
    expect(Object.keys(all[0]).sort()).toEqual(['id', 'name', 'number']);
  });

  test('search starts at 3 characters, over name and number (typed with punctuation)', async () => {
    const c = await t.company('CtSearch');
    const ana = await createContact(c.admin, { name: 'Ana Paula', number: '(31) 97777-1234' });
    const bruno = await createContact(c.admin, { name: 'Bruno 100%', number: '(31) 96666-4321' });
    await createContact(c.admin, { name: 'Carla', number: '(41) 95555-0000' });
    const search = async (q: string) =>
      (await (await t.as(c.admin).get(`/contacts?searchParam=${encodeURIComponent(q)}`)).json()) as {
        contacts: { id: number }[];
        count: number;
      };
    expect((await search('an')).count).toBe(3); // fewer than 3 characters: no filter
    expect((await search('ANA')).contacts.map((x) => x.id)).toEqual([ana.id]);
    expect((await search('paul')).contacts.map((x) => x.id)).toEqual([ana.id]);
    expect((await search('97777')).contacts.map((x) => x.id)).toEqual([ana.id]);
    expect((await search('(31) 9666')).contacts.map((x) => x.id)).toEqual([bruno.id]);
    expect((await search('319')).count).toBe(2);
    // LIKE wildcards are literal.
    expect((await search('o 100%')).contacts.map((x) => x.id)).toEqual([bruno.id]);
    expect((await search('%%%')).count).toBe(0);
    expect((await search('___')).count).toBe(0);
  });

  test('date, dateStart and dateEnd filter on the creation day', async () => {
    const c = await t.company('CtDates');
    const old = await createContact(c.admin, { name: 'Old One' });
    const recent = await createContact(c.admin, { name: 'Recent One' });
    // 12:00 in São Paulo on 2024-03-10 (the company's default time zone).
    await db
      .update(contacts)
      .set({ createdAt: new Date('2024-03-10T15:00:00Z') })
      .where(eq(contacts.id, old.id));
    const ids = async (q: string) =>
      ((await (await t.as(c.admin).get(`/contacts?${q}`)).json()).contacts as { id: number }[]).map(
        (x) => x.id,
      );
    expect(await ids('date=2024-03-10')).toEqual([old.id]);
    expect(await ids('date=2024-03-11')).toEqual([]);
    expect(await ids('dateStart=2024-03-01&dateEnd=2024-03-10')).toEqual([old.id]);
    expect(await ids('dateStart=2024-03-11')).toEqual([recent.id]);
    expect(await ids('dateEnd=2024-03-09')).toEqual([]);
    // 01:30 UTC on the 11th is still the 10th in São Paulo.
    await db
      .update(contacts)
      .set({ createdAt: new Date('2024-03-11T01:30:00Z') })
      .where(eq(contacts.id, old.id));
    expect(await ids('date=2024-03-10')).toEqual([old.id]);
  });
});

describe('updating', () => {
  test('changes what is sent, replaces extra info, and keeps the number rules', async () => {
    const c = await t.company('CtUpdate');
    const taken = await createContact(c.admin, { number: '(11) 97777-0001' });
    const ct = await createContact(c.admin, {
      number: '(11) 97777-0002',
      email: 'a@b.test',
      extraInfo: [{ name: 'Old', value: '1' }],
    });
    const res = await t.as(c.admin).put(`/contacts/${ct.id}`, {
      name: 'Renamed',
      extraInfo: [
        { name: 'New', value: '2' },
        { id: ct.extraInfo[0].id, name: 'Kept', value: '3' },
      ],
    });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body).toMatchObject({ name: 'Renamed', email: 'a@b.test', number: '5511977770002' });
    expect(body.extraInfo.map((f: { name: string }) => f.name)).toEqual(['New', 'Kept']);
    // Without extraInfo the list stays; an empty list clears it.
    expect(
      (await (await t.as(c.admin).put(`/contacts/${ct.id}`, { email: '' })).json()).extraInfo,
    ).toHaveLength(2);
    expect(
      (await (await t.as(c.admin).put(`/contacts/${ct.id}`, { extraInfo: [] })).json()).extraInfo,
    ).toEqual([]);
    // The same number spelled another way is no change; another contact's number is a duplicate.
    expect((await t.as(c.admin).put(`/contacts/${ct.id}`, { number: '551177770002' })).status).toBe(200);
    await expectError(
      await t.as(c.admin).put(`/contacts/${ct.id}`, { number: '11 7777-0001' }),
      409,
      'ERR_DUPLICATED_CONTACT',
    );
    expect((await (await t.as(c.admin).get(`/contacts/${taken.id}`)).json()).number).toBe('5511977770001');
    const moved = await (await t.as(c.admin).put(`/contacts/${ct.id}`, { number: '(11) 97777-0003' })).json();
    expect(moved.number).toBe('5511977770003');
    // A plain user may edit.
    const u = await t.user(c.admin);
    expect((await t.as(u).put(`/contacts/${ct.id}`, { name: 'By User' })).status).toBe(200);
  });

  test('validates the body and the id', async () => {
    const c = await t.company('CtPutValid');
    const ct = await createContact(c.admin);
    for (const body of [
      { name: 'x' },
      { email: 'bad' },
      { number: '1234567' },
      { number: 123 },
      { extraInfo: {} },
      { name: 'y'.repeat(51) },
    ])
      await expectError(await t.as(c.admin).put(`/contacts/${ct.id}`, body), 400, 'ERR_VALIDATION');
    await expectError(await t.as(c.admin).put('/contacts/abc', { name: 'Okay' }), 400, 'ERR_VALIDATION');
    await expectError(
      await t.as(c.admin).put('/contacts/2147483647', { name: 'Okay' }),
      404,
      'ERR_NO_CONTACT_FOUND',
    );
    expect((await (await t.as(c.admin).get(`/contacts/${ct.id}`)).json()).name).toBe(ct.name);
  });
});

describe('deleting', () => {
  test('admins delete; plain users and supervisors get ERR_NO_PERMISSION', async () => {
    const c = await t.company('CtDelete');
    const ct = await createContact(c.admin);
    for (const profile of ['user', 'supervisor'] as const) {
      const u = await t.user(c.admin, profile);
      await expectError(await t.as(u).del(`/contacts/${ct.id}`), 403, 'ERR_NO_PERMISSION');
    }
    expect((await t.as(c.admin).get(`/contacts/${ct.id}`)).status).toBe(200);
    const second = await t.user(c.admin, 'admin');
    expect((await t.as(second).del(`/contacts/${ct.id}`)).status).toBe(200);
    await expectError(await t.as(c.admin).get(`/contacts/${ct.id}`), 404, 'ERR_NO_CONTACT_FOUND');
    await expectError(await t.as(c.admin).del(`/contacts/${ct.id}`), 404, 'ERR_NO_CONTACT_FOUND');
    await expectError(await t.as(c.admin).del('/contacts/abc'), 400, 'ERR_VALIDATION');
    // The number is free again.
    await createContact(c.admin, { number: ct.number });
  });
});

describe('the WhatsApp check and profile pictures', () => {
  test('without a running default connection the number is not checked', async () => {
    const c = await t.company('CtNoConn');
    // 8 digits: a valid contact number; no connection, nobody to ask.
    expect((await createContact(c.admin, { number: '12345678' })).number).toBe('12345678');
    // The import needs the connection.
    await expectError(await t.as(c.admin).post('/contacts/import'), 404, 'ERR_NO_DEF_WAPP_FOUND');
  });

  test('a running default connection refuses numbers WhatsApp does not know', async () => {
    const c = await t.company('CtCheck');
    const w = await simulatorConnection(c.admin);
    // The simulator knows 10 to 15 digit numbers only.
    await expectError(
      await t.as(c.admin).post('/contacts', newContact({ number: '12345678' })),
      400,
      'ERR_WAPP_INVALID_CONTACT',
    );
    const ct = await createContact(c.admin);
    await expectError(
      await t.as(c.admin).put(`/contacts/${ct.id}`, { number: '123456789' }),
      400,
      'ERR_WAPP_INVALID_CONTACT',
    );
    // A channel that fails to answer does not block the contact.
    const ch = channelOf(w.id);
    const original = ch.checkNumber;
    ch.checkNumber = async () => {
      throw new Error('socket closed');
    };
    try {
      expect((await createContact(c.admin, { number: '87654321' })).number).toBe('87654321');
    } finally {
      ch.checkNumber = original;
    }
    // A disconnected default connection is not asked either.
    expect((await t.as(c.admin).del(`/whatsappsession/${w.id}`)).status).toBe(200);
    expect((await createContact(c.admin, { number: '11223344' })).number).toBe('11223344');
  });

  test('the picture is fetched in the background on create, cached, and refreshed after 24 h', async () => {
    const c = await t.company('CtPicture');
    const w = await simulatorConnection(c.admin);
    const ch = channelOf(w.id);
    const asked: string[] = [];
    let url = 'https://pps.whatsapp.test/v1.jpg';
    ch.profilePicture = async (to: string) => {
      asked.push(to);
      return url;
    };
    const socket = await t.socket(c.admin.token);
    const event = `company-${c.id}-contact`;
    const seen = collectEvents(socket, event, 600);
    const ct = await createContact(c.admin, { number: '(11) 96543-2100' });
    // The answer does not wait for the picture.
    expect(ct.profilePicUrl).toBe('');
    const events = (await seen) as { action: string; contact: { id: number; profilePicUrl: string } }[];
    expect(events.map((e) => [e.action, e.contact.profilePicUrl])).toEqual([
      ['create', ''],
      ['update', 'https://pps.whatsapp.test/v1.jpg'],
    ]);
    expect(asked).toEqual(['5511965432100']);
    const read = await (await t.as(c.admin).get(`/contacts/${ct.id}`)).json();
    expect(read.profilePicUrl).toBe('https://pps.whatsapp.test/v1.jpg');

    // Fresh: reading again does not ask WhatsApp.
    await t.as(c.admin).get(`/contacts/${ct.id}`);
    await t.as(c.admin).get('/contacts');
    await t.app.services.contacts.picturesSettled();
    expect(asked).toHaveLength(1);

    // Older than 24 h: the read answers the cached picture at once and fetches the new one behind it.
    await db
      .update(contacts)
      .set({ profilePicFetchedAt: new Date(Date.now() - 25 * 3600_000) })
      .where(eq(contacts.id, ct.id));
    url = 'https://pps.whatsapp.test/v2.jpg';
    const changed = nextEvent<{ action: string; contact: { profilePicUrl: string } }>(socket, event);
    const stale = await (await t.as(c.admin).get('/contacts')).json();
    expect(stale.contacts[0].profilePicUrl).toBe('https://pps.whatsapp.test/v1.jpg');
    expect((await changed).contact.profilePicUrl).toBe('https://pps.whatsapp.test/v2.jpg');
    expect(asked).toHaveLength(2);

    // A channel that hangs never holds the request.
    ch.profilePicture = () => new Promise<string | null>(() => undefined);
    const started = Date.now();
    await createContact(c.admin);
    expect(Date.now() - started).toBeLessThan(1500);
  });
});

describe('import from the connection address book', () => {
  test('creates the simulator customers that are missing, once', async () => {
    const c = await t.company('CtImport');
    const w = await simulatorConnection(c.admin);
    const customers = [
      { from: '(11) 98111-0001', name: 'Cliente Um' },
      { from: '5511981110002', name: 'Cliente Dois' },
      { from: '551181110003', name: 'Cliente Três' }, // without the ninth digit
    ];
    for (const [i, cu] of customers.entries()) {
      const res = await t.as(c.admin).post(`/simulator/${w.id}/inbound`, { ...cu, body: `Oi ${i}` });
      expect(res.status).toBe(202);
    }
    // The inbound pipeline makes their contacts; remove them so the address book has something to bring.
    const made = await waitFor(async () => {
      const page = await (await t.as(c.admin).get('/contacts')).json();
      return page.contacts.length === 3 ? (page.contacts as { id: number; number: string }[]) : null;
    });
    expect(made.map((x) => x.number).sort()).toEqual(['5511981110001', '5511981110002', '5511981110003']);
    for (const x of made.filter((m) => m.number !== '5511981110001'))
      expect((await t.as(c.admin).del(`/contacts/${x.id}`)).status).toBe(200);

    const socket = await t.socket(c.admin.token);
    const seen = collectEvents(socket, `company-${c.id}-contact`, 500);
    const res = await t.as(c.admin).post('/contacts/import');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ imported: 2, skipped: 1 });
    const created = (await seen) as { action: string; contact: { name: string } }[];
    expect(created.map((e) => e.action)).toEqual(['create', 'create']);
    const list = await (await t.as(c.admin).get('/contacts/list')).json();
    expect(list.map((x: { name: string; number: string }) => [x.name, x.number])).toEqual([
      ['Cliente Dois', '5511981110002'],
      ['Cliente Três', '5511981110003'],
      ['Cliente Um', '5511981110001'],
    ]);
    // Again: nothing new.
    expect(await (await t.as(c.admin).post('/contacts/import')).json()).toEqual({ imported: 0, skipped: 3 });
    // A disconnected default connection cannot be read.
    await t.as(c.admin).del(`/whatsappsession/${w.id}`);
    await expectError(await t.as(c.admin).post('/contacts/import'), 400, 'ERR_WAPP_NOT_INITIALIZED');
  });
});

describe('spreadsheet upload', () => {
  test('reads English and Portuguese columns, reports every bad row, never aborts the others', async () => {
    const c = await t.company('CtUpload');
    const existing = await createContact(c.admin, { number: '(11) 98555-0009' });
    const rows = [
      { name: 'Alice', number: '11 98555-0001', email: 'alice@a.test' },
      { Nome: 'Bruno', Número: 5511985550002, 'E-mail': '' },
      { nome: 'Carla', telefone: '(11) 98555-0003' },
      { nome: 'Curta', numero: '9855500' }, // 7 digits
      { nome: 'D', numero: '(11) 98555-0004' }, // short name
      { nome: 'Eva', numero: '(11) 98555-0005', email: 'not-mail' },
      { nome: 'Alice again', numero: '551185550001' }, // the same as row 1, without the ninth digit
      { nome: 'Stored', numero: '551185550009' }, // already a contact
      null,
      'text',
      { nome: 'Fábio', numero: { text: '11' } },
      { nome: 'Gil', NUMERO: ' (11) 98555-0006 ', extra: 'ignored' },
    ];
    const res = await t.as(c.admin).post('/contacts/upload', rows);
    expect(res.status).toBe(200);
    const report = await res.json();
    expect(report.newContacts.map((n: { contactName: string }) => n.contactName)).toEqual([
      'Alice',
      'Bruno',
      'Carla',
      'Gil',
    ]);
    expect(
      report.errorBag.map((e: { row: number; contactName: string; error: { code: string } }) => [
        e.row,
        e.contactName,
        e.error.code,
      ]),
    ).toEqual([
      [4, 'Curta', 'ERR_VALIDATION'],
      [5, 'D', 'ERR_VALIDATION'],
      [6, 'Eva', 'ERR_VALIDATION'],
      [7, 'Alice again', 'ERR_DUPLICATED_CONTACT'],
      [8, 'Stored', 'ERR_DUPLICATED_CONTACT'],
      [9, '', 'ERR_VALIDATION'],
      [10, '', 'ERR_VALIDATION'],
      [11, 'Fábio', 'ERR_VALIDATION'],
    ]);
    expect(report.errorBag[0].error.message).toMatch(/number/);
    expect(report.errorBag[2].error.field).toBe('email');
    const list = await (await t.as(c.admin).get('/contacts/list')).json();
    expect(list.map((x: { number: string }) => x.number).sort()).toEqual(
      ['5511985550001', '5511985550002', '5511985550003', '5511985550006', existing.number].sort(),
    );
    const bruno = await (await t.as(c.admin).get(`/contacts/${report.newContacts[1].contactId}`)).json();
    expect(bruno).toMatchObject({ name: 'Bruno', number: '5511985550002', email: '' });

    // Sending the same file again adds nothing: every good row is now a duplicate.
    const again = await (await t.as(c.admin).post('/contacts/upload', rows)).json();
    expect(again.newContacts).toEqual([]);
    expect(again.errorBag).toHaveLength(rows.length);
  });

  test('5,000 rows are accepted; 5,001 or a body that is not an array are refused', async () => {
    const c = await t.company('CtUploadBig');
    const rows = Array.from({ length: 5000 }, (_, i) => ({
      nome: `Pessoa ${i}`,
      numero: `+1 555 ${String(1_000_000 + i)}`,
    }));
    const ok = await (await t.as(c.admin).post('/contacts/upload', rows)).json();
    expect(ok.newContacts).toHaveLength(5000);
    expect(ok.errorBag).toEqual([]);
    await expectError(
      await t.as(c.admin).post('/contacts/upload', [...rows, { nome: 'One more', numero: '15550000000' }]),
      400,
      'ERR_VALIDATION',
    );
    for (const body of [{ name: 'x', number: '11988887777' }, 'x', 5])
      await expectError(await t.as(c.admin).post('/contacts/upload', body), 400, 'ERR_VALIDATION');
    const [n] = await db
      .select({ n: sql<number>`count(*)::int` })
      .from(contacts)
      .where(eq(contacts.companyId, c.id));
    expect(n!.n).toBe(5000);
  });

  test('row parsing accepts the common column spellings', () => {
    const ok = parseUploadRow({ ' NOME ': 'Zé Maria', TELEFONE: 11988887777, 'e-mail': 'Z@Z.TEST' });
    expect(ok).toEqual({
      ok: true,
      input: { name: 'Zé Maria', number: '11988887777', email: 'z@z.test', extraInfo: [] },
    });
    const bad = parseUploadRow({ nombre: 'Ana', phone: '1' });
    expect(bad.ok).toBe(false);
  });
});

describe('live events', () => {
  test('create, update and delete reach the company, and only the company', async () => {
    const a = await t.company('CtLiveA');
    const b = await t.company('CtLiveB');
    const u = await t.user(a.admin);
    const adminSocket = await t.socket(a.admin.token);
    const userSocket = await t.socket(u.token);
    const outsider = await t.socket(b.admin.token);
    const event = `company-${a.id}-contact`;
    const leaked = collectEvents(outsider, event, 1500);
    const leakedOwn = collectEvents(outsider, `company-${b.id}-contact`, 1500);

    let seen = Promise.all([
      nextEvent<ContactEvent>(adminSocket, event),
      nextEvent<ContactEvent>(userSocket, event),
    ]);
    const ct = await createContact(u, { extraInfo: [{ name: 'k', value: 'v' }] });
    for (const ev of await seen)
      expect(ev).toMatchObject({ action: 'create', contact: { id: ct.id, extraInfo: [{ name: 'k' }] } });

    seen = Promise.all([
      nextEvent<ContactEvent>(adminSocket, event),
      nextEvent<ContactEvent>(userSocket, event),
    ]);
    await t.as(u).put(`/contacts/${ct.id}`, { name: 'Live Renamed' });
    for (const ev of await seen)
      expect(ev).toMatchObject({ action: 'update', contact: { name: 'Live Renamed' } });

    seen = Promise.all([
      nextEvent<ContactEvent>(adminSocket, event),
      nextEvent<ContactEvent>(userSocket, event),
    ]);
    await t.as(a.admin).del(`/contacts/${ct.id}`);
    for (const ev of await seen) expect(ev).toEqual({ action: 'delete', contactId: ct.id });

    expect(await leaked).toHaveLength(0);
    expect(await leakedOwn).toHaveLength(0);
  });

  test('a refused change emits nothing', async () => {
    const c = await t.company('CtQuiet');
    const ct = await createContact(c.admin);
    const socket = await t.socket(c.admin.token);
    const seen = collectEvents(socket, `company-${c.id}-contact`, 400);
    expect((await t.as(c.admin).post('/contacts', newContact({ number: ct.number }))).status).toBe(409);
    const u = await t.user(c.admin);
    expect((await t.as(u).del(`/contacts/${ct.id}`)).status).toBe(403);
    expect(await seen).toHaveLength(0);
  });
});

describe('another company', () => {
  let a: Company;
  let b: Company;
  test("cannot read, list, search, change, delete or import into the first one's contacts", async () => {
    a = await t.company('CtTenantA');
    b = await t.company('CtTenantB');
    const ct = await createContact(a.admin, { name: 'Secret Person', number: '(61) 99999-1111' });
    await expectError(await t.as(b.admin).get(`/contacts/${ct.id}`), 404, 'ERR_NO_CONTACT_FOUND');
    await expectError(
      await t.as(b.admin).put(`/contacts/${ct.id}`, { name: 'Hacked' }),
      404,
      'ERR_NO_CONTACT_FOUND',
    );
    await expectError(await t.as(b.admin).del(`/contacts/${ct.id}`), 404, 'ERR_NO_CONTACT_FOUND');
    const page = await (await t.as(b.admin).get('/contacts?searchParam=secret')).json();
    expect(page).toEqual({ contacts: [], hasMore: false, count: 0 });
    expect(await (await t.as(b.admin).get('/contacts/list')).json()).toEqual([]);
    // The same number in B is B's own contact; A's is untouched.
    const upload = await (
      await t.as(b.admin).post('/contacts/upload', [{ nome: 'Mine', numero: '61999991111' }])
    ).json();
    expect(upload.newContacts).toHaveLength(1);
    const still = await (await t.as(a.admin).get(`/contacts/${ct.id}`)).json();
    expect(still).toMatchObject({ name: 'Secret Person', number: '5561999991111' });
    expect(
      (await (await t.as(a.admin).get('/contacts/list')).json()).map((x: { id: number }) => x.id),
    ).toEqual([ct.id]);
  });
});
