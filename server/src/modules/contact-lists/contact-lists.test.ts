import { describe, expect, test } from 'vitest';
import ExcelJS from 'exceljs';
import * as XLSX from '@e965/xlsx';
import { contactListItemsOf, companyEvent } from '@recado/contracts';
import {
  collectEvents,
  nextEvent,
  testApp,
  unique,
  type Session,
  waitFor,
  expectError,
} from '../../../test/helpers.js';

const t = await testApp();
const shared = await t.company('Shared');

const createList = async (admin: Session, name = unique('Lista ')) => {
  const res = await t.as(admin).post('/contact-lists', { name });
  expect(res.status, await res.clone().text()).toBe(201);
  return res.json();
};

const createItem = async (admin: Session, contactListId: number, over: Record<string, unknown> = {}) => {
  const res = await t
    .as(admin)
    .post('/contact-list-items', { name: unique('Pessoa '), number: '11988887777', contactListId, ...over });
  expect(res.status, await res.clone().text()).toBe(201);
  return res.json();
};

/** An .xlsx built with the same library the server reads it with. */
async function workbook(rows: (string | number | null)[][]): Promise<Buffer> {
  const wb = new ExcelJS.Workbook();
  const sheet = wb.addWorksheet('Contatos');
  for (const r of rows) sheet.addRow(r);
  return Buffer.from(await wb.xlsx.writeBuffer());
}

const upload = (admin: Session, listId: number, data: Buffer | string, filename = 'lista.xlsx') => {
  const form = new FormData();
  form.append('file', new Blob([data]), filename);
  return fetch(`${t.url}/api/contact-lists/${listId}/upload`, {
    method: 'POST',
    headers: { authorization: `Bearer ${admin.token}` },
    body: form,
  });
};

