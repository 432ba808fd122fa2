import { describe, expect, test } from 'vitest';
import { eq } from 'drizzle-orm';
import { PLAN_FLAGS, WEEKDAYS } from '@recado/contracts';
import { companies, userSessions, users } from '../../db/schema/index.js';
import { nextEvent, testApp, unique, expectError } from '../../../test/helpers.js';

const t = await testApp();
const db = t.database.db;
const su = await t.superuser();

const companyBody = (over: Record<string, unknown> = {}) => ({
  name: unique('Co '),
  email: `${unique('co')}@co.test`,
  planId: 5,
  dueDate: '2099-01-01',
  ...over,
});
const week = (startTime = '08:00', endTime = '18:00') =>
  WEEKDAYS.map((weekdayEn) => ({ weekday: weekdayEn, weekdayEn, startTime, endTime }));

describe('creating', () => {
  test('the super user creates a company, with an admin who can sign in', async () => {
    const email = `${unique('boss')}@new.test`;
    const res = await t.as(su).post('/companies', {
      ...companyBody({ email, planId: 3, recurrence: 'ANUAL', phone: '(11) 3333-4444' }),
      adminName: 'Boss',
      adminPassword: 'Boss@123',
    });
    expect(res.status).toBe(201);
    const c = await res.json();
    expect(c).toMatchObject({
      planId: 3,
      plan: { id: 3, name: 'Ouro' },
      recurrence: 'ANUAL',
      status: true,
      phone: '1133334444',
      dueDate: '2099-01-01',
    });
    const admin = await t.login(email, 'Boss@123');
    expect(admin.user).toMatchObject({ companyId: c.id, profile: 'admin' });
  });

  test('a non-super admin cannot create, list or page companies', async () => {
    const c = await t.company('NotSuper');
    await expectError(await t.as(c.admin).post('/companies', companyBody()), 403, 'ERR_NO_PERMISSION');
    await expectError(await t.as(c.admin).get('/companies'), 403, 'ERR_NO_PERMISSION');
    await expectError(await t.as(c.admin).get('/companies/list'), 403, 'ERR_NO_PERMISSION');
  });

  test('a name already taken, in any case, is ERR_COMPANY_NAME_ALREADY_EXISTS', async () => {
    const name = unique('Acme ');
    expect((await t.as(su).post('/companies', companyBody({ name }))).status).toBe(201);
    for (const other of [name.toUpperCase(), name.toLowerCase(), `  ${name} `])
      await expectError(
        await t.as(su).post('/companies', companyBody({ name: other })),
        409,
        'ERR_COMPANY_NAME_ALREADY_EXISTS',
      );
    const second = await (await t.as(su).post('/companies', companyBody())).json();
    await expectError(
      await t.as(su).put(`/companies/${second.id}`, { name: name.toUpperCase() }),
      409,
      'ERR_COMPANY_NAME_ALREADY_EXISTS',
    );
  });

  test('an admin e-mail already in use is ERR_EMAIL_ALREADY_EXISTS and creates nothing', async () => {
    const c = await t.company('Taken');
    const name = unique('Twin ');
    const res = await t
      .as(su)
      .post('/companies', { ...companyBody({ name, email: c.adminEmail }), adminPassword: 'Twin@123' });
    await expectError(res, 409, 'ERR_EMAIL_ALREADY_EXISTS');
    expect(await db.select().from(companies).where(eq(companies.name, name))).toHaveLength(0);
  });

  test.each([2147483647, 99999999999, 987654])(
    'planId %s that does not exist is ERR_NO_PLAN_FOUND',
    async (planId) => {
      await expectError(await t.as(su).post('/companies', companyBody({ planId })), 404, 'ERR_NO_PLAN_FOUND');
    },
  );

  test.each([
    ['missing name', { name: undefined }],
    ['short name', { name: 'A' }],
    ['oversize name', { name: 'x'.repeat(51) }],
    ['numeric name', { name: 42 }],
    ['missing planId', { planId: undefined }],
    ['planId text', { planId: 'gold' }],
    ['planId zero', { planId: 0 }],
    ['bad e-mail', { email: 'nope' }],
    ['bad recurrence', { recurrence: 'WEEKLY' }],
    ['status text', { status: 'yes' }],
    ['dueDate text', { dueDate: 'tomorrow' }],
    ['impossible dueDate', { dueDate: '2024-02-30' }],
    ['month 13', { dueDate: '2024-13-01' }],
    ['dueDate with trailing garbage', { dueDate: '2024-01-01garbage' }],
    ['oversize street', { addressStreet: 'x'.repeat(201) }],
    ['admin password too short', { adminPassword: '123' }],
  ])('refuses %s with 400 ERR_VALIDATION', async (_, over) => {
    await expectError(await t.as(su).post('/companies', companyBody(over)), 400, 'ERR_VALIDATION');
  });
});

