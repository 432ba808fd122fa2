import { describe, expect, test } from 'vitest';
import { nextEvent, testApp, type Session, expectError } from '../../../test/helpers.js';

const t = await testApp();

const create = async (s: Session, body: Record<string, unknown>) => {
  const res = await t.as(s).post('/quick-messages', { message: 'Olá, tudo bem?', ...body });
  expect(res.status, await res.clone().text()).toBe(201);
  return res.json();
};

const upload = (s: Session, id: number, filename: string, type: string, data: Buffer, field = 'file') => {
  const form = new FormData();
  form.append('typeArch', 'quickMessage');
  form.append(field, new Blob([new Uint8Array(data)], { type }), filename);
  return fetch(`${t.url}/api/quick-messages/${id}/media-upload`, {
    method: 'POST',
    headers: { authorization: `Bearer ${s.token}` },
    body: form,
  });
};

const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');

describe('quick messages', () => {
  test('create, read, update, list with search and paging, delete', async () => {
    const c = await t.company('QmCrud');
    const q = await create(c.admin, { shortcode: '/bomdia', message: 'Bom dia! Como posso ajudar?' });
    expect(q).toMatchObject({
      shortcode: 'bomdia',
      message: 'Bom dia! Como posso ajudar?',
      geral: false,
      allowEdit: false,
      status: true,
      isMedia: false,
      mediaPath: null,
      userId: c.admin.user.id,
      canEdit: true,
    });
    expect((await (await t.as(c.admin).get(`/quick-messages/${q.id}`)).json()).shortcode).toBe('bomdia');
    const up = await (await t.as(c.admin).put(`/quick-messages/${q.id}`, { message: 'Bom dia!!' })).json();
    expect(up).toMatchObject({ shortcode: 'bomdia', message: 'Bom dia!!' });

    for (let i = 0; i < 22; i++) await create(c.admin, { shortcode: `item${String(i).padStart(2, '0')}` });
    const p1 = await (await t.as(c.admin).get('/quick-messages?pageNumber=1')).json();
    expect(p1.records).toHaveLength(20);
    expect(p1.hasMore).toBe(true);
    const p2 = await (await t.as(c.admin).get('/quick-messages?pageNumber=2')).json();
    expect(p2.records).toHaveLength(3);
    expect(p2.hasMore).toBe(false);
    // Ordered by shortcode.
    expect(p1.records[0].shortcode).toBe('bomdia');
    // Search: shortcode or text, without case; % is literal.
    const s = await (await t.as(c.admin).get('/quick-messages?searchParam=BOM')).json();
    expect(s.records.map((r: { id: number }) => r.id)).toEqual([q.id]);
    const none = await (await t.as(c.admin).get('/quick-messages?searchParam=%25')).json();
    expect(none.records).toEqual([]);

    expect((await t.as(c.admin).del(`/quick-messages/${q.id}`)).status).toBe(200);
    await expectError(await t.as(c.admin).get(`/quick-messages/${q.id}`), 404, 'ERR_NOT_FOUND');
  });

  test('bad input is a 400 with ERR_VALIDATION, never a 500', async () => {
    const c = await t.company('QmBad');
    await expectError(await t.as(c.admin).post('/quick-messages', { message: 'x' }), 400, 'ERR_VALIDATION');
    await expectError(
      await t.as(c.admin).post('/quick-messages', { shortcode: '', message: 'x' }),
      400,
      'ERR_VALIDATION',
    );
    await expectError(
      await t.as(c.admin).post('/quick-messages', { shortcode: 'two words', message: 'x' }),
      400,
      'ERR_VALIDATION',
    );
    await expectError(
      await t.as(c.admin).post('/quick-messages', { shortcode: 'ok', message: '   ' }),
      400,
      'ERR_VALIDATION',
    );
    await expectError(
      await t.as(c.admin).post('/quick-messages', { shortcode: 'ok', message: 'x', geral: 'yes' }),
      400,
      'ERR_VALIDATION',
    );
    await expectError(await t.as(c.admin).get('/quick-messages/abc'), 400, 'ERR_VALIDATION');
    await expectError(await t.as(c.admin).get('/quick-messages/99999999999'), 400, 'ERR_VALIDATION');
    await expectError(await t.as(c.admin).get('/quick-messages?pageNumber=0'), 400, 'ERR_VALIDATION');
    const q = await create(c.admin, { shortcode: 'ok' });
    await expectError(
      await t.as(c.admin).put(`/quick-messages/${q.id}`, { shortcode: 'a b' }),
      400,
      'ERR_VALIDATION',
    );
    // Not multipart, or no file.
    await expectError(
      await t.as(c.admin).post(`/quick-messages/${q.id}/media-upload`, {}),
      400,
      'ERR_VALIDATION',
    );
    await expectError(
      await upload(c.admin, q.id, 'x.exe', 'application/x-msdownload', Buffer.alloc(0)),
      400,
      'ERR_VALIDATION',
    );
    expect((await t.request('GET', '/quick-messages')).status).toBe(401);
  });

  test('personal entries are seen only by their owner; company-wide ones by everybody', async () => {
    const c = await t.company('QmVis');
    const ana = await t.user(c.admin);
    const bia = await t.user(c.admin);
    const mine = await create(ana, { shortcode: 'pessoal' });
    const shared = await create(ana, { shortcode: 'geral', geral: true });
    const biaList = await (await t.as(bia).get('/quick-messages')).json();
    expect(biaList.records.map((r: { id: number }) => r.id)).toEqual([shared.id]);
    expect(biaList.records[0]).toMatchObject({ canEdit: false, user: { id: ana.user.id } });
    await expectError(await t.as(bia).get(`/quick-messages/${mine.id}`), 404, 'ERR_NOT_FOUND');
    await expectError(
      await t.as(bia).put(`/quick-messages/${mine.id}`, { message: 'x' }),
      404,
      'ERR_NOT_FOUND',
    );
    await expectError(await t.as(bia).del(`/quick-messages/${mine.id}`), 404, 'ERR_NOT_FOUND');
    // Even an admin does not read someone's personal entry.
    await expectError(await t.as(c.admin).get(`/quick-messages/${mine.id}`), 404, 'ERR_NOT_FOUND');
    // The suggestions list follows the same rule and leaves inactive entries out.
    await create(bia, { shortcode: 'inativa', status: false });
    const sugg = await (await t.as(bia).get('/quick-messages/list')).json();
    expect(sugg.map((r: { shortcode: string }) => r.shortcode)).toEqual(['geral']);
    const anaSugg = await (await t.as(ana).get('/quick-messages/list')).json();
    expect(anaSugg.map((r: { shortcode: string }) => r.shortcode).sort()).toEqual(['geral', 'pessoal']);
    // userId narrows the list to one owner.
    const byOwner = await (await t.as(ana).get(`/quick-messages?userId=${bia.user.id}`)).json();
    expect(byOwner.records).toEqual([]);
  });

  test('who may edit: owner; admins for company-wide entries; everybody when allowEdit is on', async () => {
    const c = await t.company('QmEdit');
    const ana = await t.user(c.admin);
    const bia = await t.user(c.admin);
    const locked = await create(ana, { shortcode: 'fechada', geral: true });
    const open = await create(ana, { shortcode: 'aberta', geral: true, allowEdit: true });
    await expectError(
      await t.as(bia).put(`/quick-messages/${locked.id}`, { message: 'x' }),
      403,
      'ERR_NO_PERMISSION',
    );
    await expectError(await t.as(bia).del(`/quick-messages/${locked.id}`), 403, 'ERR_NO_PERMISSION');
    const byAdmin = await t.as(c.admin).put(`/quick-messages/${locked.id}`, { message: 'pelo admin' });
    expect(byAdmin.status).toBe(200);
    const byBia = await t.as(bia).put(`/quick-messages/${open.id}`, { message: 'pela Bia' });
    expect(byBia.status).toBe(200);
    expect((await byBia.json()).canEdit).toBe(true);
    // Bia may change the text but not who may see or edit it.
    await expectError(
      await t.as(bia).put(`/quick-messages/${open.id}`, { geral: false }),
      403,
      'ERR_NO_PERMISSION',
    );
    // allowEdit means nothing on a personal entry.
    const personal = await create(ana, { shortcode: 'p', allowEdit: true });
    expect(personal.allowEdit).toBe(false);
    expect((await t.as(bia).del(`/quick-messages/${open.id}`)).status).toBe(200);
  });

  test('media: upload, download, remove; the owner of the file is the company', async () => {
    const c = await t.company('QmMedia');
    const q = await create(c.admin, { shortcode: 'foto' });
    const res = await upload(c.admin, q.id, 'catalogo.png', 'image/png', PNG);
    expect(res.status, await res.clone().text()).toBe(200);
    const withMedia = await res.json();
    expect(withMedia).toMatchObject({
      isMedia: true,
      mediaName: 'catalogo.png',
      mediaPath: `/api/quick-messages/${q.id}/media`,
    });
    const file = await t.as(c.admin).get(`/quick-messages/${q.id}/media`);
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toMatch(/^image\/png/);
    expect(Buffer.from(await file.arrayBuffer()).equals(PNG)).toBe(true);
    const removed = await (await t.as(c.admin).del(`/quick-messages/${q.id}/media-upload`)).json();
    expect(removed).toMatchObject({ isMedia: false, mediaName: null, mediaPath: null });
    await expectError(await t.as(c.admin).get(`/quick-messages/${q.id}/media`), 404, 'ERR_NOT_FOUND');
  });

  test('events: company-wide entries reach the company, personal ones only their owner', async () => {
    const c = await t.company('QmEvents');
    const ana = await t.user(c.admin);
    const bia = await t.user(c.admin);
    const anaSocket = await t.socket(ana.token);
    const biaSocket = await t.socket(bia.token);
    const event = `company-${c.id}-quickMessage`;
    const biaSees: unknown[] = [];
    biaSocket.on(event, (p: unknown) => biaSees.push(p));
    const anaGets = nextEvent<{ action: string; record: { shortcode: string } }>(anaSocket, event, 15_000);
    await create(ana, { shortcode: 'segredo' });
    expect((await anaGets).record.shortcode).toBe('segredo');
    // Emitted at once to every room it goes to: had Bia been one, she would have it by now.
    await new Promise((r) => setTimeout(r, 300));
    biaSocket.off(event);
    expect(biaSees).toEqual([]);

    const biaGets = nextEvent<{ action: string; record: { id: number } }>(biaSocket, event, 15_000);
    const shared = await create(ana, { shortcode: 'todos', geral: true });
    expect(await biaGets).toMatchObject({ action: 'create', record: { id: shared.id } });
    // Made personal: the others get a delete.
    const biaDelete = nextEvent<{ action: string; id: number }>(biaSocket, event, 15_000);
    await t.as(ana).put(`/quick-messages/${shared.id}`, { geral: false });
    expect(await biaDelete).toEqual({ action: 'delete', id: shared.id });
  });

  test('another company cannot read, change, delete, upload to or hear about a quick message', async () => {
    const a = await t.company('QmA');
    const b = await t.company('QmB');
    const q = await create(a.admin, { shortcode: 'privada', geral: true });
    await upload(a.admin, q.id, 'a.png', 'image/png', PNG);
    await expectError(await t.as(b.admin).get(`/quick-messages/${q.id}`), 404, 'ERR_NOT_FOUND');
    await expectError(
      await t.as(b.admin).put(`/quick-messages/${q.id}`, { message: 'x' }),
      404,
      'ERR_NOT_FOUND',
    );
    await expectError(await t.as(b.admin).del(`/quick-messages/${q.id}`), 404, 'ERR_NOT_FOUND');
    await expectError(await upload(b.admin, q.id, 'b.png', 'image/png', PNG), 404, 'ERR_NOT_FOUND');
    await expectError(await t.as(b.admin).del(`/quick-messages/${q.id}/media-upload`), 404, 'ERR_NOT_FOUND');
    await expectError(await t.as(b.admin).get(`/quick-messages/${q.id}/media`), 404, 'ERR_NOT_FOUND');
    expect((await (await t.as(b.admin).get('/quick-messages')).json()).records).toEqual([]);
    expect(await (await t.as(b.admin).get(`/quick-messages/list?companyId=${a.id}`)).json()).toEqual([]);
    // B's sockets hear nothing of A's entries, even asking for A's room by name.
    const bSocket = await t.socket(b.admin.token);
    const aSocket = await t.socket(a.admin.token);
    bSocket.emit('join', `company-${a.id}`);
    const event = `company-${a.id}-quickMessage`;
    const heard: unknown[] = [];
    bSocket.on(event, (p: unknown) => heard.push(p));
    const aHears = nextEvent(aSocket, event, 15_000);
    await t.as(a.admin).put(`/quick-messages/${q.id}`, { message: 'mudou' });
    await aHears;
    await new Promise((r) => setTimeout(r, 300));
    expect(heard).toEqual([]);
    // Still A's.
    expect((await (await t.as(a.admin).get(`/quick-messages/${q.id}`)).json()).message).toBe('mudou');
  });
});
