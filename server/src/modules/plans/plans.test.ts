import { describe, expect, test } from 'vitest';
import { PLAN_FLAGS } from '@recado/contracts';
import { testApp, unique, expectError } from '../../../test/helpers.js';

const t = await testApp();
const su = await t.superuser();

const planBody = (over: Record<string, unknown> = {}) => ({
  name: unique('Plan '),
  users: 4,
  connections: 2,
  queues: 3,
  value: 59.9,
  ...over,
});
describe('reading', () => {
  test('GET /plans/list is public and lists the seeded plans with their flags', async () => {
    const res = await t.request('GET', '/plans/list');
    expect(res.status).toBe(200);
    const list = await res.json();
    const ids = list.map((p: { id: number }) => p.id);
    expect(ids).toEqual(expect.arrayContaining([1, 2, 3, 4, 5, 7]));
    // The platform's own plan is not offered at signup.
    expect(ids).not.toContain(6);
    const trial = list.find((p: { id: number }) => p.id === 7);
    expect(trial).toMatchObject({ name: 'Teste grátis', users: 3, value: 0 });
    for (const flag of PLAN_FLAGS) expect(typeof trial[flag]).toBe('boolean');
  });

  test('a plan made private leaves the public list but stays in /plans/all', async () => {
    const plan = await (await t.as(su).post('/plans', planBody({ isPublic: false }))).json();
    const pub = await (await t.request('GET', '/plans/list')).json();
    expect(pub.map((p: { id: number }) => p.id)).not.toContain(plan.id);
    const all = await (await t.as(su).get('/plans/all')).json();
    expect(all.map((p: { id: number }) => p.id)).toContain(plan.id);
  });

  test('GET /plans/all is for the super user; a plan is readable by any signed-in user', async () => {
    const c = await t.company('PlanReader');
    await expectError(await t.as(c.admin).get('/plans/all'), 403, 'ERR_NO_PERMISSION');
    expect((await (await t.as(su).get('/plans/all')).json()).length).toBeGreaterThanOrEqual(7);
    expect((await (await t.as(c.admin).get('/plans/5')).json()).name).toBe('Empresarial');
    await expectError(await t.as(c.admin).get('/plans/2147483647'), 404, 'ERR_NO_PLAN_FOUND');
    await expectError(await t.as(c.admin).get('/plans/x'), 400, 'ERR_VALIDATION');
    expect((await t.request('GET', '/plans/5')).status).toBe(401);
  });
});

describe('writing', () => {
  test('the super user creates, updates and deletes a plan', async () => {
    const created = await t.as(su).post('/plans', planBody({ useKanban: false }));
    expect(created.status).toBe(201);
    const plan = await created.json();
    expect(plan).toMatchObject({ users: 4, value: 59.9, useKanban: false, useCampaigns: true });
    const upd = await t.as(su).put(`/plans/${plan.id}`, { value: 79 });
    expect(upd.status).toBe(200);
    // A partial update keeps the flags it did not send.
    expect(await upd.json()).toMatchObject({ name: plan.name, value: 79, useKanban: false, users: 4 });
    expect((await t.as(su).del(`/plans/${plan.id}`)).status).toBe(200);
    await expectError(await t.as(su).get(`/plans/${plan.id}`), 404, 'ERR_NO_PLAN_FOUND');
    await expectError(await t.as(su).del(`/plans/${plan.id}`), 404, 'ERR_NO_PLAN_FOUND');
    await expectError(await t.as(su).put(`/plans/${plan.id}`, { value: 1 }), 404, 'ERR_NO_PLAN_FOUND');
  });

  test('non-super users get ERR_NO_PERMISSION on every write', async () => {
    const c = await t.company('PlanWriter');
    await expectError(await t.as(c.admin).post('/plans', planBody()), 403, 'ERR_NO_PERMISSION');
    await expectError(await t.as(c.admin).put('/plans/5', { users: 100000 }), 403, 'ERR_NO_PERMISSION');
    await expectError(await t.as(c.admin).del('/plans/1'), 403, 'ERR_NO_PERMISSION');
    expect((await (await t.as(su).get('/plans/5')).json()).users).toBe(100);
  });

  test('a taken name, in any case, is ERR_PLAN_NAME_ALREADY_EXISTS', async () => {
    const name = unique('Unique ');
    expect((await t.as(su).post('/plans', planBody({ name }))).status).toBe(201);
    for (const other of [name, name.toUpperCase(), ` ${name.toLowerCase()} `])
      await expectError(
        await t.as(su).post('/plans', planBody({ name: other })),
        409,
        'ERR_PLAN_NAME_ALREADY_EXISTS',
      );
    const second = await (await t.as(su).post('/plans', planBody())).json();
    await expectError(
      await t.as(su).put(`/plans/${second.id}`, { name: name.toUpperCase() }),
      409,
      'ERR_PLAN_NAME_ALREADY_EXISTS',
    );
    // Renaming a plan to its own name (other case) is fine.
    expect((await t.as(su).put(`/plans/${second.id}`, { name: second.name.toUpperCase() })).status).toBe(200);
  });

  test('a plan in use cannot be deleted: ERR_PLAN_IN_USE', async () => {
    const plan = await (await t.as(su).post('/plans', planBody())).json();
    const c = await t.company('OnPlan', { planId: plan.id });
    await expectError(await t.as(su).del(`/plans/${plan.id}`), 409, 'ERR_PLAN_IN_USE');
    // The platform company's plan.
    await expectError(await t.as(su).del('/plans/6'), 409, 'ERR_PLAN_IN_USE');
    expect((await t.as(su).put(`/companies/${c.id}`, { planId: 5 })).status).toBe(200);
    expect((await t.as(su).del(`/plans/${plan.id}`)).status).toBe(200);
  });

  test.each([
    ['missing name', { name: undefined }],
    ['short name', { name: 'x' }],
    ['oversize name', { name: 'x'.repeat(51) }],
    ['zero users', { users: 0 }],
    ['fractional users', { users: 1.5 }],
    ['users text', { users: 'many' }],
    ['too many users', { users: 100001 }],
    ['negative value', { value: -1 }],
    ['value text', { value: 'free' }],
    ['flag text', { useKanban: 'yes' }],
  ])('refuses %s with 400 ERR_VALIDATION', async (_, over) => {
    await expectError(await t.as(su).post('/plans', planBody(over)), 400, 'ERR_VALIDATION');
  });
});