describe('reading', () => {
  test('pages by 20 with hasMore and searches name and e-mail', async () => {
    const tag = unique('pg');
    await Promise.all(
      Array.from({ length: 22 }, (_, i) =>
        t.as(su).post('/companies', companyBody({ name: `${tag} ${String(i).padStart(2, '0')}` })),
      ),
    );
    const p1 = await (await t.as(su).get(`/companies?searchParam=${tag}`)).json();
    expect(p1.companies).toHaveLength(20);
    expect(p1.hasMore).toBe(true);
    expect(p1.companies[0].name).toBe(`${tag} 00`);
    const p2 = await (await t.as(su).get(`/companies?searchParam=${tag}&pageNumber=2`)).json();
    expect(p2.companies.map((c: { name: string }) => c.name)).toEqual([`${tag} 20`, `${tag} 21`]);
    expect(p2.hasMore).toBe(false);
    const all = await (await t.as(su).get('/companies/list')).json();
    expect(all.filter((c: { name: string }) => c.name.startsWith(tag))).toHaveLength(22);
  });

  test('a company is readable by its own users (any profile) and the super user only', async () => {
    const c = await t.company('Own');
    const u = await t.user(c.admin);
    for (const who of [c.admin, u, su]) {
      const res = await t.as(who).get(`/companies/${c.id}`);
      expect(res.status).toBe(200);
      expect((await res.json()).id).toBe(c.id);
    }
    await expectError(await t.as(su).get('/companies/2147483647'), 404, 'ERR_NO_COMPANY_FOUND');
    await expectError(await t.as(su).get('/companies/abc'), 400, 'ERR_VALIDATION');
    await expectError(await t.as(su).get('/companies/99999999999'), 400, 'ERR_VALIDATION');
  });

  test("/companies/listPlan answers the plan's limits and use* flags", async () => {
    const c = await t.company('Bronze', { planId: 1 });
    const u = await t.user(c.admin);
    const res = await t.as(u).get(`/companies/listPlan/${c.id}`);
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body).toMatchObject({
      id: c.id,
      plan: {
        id: 1,
        name: 'Bronze',
        users: 3,
        connections: 1,
        queues: 3,
        value: 49,
        useCampaigns: false,
        useKanban: true,
        useOpenAi: false,
        useIntegrations: false,
        useSchedules: true,
        useInternalChat: true,
        useExternalApi: false,
      },
    });
    for (const flag of PLAN_FLAGS) expect(typeof body.plan[flag]).toBe('boolean');
    await expectError(await t.as(su).get('/companies/listPlan/2147483647'), 404, 'ERR_NO_COMPANY_FOUND');
  });
});

describe('changing', () => {
  test('a partial update changes only what was sent', async () => {
    const created = await (
      await t
        .as(su)
        .post('/companies', companyBody({ status: false, recurrence: 'TRIMESTRAL', trialPeriod: true }))
    ).json();
    const res = await t.as(su).put(`/companies/${created.id}`, { phone: '11 98765-4321' });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      name: created.name,
      phone: '11987654321',
      status: false,
      recurrence: 'TRIMESTRAL',
      trialPeriod: true,
      dueDate: '2099-01-01',
      planId: 5,
    });
  });

  test('only the super user updates a company; a bad plan is ERR_NO_PLAN_FOUND', async () => {
    const c = await t.company('Upd');
    const socket = await t.socket(c.admin.token);
    await expectError(await t.as(c.admin).put(`/companies/${c.id}`, { planId: 6 }), 403, 'ERR_NO_PERMISSION');
    await expectError(
      await t.as(su).put(`/companies/${c.id}`, { planId: 2147483647 }),
      404,
      'ERR_NO_PLAN_FOUND',
    );
    await expectError(
      await t.as(su).put(`/companies/${c.id}`, { dueDate: '2024-02-31' }),
      400,
      'ERR_VALIDATION',
    );
    await expectError(
      await t.as(su).put('/companies/2147483647', { name: 'Ghost Co' }),
      404,
      'ERR_NO_COMPANY_FOUND',
    );
    const ev = nextEvent<{ action: string; company: { planId: number } }>(socket, `company-${c.id}-company`);
    const res = await t.as(su).put(`/companies/${c.id}`, { planId: 2, dueDate: '2030-05-06' });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ planId: 2, dueDate: '2030-05-06' });
    expect(await ev).toMatchObject({ action: 'update', company: { planId: 2 } });
  });

  test('schedules: 7 distinct days with ##:## times, by its admin or the super user', async () => {
    const c = await t.company('Hours');
    const u = await t.user(c.admin);
    const ok = await t.as(c.admin).put(`/companies/${c.id}/schedules`, { schedules: week() });
    expect(ok.status).toBe(200);
    expect((await ok.json()).schedules).toEqual(week());
    const closedSunday = week().map((d) =>
      d.weekdayEn === 'sunday' ? { ...d, startTime: '', endTime: '' } : d,
    );
    expect((await t.as(su).put(`/companies/${c.id}/schedules`, { schedules: closedSunday })).status).toBe(
      200,
    );
    await expectError(
      await t.as(u).put(`/companies/${c.id}/schedules`, { schedules: week() }),
      403,
      'ERR_NO_PERMISSION',
    );
    const bad = [
      week().slice(0, 6),
      [...week(), week()[0]],
      week().map((d) => ({ ...d, weekdayEn: 'monday' })),
      week('8:00', '18:00'),
      week('24:00', '18:00'),
      week('08:60', '18:00'),
      week('08:00', '18:00:00'),
      week().map((d) => ({ ...d, weekdayEn: 'funday' })),
      'not an array',
      undefined,
    ];
    for (const schedules of bad)
      await expectError(
        await t.as(c.admin).put(`/companies/${c.id}/schedules`, { schedules }),
        400,
        'ERR_VALIDATION',
      );
    const now = await (await t.as(c.admin).get(`/companies/${c.id}`)).json();
    expect(now.schedules).toEqual(closedSunday);
  });
});

