import { existsSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { companyEvent } from '@recado/contracts';
import {
  collectEvents,
  nextEvent,
  testApp,
  unique,
  type Session,
  expectError,
} from '../../../test/helpers.js';

const t = await testApp();
const shared = await t.company('Shared');

const createFileList = async (admin: Session, over: Record<string, unknown> = {}) => {
  const res = await t
    .as(admin)
    .post('/files', { name: unique('Arquivos '), message: 'Veja os anexos', ...over });
  expect(res.status, await res.clone().text()).toBe(201);
  return res.json();
};

const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
);

const uploadTo = (
  admin: Session,
  id: number,
  file: Buffer | string,
  filename: string,
  fields: Record<string, string> = {},
) => {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  form.append('files', new Blob([file]), filename);
  return fetch(`${t.url}/api/files/uploadList/${id}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${admin.token}` },
    body: form,
  });
};

describe('file lists', () => {
  test('create with options, upload a file into an option, read it back, replace it, delete the list', async () => {
    const c = await t.company('Files');
    const list = await createFileList(c.admin, {
      name: 'Catálogo',
      options: [{ name: 'Foto' }, { name: 'Tabela' }],
    });
    expect(list).toMatchObject({ name: 'Catálogo', message: 'Veja os anexos', userId: c.admin.user.id });
    expect(list.options.map((o: { name: string; path: string }) => [o.name, o.path])).toEqual([
      ['Foto', ''],
      ['Tabela', ''],
    ]);
    const [foto, tabela] = list.options;
    const res = await uploadTo(c.admin, list.id, PNG, 'produto.png', { optionId: String(foto.id) });
    expect(res.status, await res.clone().text()).toBe(200);
    const after = await res.json();
    const stored = after.options.find((o: { id: number }) => o.id === foto.id);
    expect(stored).toMatchObject({ name: 'Foto', mediaType: 'image/png', file: 'produto.png' });
    expect(stored.path).toMatch(new RegExp(`^${c.id}/file-lists/.+\\.png$`));
    const got = await t.as(c.admin).get(`/files/options/${foto.id}/file`);
    expect(got.status).toBe(200);
    expect(got.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await got.arrayBuffer()).equals(PNG)).toBe(true);
    // A new file replaces the old one, which leaves the disk.
    const pdf = await (
      await uploadTo(c.admin, list.id, '%PDF-1.4 test', 'preços.pdf', { id: String(foto.id) })
    ).json();
    expect(pdf.options.find((o: { id: number }) => o.id === foto.id)).toMatchObject({
      mediaType: 'application/pdf',
      file: 'preços.pdf',
    });
    expect(existsSync(t.app.services.media.fullPath(stored.path))).toBe(false);
    // No option named: a new option is created with the given name.
    const added = await (await uploadTo(c.admin, list.id, PNG, 'extra.png', { name: 'Extra' })).json();
    expect(added.options.map((o: { name: string }) => o.name)).toEqual(['Foto', 'Tabela', 'Extra']);
    // PUT options: kept by id (renamed), added without, the rest removed (their files too).
    const pdfPath = pdf.options.find((o: { id: number }) => o.id === foto.id).path;
    const upd = await (
      await t.as(c.admin).put(`/files/${list.id}`, {
        name: 'Catálogo 2',
        options: [{ id: tabela.id, name: 'Tabela 2026' }, { name: 'Vídeo' }],
      })
    ).json();
    expect(upd.name).toBe('Catálogo 2');
    expect(upd.options.map((o: { name: string }) => o.name)).toEqual(['Tabela 2026', 'Vídeo']);
    expect(existsSync(t.app.services.media.fullPath(pdfPath))).toBe(false);
    expect(await (await t.as(c.admin).get(`/files/${list.id}`)).json()).toEqual(upd);
    const page = await (await t.as(c.admin).get('/files?searchParam=CATÁLOGO')).json();
    expect(page).toMatchObject({
      hasMore: false,
      files: [{ id: list.id, options: [{ name: 'Tabela 2026' }, { name: 'Vídeo' }] }],
    });
    expect((await t.as(c.admin).del(`/files/${list.id}`)).status).toBe(200);
    await expectError(await t.as(c.admin).get(`/files/${list.id}`), 404, 'ERR_NO_FILE_FOUND');
  });

  test('paging, and live events', async () => {
    const c = await t.company('FilePaging');
    const socket = await t.socket(c.admin.token);
    const created = nextEvent<{ action: string; fileList: { id: number } }>(
      socket,
      companyEvent(c.id, 'file'),
    );
    const first = await createFileList(c.admin, { name: 'Lote 00' });
    expect(await created).toMatchObject({ action: 'create', fileList: { id: first.id } });
    for (let i = 1; i < 21; i++)
      await createFileList(c.admin, { name: `Lote ${String(i).padStart(2, '0')}` });
    const p1 = await (await t.as(c.admin).get('/files?pageNumber=1')).json();
    expect(p1.files).toHaveLength(20);
    expect(p1.hasMore).toBe(true);
    const p2 = await (await t.as(c.admin).get('/files?pageNumber=2')).json();
    expect(await (await t.as(c.admin).get('/files/list')).json()).toHaveLength(21);
    expect(p2).toMatchObject({ hasMore: false, files: [{ name: 'Lote 20' }] });
    const updated = nextEvent(socket, companyEvent(c.id, 'file'));
    await uploadTo(c.admin, first.id, PNG, 'a.png', { name: 'A' });
    expect(await updated).toMatchObject({
      action: 'update',
      fileList: { id: first.id, options: [{ name: 'A' }] },
    });
    const deleted = nextEvent(socket, companyEvent(c.id, 'file'));
    await t.as(c.admin).del(`/files/${first.id}`);
    expect(await deleted).toEqual({ action: 'delete', fileId: first.id });
  });

  test('bad input, wrong file types and sizes are refused, never 500', async () => {
    const s = shared.admin;
    await expectError(await t.as(s).post('/files', { name: 'ab', message: 'x' }), 400, 'ERR_VALIDATION');
    await expectError(await t.as(s).post('/files', { name: 'Nome bom', message: '' }), 400, 'ERR_VALIDATION');
    await expectError(
      await t.as(s).post('/files', { name: 'Nome bom', message: 'x', options: [{ name: '' }] }),
      400,
      'ERR_VALIDATION',
    );
    await expectError(
      await t.as(s).post('/files', {
        name: 'Nome bom',
        message: 'x',
        options: Array.from({ length: 21 }, (_, i) => ({ name: `o${i}` })),
      }),
      400,
      'ERR_VALIDATION',
    );
    await expectError(await t.as(s).get('/files/xyz'), 400, 'ERR_VALIDATION');
    await expectError(await t.as(s).get('/files?pageNumber=-1'), 400, 'ERR_VALIDATION');
    await expectError(await t.as(s).put('/files/2000000000', { name: 'Nome bom' }), 404, 'ERR_NO_FILE_FOUND');
    const list = await createFileList(s, { options: [{ name: 'Um' }] });
    await expectError(
      await t.as(s).put(`/files/${list.id}`, { options: [{ id: 2_000_000_000, name: 'Alheia' }] }),
      400,
      'ERR_VALIDATION',
    );
    await expectError(await uploadTo(s, list.id, '<script>', 'page.html'), 400, 'ERR_FILE_TYPE_NOT_ALLOWED');
    await expectError(await uploadTo(s, list.id, 'MZ', 'setup.exe'), 400, 'ERR_FILE_TYPE_NOT_ALLOWED');
    await expectError(
      await uploadTo(s, list.id, Buffer.alloc(17 * 1024 * 1024, 1), 'big.mp4'),
      413,
      'ERR_FILE_TOO_LARGE',
    );
    await expectError(await uploadTo(s, list.id, PNG, 'a.png', { optionId: 'abc' }), 400, 'ERR_VALIDATION');
    await expectError(
      await uploadTo(s, list.id, PNG, 'a.png', { optionId: '2000000000' }),
      400,
      'ERR_VALIDATION',
    );
    await expectError(await t.as(s).post(`/files/uploadList/${list.id}`, {}), 400, 'ERR_VALIDATION');
    // Nothing was stored by the refused uploads.
    expect((await (await t.as(s).get(`/files/${list.id}`)).json()).options).toMatchObject([
      { name: 'Um', path: '' },
    ]);
    await expectError(
      await t.as(s).get(`/files/options/${list.options[0].id}/file`),
      404,
      'ERR_NO_FILE_FOUND',
    );
  });

  test('a plain user reads but cannot change file lists', async () => {
    const c = await t.company('FilePerm');
    const list = await createFileList(c.admin, { options: [{ name: 'Um' }] });
    const user = await t.user(c.admin, 'user');
    expect((await t.as(user).get(`/files/${list.id}`)).status).toBe(200);
    await expectError(
      await t.as(user).post('/files', { name: 'Minha lista', message: 'x' }),
      403,
      'ERR_NO_PERMISSION',
    );
    await expectError(
      await t.as(user).put(`/files/${list.id}`, { name: 'Minha lista' }),
      403,
      'ERR_NO_PERMISSION',
    );
    await expectError(await t.as(user).del(`/files/${list.id}`), 403, 'ERR_NO_PERMISSION');
    await expectError(await uploadTo(user, list.id, PNG, 'a.png'), 403, 'ERR_NO_PERMISSION');
  });

  test('another company cannot read, change, upload to, download from or listen to a file list', async () => {
    const a = await t.company('FileA');
    const b = await t.company('FileB');
    const list = await createFileList(a.admin, { name: 'Segredos', options: [{ name: 'Um' }] });
    const withFile = await (
      await uploadTo(a.admin, list.id, PNG, 'a.png', { optionId: String(list.options[0].id) })
    ).json();
    const optionId = withFile.options[0].id;
    const as = t.as(b.admin);
    await expectError(await as.get(`/files/${list.id}`), 404, 'ERR_NO_FILE_FOUND');
    await expectError(await as.put(`/files/${list.id}`, { name: 'Roubada' }), 404, 'ERR_NO_FILE_FOUND');
    await expectError(await as.del(`/files/${list.id}`), 404, 'ERR_NO_FILE_FOUND');
    await expectError(
      await uploadTo(b.admin, list.id, PNG, 'b.png', { optionId: String(optionId) }),
      404,
      'ERR_NO_FILE_FOUND',
    );
    await expectError(await as.get(`/files/options/${optionId}/file`), 404, 'ERR_NO_FILE_FOUND');
    expect((await (await as.get('/files')).json()).files).toEqual([]);
    expect(await (await as.get('/files/list')).json()).toEqual([]);
    // B's own list cannot adopt A's option.
    const mine = await createFileList(b.admin);
    await expectError(
      await as.put(`/files/${mine.id}`, { options: [{ id: optionId, name: 'Minha' }] }),
      400,
      'ERR_VALIDATION',
    );
    expect(await (await t.as(a.admin).get(`/files/${list.id}`)).json()).toEqual(withFile);
    const socket = await t.socket(b.admin.token);
    socket.emit('join', `company-${a.id}`);
    const heard = collectEvents(socket, companyEvent(a.id, 'file'), 600);
    await t.as(a.admin).put(`/files/${list.id}`, { name: 'Segredos 2' });
    expect(await heard).toEqual([]);
  });
});
