import { describe, expect, test } from 'vitest';
import { PAGE_SIZE, companyEvent } from '@recado/contracts';
import {
  collectEvents,
  expectError,
  nextEvent,
  testApp,
  unique,
  type Session,
} from '../../../test/helpers.js';

/**
 * Announcements (docs/push.md): the super user writes; every company's users read the
 * active ones, hear them live and mark them seen (the top bar's dot).
 */
const t = await testApp();

const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');

const upload = (s: Session, id: number, filename: string, type: string, data: Buffer = PNG) => {
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(data)], { type }), filename);
  return fetch(`${t.url}/api/announcements/${id}/media-upload`, {
    method: 'POST',
    headers: { authorization: `Bearer ${s.token}` },
    body: form,
  });
};

const create = async (body: Record<string, unknown>) => {
  const res = await t.as(await t.superuser()).post('/announcements', body);
  expect(res.status, await res.clone().text()).toBe(201);
  return res.json();
};

describe('announcements', () => {
  test('the super user creates, reads, updates, lists with search and paging, and deletes', async () => {
    const su = t.as(await t.superuser());
    const a = await create({ title: '  Manutenção programada  ', text: 'Hoje às 22h' });
    expect(a).toMatchObject({
      title: 'Manutenção programada',
      text: 'Hoje às 22h',
      priority: 3,
      status: true,
    });
    expect(a).toMatchObject({ mediaName: null, mediaPath: null });
    expect(await (await su.get(`/announcements/${a.id}`)).json()).toMatchObject({ id: a.id });
    const changed = await (await su.put(`/announcements/${a.id}`, { priority: 1, status: false })).json();
    expect(changed).toMatchObject({ priority: 1, status: false, title: 'Manutenção programada' });

    const tag = unique('pagina');
    for (let i = 0; i < PAGE_SIZE + 1; i++) await create({ title: `${tag} ${i}`, text: 'x', priority: 2 });
    const first = await (await su.get(`/announcements?searchParam=${tag.toUpperCase()}`)).json();
    expect(first.records).toHaveLength(PAGE_SIZE);
    expect(first.hasMore).toBe(true);
    // Newest first.
    expect(first.records[0].title).toBe(`${tag} ${PAGE_SIZE}`);
    const second = await (await su.get(`/announcements?searchParam=${tag}&pageNumber=2`)).json();
    expect(second).toMatchObject({ hasMore: false });
    expect(second.records).toHaveLength(1);
    expect((await su.get('/announcements/?searchParam=manutencao')).status).toBe(200);
    const byAccent = await (await su.get('/announcements?searchParam=manutencao')).json();
    expect(byAccent.records.map((r: { id: number }) => r.id)).toContain(a.id);

    expect((await (await su.del(`/announcements/${a.id}`)).json()).message).toBeTruthy();
    await expectError(await su.get(`/announcements/${a.id}`), 404, 'ERR_NOT_FOUND');
  });

  test('bad input is refused with 4xx codes; unknown ids are 404', async () => {
    const su = t.as(await t.superuser());
    for (const body of [
      {},
      { title: '', text: 'x' },
      { title: '   ', text: 'x' },
      { title: 'x' },
      { title: 'x', text: ' ' },
      { title: 'x', text: 'y', priority: 0 },
      { title: 'x', text: 'y', priority: 4 },
      { title: 'x', text: 'y', priority: 1.5 },
      { title: 'x', text: 'y', priority: 'alta' },
      { title: 'x', text: 'y', status: 'yes' },
      { title: 'x'.repeat(201), text: 'y' },
      { title: 12, text: 'y' },
    ])
      await expectError(await su.post('/announcements', body), 400, 'ERR_VALIDATION');
    const a = await create({ title: 'Valida', text: 'texto' });
    await expectError(await su.put(`/announcements/${a.id}`, { title: '' }), 400, 'ERR_VALIDATION');
    await expectError(await su.put(`/announcements/${a.id}`, { priority: 9 }), 400, 'ERR_VALIDATION');
    await expectError(await su.get('/announcements/abc'), 400, 'ERR_VALIDATION');
    await expectError(await su.get('/announcements?pageNumber=0'), 400, 'ERR_VALIDATION');
    for (const id of [999999, 2147483647]) {
      await expectError(await su.get(`/announcements/${id}`), 404, 'ERR_NOT_FOUND');
      await expectError(await su.put(`/announcements/${id}`, { title: 'x' }), 404, 'ERR_NOT_FOUND');
      await expectError(await su.del(`/announcements/${id}`), 404, 'ERR_NOT_FOUND');
      await expectError(await upload(await t.superuser(), id, 'a.png', 'image/png'), 404, 'ERR_NOT_FOUND');
      await expectError(await su.del(`/announcements/${id}/media-upload`), 404, 'ERR_NOT_FOUND');
    }
    await expectError(await su.get('/announcements/2147483648'), 400, 'ERR_VALIDATION');
    expect((await t.request('GET', '/announcements')).status).toBe(401);
    expect((await t.request('GET', '/announcements/feed')).status).toBe(401);
  });

  test('only the super user writes: another company admin or user reads active ones and cannot write', async () => {
    const b = await t.company('AnnB');
    const bUser = await t.user(b.admin, 'user');
    const active = await create({ title: unique('Ativo '), text: 'para todos', priority: 1 });
    const inactive = await create({ title: unique('Inativo '), text: 'rascunho', status: false });
    for (const s of [b.admin, bUser]) {
      const api = t.as(s);
      await expectError(
        await api.post('/announcements', { title: 'x', text: 'y' }),
        403,
        'ERR_NO_PERMISSION',
      );
      await expectError(
        await api.put(`/announcements/${active.id}`, { title: 'x' }),
        403,
        'ERR_NO_PERMISSION',
      );
      await expectError(await api.del(`/announcements/${active.id}`), 403, 'ERR_NO_PERMISSION');
      await expectError(await upload(s, active.id, 'a.png', 'image/png'), 403, 'ERR_NO_PERMISSION');
      await expectError(await api.del(`/announcements/${active.id}/media-upload`), 403, 'ERR_NO_PERMISSION');
      // Reads: the active one only.
      expect(await (await api.get(`/announcements/${active.id}`)).json()).toMatchObject({ id: active.id });
      await expectError(await api.get(`/announcements/${inactive.id}`), 404, 'ERR_NOT_FOUND');
      const list = await (await api.get('/announcements?searchParam=')).json();
      const ids = list.records.map((r: { id: number }) => r.id);
      expect(ids).toContain(active.id);
      expect(ids).not.toContain(inactive.id);
      const feed = await (await api.get('/announcements/feed')).json();
      expect(feed.records.map((r: { id: number }) => r.id)).not.toContain(inactive.id);
    }
    // Still unchanged.
    expect(await (await t.as(await t.superuser()).get(`/announcements/${active.id}`)).json()).toMatchObject({
      title: active.title,
    });
  });

  test('the attachment: png, jpg, jpeg only; served to signed-in users; removed', async () => {
    const su = await t.superuser();
    const b = await t.company('AnnMedia');
    const a = await create({ title: 'Com imagem', text: 'veja' });
    for (const [name, type] of [
      ['a.gif', 'image/gif'],
      ['a.pdf', 'application/pdf'],
      ['a.png', 'text/plain'],
      ['a.exe', 'image/png'],
      ['png', 'image/png'],
    ] as const)
      await expectError(await upload(su, a.id, name, type), 400, 'ERR_FILE_TYPE_NOT_ALLOWED');
    await expectError(await t.as(su).post(`/announcements/${a.id}/media-upload`, {}), 400, 'ERR_VALIDATION');
    for (const [name, type] of [
      ['foto.JPG', 'image/jpeg'],
      ['foto.jpeg', 'image/jpeg'],
    ] as const)
      expect((await upload(su, a.id, name, type)).status).toBe(200);
    const withMedia = await (await upload(su, a.id, 'banner.png', 'image/png')).json();
    expect(withMedia).toMatchObject({
      mediaName: 'banner.png',
      mediaPath: `/api/announcements/${a.id}/media`,
    });
    const file = await t.as(b.admin).get(`/announcements/${a.id}/media`);
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toMatch(/^image\/png/);
    expect(Buffer.from(await file.arrayBuffer()).equals(PNG)).toBe(true);
    expect((await t.request('GET', `/announcements/${a.id}/media`)).status).toBe(401);
    const removed = await (await t.as(su).del(`/announcements/${a.id}/media-upload`)).json();
    expect(removed).toMatchObject({ mediaName: null, mediaPath: null });
    await expectError(await t.as(b.admin).get(`/announcements/${a.id}/media`), 404, 'ERR_NOT_FOUND');
  });

  test('every company hears create, update and delete live', async () => {
    const b = await t.company('AnnLiveB');
    const c = await t.company('AnnLiveC');
    const bUser = await t.user(b.admin, 'user');
    const sb = await t.socket(bUser.token);
    const sc = await t.socket(c.admin.token);
    const onB = nextEvent<{ action: string; record: { id: number; title: string } }>(
      sb,
      companyEvent(b.id, 'announcement'),
    );
    const onC = nextEvent<{ action: string; record: { id: number } }>(sc, companyEvent(c.id, 'announcement'));
    const a = await create({ title: 'Ao vivo', text: 'olá' });
    expect(await onB).toMatchObject({
      action: 'create',
      record: { id: a.id, title: 'Ao vivo', seen: false },
    });
    expect(await onC).toMatchObject({ action: 'create', record: { id: a.id } });
    // A company's own event name only: nobody hears another company's channel.
    expect(await collectEvents(sb, companyEvent(c.id, 'announcement'), 200)).toEqual([]);
    const onUpdate = nextEvent(sb, companyEvent(b.id, 'announcement'));
    await t.as(await t.superuser()).put(`/announcements/${a.id}`, { status: false });
    expect(await onUpdate).toMatchObject({ action: 'update', record: { id: a.id, status: false } });
    const onDelete = nextEvent(sb, companyEvent(b.id, 'announcement'));
    await t.as(await t.superuser()).del(`/announcements/${a.id}`);
    expect(await onDelete).toEqual({ action: 'delete', id: a.id });
    sb.disconnect();
    sc.disconnect();
  });

  test('the feed orders by priority and counts what each user has not opened', async () => {
    const b = await t.company('AnnSeen');
    const one = await t.user(b.admin, 'user');
    const two = await t.user(b.admin, 'user');
    const low = await create({ title: unique('Baixa '), text: 'x', priority: 3 });
    const high = await create({ title: unique('Alta '), text: 'x', priority: 1 });
    const mid = await create({ title: unique('Media '), text: 'x', priority: 2 });
    const feed = await (await t.as(one).get('/announcements/feed')).json();
    const mine = feed.records
      .filter((r: { id: number }) => [low.id, high.id, mid.id].includes(r.id))
      .map((r: { id: number }) => r.id);
    expect(mine).toEqual([high.id, mid.id, low.id]);
    const priorities = feed.records.map((r: { priority: number }) => r.priority);
    expect(priorities).toEqual([...priorities].sort());
    expect(feed.unseen).toBe(feed.records.filter((r: { seen: boolean }) => !r.seen).length);
    expect(feed.unseen).toBeGreaterThanOrEqual(3);

    const ids = feed.records.map((r: { id: number }) => r.id);
    const after = await (await t.as(one).post('/announcements/seen', { ids: [...ids, 99999999] })).json();
    expect(after.unseen).toBe(0);
    expect(after.records.every((r: { seen: boolean }) => r.seen)).toBe(true);
    // The other user's dot is theirs.
    expect((await (await t.as(two).get('/announcements/feed')).json()).unseen).toBe(feed.unseen);
    // A new one lights the dot again, for that one only.
    const fresh = await create({ title: unique('Nova '), text: 'x' });
    const again = await (await t.as(one).get('/announcements/feed')).json();
    expect(again.unseen).toBe(1);
    expect(again.records.find((r: { id: number }) => r.id === fresh.id).seen).toBe(false);
    await expectError(await t.as(one).post('/announcements/seen', { ids: ['x'] }), 400, 'ERR_VALIDATION');
    await expectError(await t.as(one).post('/announcements/seen', {}), 400, 'ERR_VALIDATION');
  });
});