describe('deactivating', () => {
  test('a deactivated company is signed out at once and cannot sign in again', async () => {
    const c = await t.company('Paused');
    const u = await t.user(c.admin);
    const socket = await t.socket(u.token);
    const gone = new Promise((r) => socket.once('disconnect', r));
    expect((await t.as(su).put(`/companies/${c.id}`, { status: false })).status).toBe(200);
    await gone;
    await expectError(await t.as(u).get('/auth/me'), 401, 'ERR_SESSION_EXPIRED');
    const res = await t.request('POST', '/auth/login', {
      body: { email: c.adminEmail, password: 'Admin@123' },
    });
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    // Active again: its people sign in as before.
    expect((await t.as(su).put(`/companies/${c.id}`, { status: true })).status).toBe(200);
    expect((await t.login(c.adminEmail, 'Admin@123')).user.companyId).toBe(c.id);
  });
});

describe('deleting', () => {
  test('the super user deletes a company: its users and sessions end at once', async () => {
    const c = await t.company('Doomed');
    const u = await t.user(c.admin);
    const socket = await t.socket(u.token);
    const gone = new Promise((r) => socket.once('disconnect', r));
    await expectError(await t.as(c.admin).del(`/companies/${c.id}`), 403, 'ERR_NO_PERMISSION');
    expect((await t.as(su).del(`/companies/${c.id}`)).status).toBe(200);
    await gone;
    await expectError(await t.as(u).get('/auth/me'), 401, 'ERR_SESSION_EXPIRED');
    await expectError(await t.as(su).get(`/companies/${c.id}`), 404, 'ERR_NO_COMPANY_FOUND');
    expect(await db.select().from(users).where(eq(users.companyId, c.id))).toHaveLength(0);
    expect(await db.select().from(userSessions).where(eq(userSessions.companyId, c.id))).toHaveLength(0);
    // The admin's e-mail is free again.
    expect(
      (
        await t
          .as(su)
          .post('/companies', { ...companyBody({ email: c.adminEmail }), adminPassword: 'Again@123' })
      ).status,
    ).toBe(201);
    await expectError(await t.as(su).del(`/companies/${c.id}`), 404, 'ERR_NO_COMPANY_FOUND');
  });

  test('the super user cannot delete its own company', async () => {
    await expectError(
      await t.as(su).del(`/companies/${su.user.companyId}`),
      400,
      'ERR_CANNOT_DELETE_OWN_COMPANY',
    );
    expect((await t.as(su).get('/auth/me')).status).toBe(200);
  });

  test("no super user can delete the platform's company (any company holding a super user)", async () => {
    // A second platform owner in another company: neither may delete the other's company.
    const other = await t.company('PlatformTwin');
    await db.update(users).set({ super: true }).where(eq(users.id, other.admin.user.id));
    await expectError(
      await t.as(su).del(`/companies/${other.id}`),
      400,
      'ERR_CANNOT_DELETE_PLATFORM_COMPANY',
    );
    const twin = await t.login(other.adminEmail, 'Admin@123');
    await expectError(
      await t.as(twin).del(`/companies/${su.user.companyId}`),
      400,
      'ERR_CANNOT_DELETE_PLATFORM_COMPANY',
    );
    expect((await t.as(su).get(`/companies/${other.id}`)).status).toBe(200);
  });
});
