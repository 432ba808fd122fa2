import { describe, expect, test } from 'vitest';
import { testApp, unique, expectError } from '../../../test/helpers.js';

const t = await testApp();
const su = await t.superuser();
const c = await t.company('Helped');

const helpBody = (over: Record<string, unknown> = {}) => ({
  title: unique('How to '),
  description: 'A short video',
  video: 'dQw4w9WgXcQ',
  ...over,
});
describe('helps', () => {
  test('the super user writes; every signed-in user reads', async () => {
    const res = await t.as(su).post('/helps', helpBody({ title: 'Aaa first' }));
    expect(res.status).toBe(201);
    const help = await res.json();
    expect(help).toEqual({
      id: expect.any(Number),
      title: 'Aaa first',
      description: 'A short video',
      video: 'dQw4w9WgXcQ',
    });
    const u = await t.user(c.admin);
    for (const path of ['/helps', '/helps/list']) {
      const list = await (await t.as(u).get(path)).json();
      expect(list.find((h: { id: number }) => h.id === help.id)).toEqual(help);
    }
    expect(await (await t.as(u).get(`/helps/${help.id}`)).json()).toEqual(help);
    expect((await t.request('GET', '/helps')).status).toBe(401);
  });

  test('a partial update keeps what it did not send; delete removes', async () => {
    const help = await (await t.as(su).post('/helps', helpBody())).json();
    const upd = await t.as(su).put(`/helps/${help.id}`, { title: 'Renamed help' });
    expect(upd.status).toBe(200);
    expect(await upd.json()).toEqual({ ...help, title: 'Renamed help' });
    expect((await t.as(su).del(`/helps/${help.id}`)).status).toBe(200);
    await expectError(await t.as(su).get(`/helps/${help.id}`), 404, 'ERR_NO_HELP_FOUND');
    await expectError(await t.as(su).put(`/helps/${help.id}`, { title: 'Ghost' }), 404, 'ERR_NO_HELP_FOUND');
    await expectError(await t.as(su).del(`/helps/${help.id}`), 404, 'ERR_NO_HELP_FOUND');
  });

  test('non-super users get ERR_NO_PERMISSION on every write', async () => {
    const help = await (await t.as(su).post('/helps', helpBody())).json();
    await expectError(await t.as(c.admin).post('/helps', helpBody()), 403, 'ERR_NO_PERMISSION');
    await expectError(
      await t.as(c.admin).put(`/helps/${help.id}`, { title: 'Mine now' }),
      403,
      'ERR_NO_PERMISSION',
    );
    await expectError(await t.as(c.admin).del(`/helps/${help.id}`), 403, 'ERR_NO_PERMISSION');
    expect((await (await t.as(su).get(`/helps/${help.id}`)).json()).title).toBe(help.title);
  });

  test.each([
    ['missing title', { title: undefined }],
    ['short title', { title: 'x' }],
    ['oversize title', { title: 'x'.repeat(121) }],
    ['oversize description', { description: 'x'.repeat(2001) }],
    ['video with markup', { video: '<script>' }],
    ['video URL', { video: 'https://youtu.be/dQw4w9WgXcQ' }],
    ['missing video', { video: undefined }],
  ])('refuses %s with 400 ERR_VALIDATION', async (_, over) => {
    await expectError(await t.as(su).post('/helps', helpBody(over)), 400, 'ERR_VALIDATION');
  });

  test('bad ids are 400 or 404, never 500', async () => {
    await expectError(await t.as(c.admin).get('/helps/abc'), 400, 'ERR_VALIDATION');
    await expectError(await t.as(c.admin).get('/helps/99999999999'), 400, 'ERR_VALIDATION');
    await expectError(await t.as(c.admin).get('/helps/2147483647'), 404, 'ERR_NO_HELP_FOUND');
  });
});