describe('contact lists', () => {
  test('create, read, rename, list with search and paging, delete', async () => {
    const c = await t.company('Lists');
    const a = await createList(c.admin, 'Clientes VIP');
    expect(a).toMatchObject({ name: 'Clientes VIP', contactsCount: 0 });
    expect(await (await t.as(c.admin).get(`/contact-lists/${a.id}`)).json()).toEqual(a);
    const renamed = await (
      await t.as(c.admin).put(`/contact-lists/${a.id}`, { name: 'Clientes Ouro' })
    ).json();
    expect(renamed).toMatchObject({ id: a.id, name: 'Clientes Ouro' });
    for (let i = 0; i < 21; i++) await createList(c.admin, `Lote ${String(i).padStart(2, '0')}`);
    const p1 = await (await t.as(c.admin).get('/contact-lists?searchParam=LOTE&pageNumber=1')).json();
    expect(p1.records).toHaveLength(20);
    expect(p1.hasMore).toBe(true);
    expect(p1.records[0].name).toBe('Lote 00');
    const p2 = await (await t.as(c.admin).get('/contact-lists?searchParam=lote&pageNumber=2')).json();
    expect(p2).toMatchObject({ hasMore: false, records: [{ name: 'Lote 20' }] });
    const ouro = await (await t.as(c.admin).get('/contact-lists?searchParam=ouro')).json();
    expect(ouro.records.map((r: { id: number }) => r.id)).toEqual([a.id]);
    const all = await (await t.as(c.admin).get('/contact-lists/list')).json();
    expect(all).toHaveLength(22);
    expect((await t.as(c.admin).del(`/contact-lists/${a.id}`)).status).toBe(200);
    await expectError(await t.as(c.admin).get(`/contact-lists/${a.id}`), 404, 'ERR_NO_CONTACT_LIST_FOUND');
  });

  test('bad input is refused with ERR_VALIDATION, never 500', async () => {
    const s = shared.admin;
    await expectError(await t.as(s).post('/contact-lists', { name: 'a' }), 400, 'ERR_VALIDATION');
    await expectError(await t.as(s).post('/contact-lists', { name: 'x'.repeat(51) }), 400, 'ERR_VALIDATION');
    await expectError(await t.as(s).post('/contact-lists', {}), 400, 'ERR_VALIDATION');
    await expectError(await t.as(s).get('/contact-lists/abc'), 400, 'ERR_VALIDATION');
    await expectError(await t.as(s).get('/contact-lists/99999999999'), 400, 'ERR_VALIDATION');
    await expectError(await t.as(s).get('/contact-lists?pageNumber=0'), 400, 'ERR_VALIDATION');
    await expectError(await t.as(s).get('/contact-list-items'), 400, 'ERR_VALIDATION');
    const list = await createList(s);
    const item = (o: Record<string, unknown>) =>
      t.as(s).post('/contact-list-items', {
        name: 'Ana Lima',
        number: '11988887777',
        contactListId: list.id,
        ...o,
      });
    await expectError(await item({ name: 'A' }), 400, 'ERR_VALIDATION');
    await expectError(await item({ number: '1234567' }), 400, 'ERR_VALIDATION');
    await expectError(await item({ number: 'abc12345678' }), 400, 'ERR_VALIDATION');
    await expectError(await item({ email: 'not-an-email' }), 400, 'ERR_VALIDATION');
    await expectError(await item({ contactListId: 0 }), 400, 'ERR_VALIDATION');
    await expectError(await item({ contactListId: 2_000_000_000 }), 404, 'ERR_NO_CONTACT_LIST_FOUND');
    await expectError(await t.as(s).put('/contact-list-items/1', { email: 'x' }), 400, 'ERR_VALIDATION');
    await expectError(
      await t.as(s).del('/contact-list-items/2000000000'),
      404,
      'ERR_NO_CONTACT_LIST_ITEM_FOUND',
    );
    // An upload that is not multipart, has no file, or is not a spreadsheet.
    await expectError(await t.as(s).post(`/contact-lists/${list.id}/upload`, {}), 400, 'ERR_VALIDATION');
    await expectError(await upload(s, list.id, 'name;number', 'lista.csv'), 400, 'ERR_FILE_TYPE_NOT_ALLOWED');
    await expectError(await upload(s, list.id, 'not a workbook'), 400, 'ERR_SPREADSHEET_UNREADABLE');
    const ole = Buffer.alloc(64);
    ole.writeUInt32BE(0xd0cf11e0, 0);
    ole.writeUInt32BE(0xa1b11ae1, 4);
    // A broken Excel 97-2003 file is refused as unreadable, never a 500.
    await expectError(await upload(s, list.id, ole, 'old.xls'), 400, 'ERR_SPREADSHEET_UNREADABLE');
    await expectError(await upload(s, list.id, Buffer.alloc(6 * 1024 * 1024, 1)), 413, 'ERR_FILE_TOO_LARGE');
  });

  test('items: numbers stored canonical, one per list, search and paging, contactsCount', async () => {
    const c = await t.company('Items');
    const list = await createList(c.admin);
    const other = await createList(c.admin);
    const ana = await createItem(c.admin, list.id, {
      name: 'Ana Lima',
      number: '(11) 8888-7777',
      email: 'ANA@X.COM',
    });
    // No connection: the number could not be checked.
    expect(ana).toMatchObject({
      number: '5511988887777',
      email: 'ana@x.com',
      isWhatsappValid: null,
      contactListId: list.id,
    });
    await expectError(
      await t
        .as(c.admin)
        .post('/contact-list-items', { name: 'Dup', number: '5511988887777', contactListId: list.id }),
      409,
      'ERR_DUPLICATED_CONTACT',
    );
    // The same number may be in another list.
    await createItem(c.admin, other.id, { number: '5511988887777' });
    for (let i = 0; i < 20; i++)
      await createItem(c.admin, list.id, {
        name: `Zé ${String(i).padStart(2, '0')}`,
        number: `2199000${String(i).padStart(4, '0')}`,
      });
    const p1 = await (await t.as(c.admin).get(`/contact-list-items?contactListId=${list.id}`)).json();
    expect(p1.contacts).toHaveLength(20);
    expect(p1.hasMore).toBe(true);
    expect(p1.contacts[0].name).toBe('Ana Lima');
    const p2 = await (
      await t.as(c.admin).get(`/contact-list-items?contactListId=${list.id}&pageNumber=2`)
    ).json();
    expect(p2).toMatchObject({ hasMore: false, contacts: [{ name: 'Zé 19' }] });
    const byNumber = await (
      await t.as(c.admin).get(`/contact-list-items?contactListId=${list.id}&searchParam=8888`)
    ).json();
    expect(byNumber.contacts.map((i: { id: number }) => i.id)).toEqual([ana.id]);
    const byName = await (
      await t.as(c.admin).get(`/contact-list-items?contactListId=${list.id}&searchParam=ANA`)
    ).json();
    expect(byName.contacts.map((i: { id: number }) => i.id)).toEqual([ana.id]);
    expect((await (await t.as(c.admin).get(`/contact-lists/${list.id}`)).json()).contactsCount).toBe(21);

    const upd = await (
      await t.as(c.admin).put(`/contact-list-items/${ana.id}`, { name: 'Ana Souza', number: '11977776666' })
    ).json();
    expect(upd).toMatchObject({ name: 'Ana Souza', number: '5511977776666', email: 'ana@x.com' });
    expect(await (await t.as(c.admin).get(`/contact-list-items/${ana.id}`)).json()).toEqual(upd);
    await expectError(
      await t.as(c.admin).put(`/contact-list-items/${ana.id}`, { number: '21990000001' }),
      409,
      'ERR_DUPLICATED_CONTACT',
    );
    expect((await t.as(c.admin).del(`/contact-list-items/${ana.id}`)).status).toBe(200);
    expect((await (await t.as(c.admin).get(`/contact-lists/${list.id}`)).json()).contactsCount).toBe(20);
    // Deleting the list takes its items.
    const zed = p1.contacts[1];
    expect((await t.as(c.admin).del(`/contact-lists/${list.id}`)).status).toBe(200);
    await expectError(
      await t.as(c.admin).get(`/contact-list-items/${zed.id}`),
      404,
      'ERR_NO_CONTACT_LIST_ITEM_FOUND',
    );
  });

  test('isWhatsappValid is asked of the default connection', async () => {
    const c = await t.company('Check');
    const res = await t.as(c.admin).post('/whatsapp', { name: unique('Sim'), channel: 'simulator' });
    expect(res.status).toBe(201);
    const list = await createList(c.admin);
    // The simulator knows 10 to 15 digit numbers only.
    expect((await createItem(c.admin, list.id, { number: '11988887777' })).isWhatsappValid).toBe(true);
    const short = await createItem(c.admin, list.id, { number: '12345678' });
    expect(short.isWhatsappValid).toBe(false);
    const fixed = await (
      await t.as(c.admin).put(`/contact-list-items/${short.id}`, { number: '21988887777' })
    ).json();
    expect(fixed.isWhatsappValid).toBe(true);
    // After an upload the numbers are checked in the background, then a reload event tells the page.
    const socket = await t.socket(c.admin.token);
    const reloads: unknown[] = [];
    socket.on(companyEvent(c.id, contactListItemsOf(list.id)), (p) => reloads.push(p));
    const file = await workbook([
      ['Nome', 'Número', 'E-mail'],
      ['Bia Reis', '31977776666', ''],
      ['Caio Dias', '87654321', ''],
    ]);
    expect((await (await upload(c.admin, list.id, file)).json()).created).toBe(2);
    // A durable job checks them (the app's poller runs it within a second).
    const checked = await waitFor(async () => {
      const page = await (await t.as(c.admin).get(`/contact-list-items?contactListId=${list.id}`)).json();
      const all = page.contacts as { name: string; isWhatsappValid: boolean | null }[];
      return all.every((i) => i.isWhatsappValid !== null) && all;
    }, 15_000);
    expect(Object.fromEntries(checked.map((i) => [i.name, i.isWhatsappValid]))).toMatchObject({
      'Bia Reis': true,
      'Caio Dias': false,
    });
    await waitFor(async () => reloads.length >= 2);
    expect(reloads.at(-1)).toEqual({ action: 'reload', contactListId: list.id });
  });

  test('spreadsheet upload: good rows added, bad rows reported with their sheet row, same file twice adds nothing', async () => {
    const c = await t.company('Upload');
    const list = await createList(c.admin);
    const file = await workbook([
      ['NOME', 'numero', 'Email'],
      ['Ana Lima', 5511988887777, 'ana@x.com'],
      ['B', '11977776666', ''],
      ['Carla Souza', '123', ''],
      ['Davi Melo', '(21) 98888-1111', 'not-an-email'],
      [null, null, null],
      ['Eva Rocha', '21 98888-2222', ''],
      ['Ana de novo', '11 8888-7777', ''],
      ['Fábio', '', ''],
    ]);
    const res = await upload(c.admin, list.id, file);
    expect(res.status, await res.clone().text()).toBe(200);
    const report = await res.json();
    expect(report.created).toBe(2);
    expect(report.updated).toBe(0);
    expect(
      report.errorBag.map((e: { row: number; error: { code: string; field?: string } }) => [
        e.row,
        e.error.code,
        e.error.field,
      ]),
    ).toEqual([
      [3, 'ERR_VALIDATION', 'name'],
      [4, 'ERR_VALIDATION', 'number'],
      [5, 'ERR_VALIDATION', 'email'],
      // Row 7 is empty: skipped, not reported; row 8 is row 2's number without the ninth digit.
      [8, 'ERR_DUPLICATED_CONTACT', undefined],
      [9, 'ERR_VALIDATION', 'number'],
    ]);
    expect(report.errorBag[0]).toMatchObject({ name: 'B', number: '11977776666' });
    const items = await (await t.as(c.admin).get(`/contact-list-items?contactListId=${list.id}`)).json();
    expect(
      items.contacts.map((i: { name: string; number: string; email: string }) => [i.name, i.number, i.email]),
    ).toEqual([
      ['Ana Lima', '5511988887777', 'ana@x.com'],
      ['Eva Rocha', '5521988882222', ''],
    ]);
    // The same sheet again changes nothing: both rows are counted as unchanged, not as updated.
    const again = await (await upload(c.admin, list.id, file)).json();
    expect({ created: again.created, updated: again.updated, unchanged: again.unchanged }).toEqual({
      created: 0,
      updated: 0,
      unchanged: 2,
    });
    expect((await (await t.as(c.admin).get(`/contact-lists/${list.id}`)).json()).contactsCount).toBe(2);
    // One name changed: that row is updated, the other unchanged.
    const renamed = await workbook([
      ['Nome', 'Numero', 'Email'],
      ['Ana Lima Souza', '5511988887777', 'ana@x.com'],
      ['Eva Rocha', '21 98888-2222', ''],
    ]);
    expect(await (await upload(c.admin, list.id, renamed)).json()).toEqual({
      created: 0,
      updated: 1,
      unchanged: 1,
      errorBag: [],
    });
    // A sheet without a header row is read as name, number, e-mail.
    const bare = await workbook([['Gil Neto', '11966665555', 'gil@x.com']]);
    expect(await (await upload(c.admin, list.id, bare, 'bare.xls')).json()).toEqual({
      created: 1,
      updated: 0,
      unchanged: 0,
      errorBag: [],
    });
    // The Excel 97-2003 binary format (.xls): header, an empty row, a good row and a bad one.
    const book = XLSX.utils.book_new();
    XLSX.utils.book_append_sheet(
      book,
      XLSX.utils.aoa_to_sheet([
        ['Nome', 'Telefone', 'E-mail'],
        [],
        ['Hugo Lima', 5511955554444, 'hugo@x.com'],
        ['Íris', '123', ''],
      ]),
      'Contatos',
    );
    const xls = Buffer.from(XLSX.write(book, { type: 'buffer', bookType: 'biff8' }) as Uint8Array);
    expect(xls.readUInt32BE(0)).toBe(0xd0cf11e0);
    const binary = await (await upload(c.admin, list.id, xls, 'antiga.xls')).json();
    expect(binary.created).toBe(1);
    expect(binary.errorBag).toHaveLength(1);
    expect(binary.errorBag[0]).toMatchObject({ row: 4, name: 'Íris' });
    const hugo = await (
      await t.as(c.admin).get(`/contact-list-items?contactListId=${list.id}&searchParam=hugo`)
    ).json();
    expect(JSON.stringify(hugo)).toContain('5511955554444');
  }, 90_000); // a spreadsheet parse and two uploads: allow for a loaded machine (it timed out at 30 s beside the browser suite)

  test('live events per company and per list', async () => {
    const c = await t.company('Live');
    const socket = await t.socket(c.admin.token);
    const listEvent = nextEvent<{ action: string; contactList: { name: string } }>(
      socket,
      companyEvent(c.id, 'contactList'),
    );
    const list = await createList(c.admin, 'Ao vivo');
    expect(await listEvent).toMatchObject({
      action: 'create',
      contactList: { id: list.id, name: 'Ao vivo' },
    });
    const perList = nextEvent<{ action: string }>(socket, companyEvent(c.id, contactListItemsOf(list.id)));
    const general = nextEvent<{ action: string }>(socket, companyEvent(c.id, 'contactListItem'));
    const count = nextEvent<{ action: string; contactList: { contactsCount: number } }>(
      socket,
      companyEvent(c.id, 'contactList'),
    );
    const item = await createItem(c.admin, list.id);
    expect(await perList).toMatchObject({ action: 'create', contactListItem: { id: item.id } });
    expect(await general).toMatchObject({ action: 'create', contactListItem: { id: item.id } });
    expect(await count).toMatchObject({ action: 'update', contactList: { id: list.id, contactsCount: 1 } });
    const gone = nextEvent(socket, companyEvent(c.id, contactListItemsOf(list.id)));
    await t.as(c.admin).del(`/contact-list-items/${item.id}`);
    expect(await gone).toEqual({ action: 'delete', contactListItemId: item.id, contactListId: list.id });
    const del = nextEvent(socket, companyEvent(c.id, 'contactList'));
    await t.as(c.admin).del(`/contact-lists/${list.id}`);
    expect(await del).toEqual({ action: 'delete', contactListId: list.id });
  });

  test('a plain user reads but cannot change; a plan without campaigns gets ERR_NO_PERMISSION', async () => {
    const c = await t.company('Perm');
    const list = await createList(c.admin);
    const item = await createItem(c.admin, list.id);
    const user = await t.user(c.admin, 'user');
    expect((await t.as(user).get(`/contact-lists/${list.id}`)).status).toBe(200);
    expect((await t.as(user).get(`/contact-list-items?contactListId=${list.id}`)).status).toBe(200);
    await expectError(await t.as(user).post('/contact-lists', { name: 'Minha' }), 403, 'ERR_NO_PERMISSION');
    await expectError(
      await t.as(user).put(`/contact-lists/${list.id}`, { name: 'Minha' }),
      403,
      'ERR_NO_PERMISSION',
    );
    await expectError(await t.as(user).del(`/contact-lists/${list.id}`), 403, 'ERR_NO_PERMISSION');
    await expectError(await t.as(user).del(`/contact-list-items/${item.id}`), 403, 'ERR_NO_PERMISSION');
    await expectError(await upload(user, list.id, await workbook([['a']])), 403, 'ERR_NO_PERMISSION');

    // Bronze (plan 1) has no campaigns.
    const bronze = await t.company('Bronze', { planId: 1 });
    await expectError(await t.as(bronze.admin).get('/contact-lists'), 403, 'ERR_NO_PERMISSION');
    await expectError(
      await t.as(bronze.admin).post('/contact-lists', { name: 'Lista' }),
      403,
      'ERR_NO_PERMISSION',
    );
    // Nor does a company that turned the campaignsEnabled setting off.
    expect((await t.as(c.admin).put('/settings/campaignsEnabled', { value: 'false' })).status).toBe(200);
    await expectError(await t.as(c.admin).get('/contact-lists'), 403, 'ERR_NO_PERMISSION');
    await expectError(
      await t.as(c.admin).get(`/contact-list-items?contactListId=${list.id}`),
      403,
      'ERR_NO_PERMISSION',
    );
    expect((await t.as(c.admin).put('/settings/campaignsEnabled', { value: 'true' })).status).toBe(200);
    expect((await t.as(c.admin).get('/contact-lists')).status).toBe(200);
  });

  test('another company cannot read, change, upload to or listen to a list', async () => {
    const a = await t.company('TenantA');
    const b = await t.company('TenantB');
    const list = await createList(a.admin, 'Segredo');
    const item = await createItem(a.admin, list.id);
    const as = t.as(b.admin);
    await expectError(await as.get(`/contact-lists/${list.id}`), 404, 'ERR_NO_CONTACT_LIST_FOUND');
    await expectError(
      await as.put(`/contact-lists/${list.id}`, { name: 'Roubada' }),
      404,
      'ERR_NO_CONTACT_LIST_FOUND',
    );
    await expectError(await as.del(`/contact-lists/${list.id}`), 404, 'ERR_NO_CONTACT_LIST_FOUND');
    await expectError(
      await as.get(`/contact-list-items?contactListId=${list.id}`),
      404,
      'ERR_NO_CONTACT_LIST_FOUND',
    );
    await expectError(await as.get(`/contact-list-items/${item.id}`), 404, 'ERR_NO_CONTACT_LIST_ITEM_FOUND');
    await expectError(
      await as.put(`/contact-list-items/${item.id}`, { name: 'Roubado' }),
      404,
      'ERR_NO_CONTACT_LIST_ITEM_FOUND',
    );
    await expectError(await as.del(`/contact-list-items/${item.id}`), 404, 'ERR_NO_CONTACT_LIST_ITEM_FOUND');
    await expectError(
      await as.post('/contact-list-items', {
        name: 'Intruso',
        number: '11911112222',
        contactListId: list.id,
      }),
      404,
      'ERR_NO_CONTACT_LIST_FOUND',
    );
    await expectError(
      await upload(
        b.admin,
        list.id,
        await workbook([
          ['Nome', 'Numero'],
          ['X Y', '11911112222'],
        ]),
      ),
      404,
      'ERR_NO_CONTACT_LIST_FOUND',
    );
    expect((await (await as.get('/contact-lists')).json()).records).toEqual([]);
    expect(await (await as.get('/contact-lists/list')).json()).toEqual([]);
    // Nothing changed for A.
    expect(await (await t.as(a.admin).get(`/contact-lists/${list.id}`)).json()).toMatchObject({
      name: 'Segredo',
      contactsCount: 1,
    });
    // B's socket hears nothing of A's list, even when it asks to join A's rooms.
    const socket = await t.socket(b.admin.token);
    socket.emit('join', `company-${a.id}`);
    const heard = collectEvents(socket, companyEvent(a.id, 'contactList'), 600);
    const heardItems = collectEvents(socket, companyEvent(a.id, contactListItemsOf(list.id)), 600);
    await t.as(a.admin).put(`/contact-lists/${list.id}`, { name: 'Segredo 2' });
    await createItem(a.admin, list.id, { number: '11933334444' });
    expect(await heard).toEqual([]);
    expect(await heardItems).toEqual([]);
  });
});
