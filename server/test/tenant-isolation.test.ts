import { beforeAll, describe, expect, test } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { WEEKDAYS } from '@recado/contracts';
import { queues, settings, userQueues, users } from '../src/db/schema/index.js';
import { collectEvents, nextEvent, testApp, unique, type Session } from './helpers.js';

/** Company B's admin attacks company A by every door the foundation has. Nothing of A may move or leak. */
const t = await testApp();
const db = t.database.db;

let a: { id: number; admin: Session; adminEmail: string };
let b: { id: number; admin: Session; adminEmail: string };
let aUser: { id: number; email: string; name: string };
let aQueue: number;

const week = (startTime = '08:00', endTime = '18:00') =>
  WEEKDAYS.map((weekdayEn) => ({ weekday: weekdayEn, weekdayEn, startTime, endTime }));

beforeAll(async () => {
  a = await t.company('TenantA');
  b = await t.company('TenantB');
  const res = await t.as(a.admin).post('/users', {
    name: 'Alice of A',
    email: `${unique('alice')}@a.test`,
    password: 'Alice@123',
  });
  aUser = await res.json();
  const [q] = await db
    .insert(queues)
    .values({ companyId: a.id, name: 'A sales', color: '#aa0000' })
    .returning({ id: queues.id });
  aQueue = q!.id;
});

describe("another company's users", () => {
  test('cannot be read', async () => {
    const res = await t.as(b.admin).get(`/users/${aUser.id}`);
    expect(res.status).toBe(404);
    expect((await res.json()).error).toBe('ERR_NO_USER_FOUND');
  });

  test('are never listed nor found by search', async () => {
    const page = await (await t.as(b.admin).get('/users/?searchParam=alice')).json();
    expect(page.users).toEqual([]);
    const all = await (await t.as(b.admin).get('/users/list')).json();
    expect(all.map((u: { companyId: number }) => u.companyId)).toEqual([b.id]);
    const unfiltered = await (await t.as(b.admin).get('/users/')).json();
    expect(unfiltered.users.every((u: { companyId: number }) => u.companyId === b.id)).toBe(true);
  });

  test('cannot be changed, and nothing of them moves', async () => {
    for (const body of [{ name: 'Pwned' }, { password: 'pwned1' }, { email: `${unique('x')}@b.test` }, {}]) {
      const res = await t.as(b.admin).put(`/users/${aUser.id}`, body);
      expect(res.status).toBe(404);
    }
    const [row] = await db.select().from(users).where(eq(users.id, aUser.id));
    expect(row).toMatchObject({ name: 'Alice of A', email: aUser.email, companyId: a.id });
    await t.login(aUser.email, 'Alice@123');
  });

  test('cannot be deleted', async () => {
    const res = await t.as(b.admin).del(`/users/${aUser.id}`);
    expect(res.status).toBe(404);
    expect(await db.select().from(users).where(eq(users.id, aUser.id))).toHaveLength(1);
  });

  test("A's admin cannot be reached either, nor its sessions ended", async () => {
    expect((await t.as(b.admin).put(`/users/${a.admin.user.id}`, { profile: 'user' })).status).toBe(404);
    expect((await t.as(b.admin).del(`/users/${a.admin.user.id}`)).status).toBe(404);
    expect((await t.as(a.admin).get('/auth/me')).status).toBe(200);
  });
});

describe("another company's queues", () => {
  test('cannot be linked on create', async () => {
    const res = await t.as(b.admin).post('/users', {
      name: 'Queue thief',
      email: `${unique('thief')}@b.test`,
      password: 'Thief@123',
      queueIds: [aQueue],
    });
    expect(res.status).toBe(400);
    expect((await res.json()).error).toBe('ERR_VALIDATION');
    // Refused as a whole: no user was created half-way.
    const rows = await db.select().from(users).where(eq(users.name, 'Queue thief'));
    expect(rows).toHaveLength(0);
  });

  test('cannot be linked on update, even mixed with an own queue', async () => {
    const [own] = await db
      .insert(queues)
      .values({ companyId: b.id, name: 'B sales', color: '#bb0000' })
      .returning({ id: queues.id });
    const res = await t.as(b.admin).put(`/users/${b.admin.user.id}`, { queueIds: [own!.id, aQueue] });
    expect(res.status).toBe(400);
    const links = await db.select().from(userQueues).where(eq(userQueues.queueId, aQueue));
    expect(links).toHaveLength(0);
    const ok = await t.as(b.admin).put(`/users/${b.admin.user.id}`, { queueIds: [own!.id] });
    expect(ok.status).toBe(200);
  });
});

describe("another company's settings", () => {
  test('are neither read nor changed: every setting route acts on the caller’s own company', async () => {
    await t.as(a.admin).put('/settings/userRating', { value: 'enabled' });
    const seen = await (await t.as(b.admin).get('/settings')).json();
    expect(seen.find((s: { key: string }) => s.key === 'userRating').value).toBe('disabled');
    expect((await (await t.as(b.admin).get('/settings/userRating')).json()).value).toBe('disabled');

    expect((await t.as(b.admin).put('/settings/userRating', { value: 'disabled' })).status).toBe(200);
    expect((await t.as(b.admin).put('/settings/chatBotType', { value: 'list' })).status).toBe(200);
    const [aRating] = await db
      .select()
      .from(settings)
      .where(and(eq(settings.companyId, a.id), eq(settings.key, 'userRating')));
    expect(aRating!.value).toBe('enabled');
    const aList = await (await t.as(a.admin).get('/settings')).json();
    expect(aList.find((s: { key: string }) => s.key === 'chatBotType').value).toBe('text');
  });
});

describe("another company's record", () => {
  test('cannot be read', async () => {
    for (const path of [`/companies/${a.id}`, `/companies/listPlan/${a.id}`]) {
      const res = await t.as(b.admin).get(path);
      expect(res.status).toBe(404);
      expect((await res.json()).error).toBe('ERR_NO_COMPANY_FOUND');
    }
    for (const path of ['/companies', '/companies/list']) {
      const res = await t.as(b.admin).get(path);
      expect(res.status).toBe(403);
      expect((await res.json()).error).toBe('ERR_NO_PERMISSION');
    }
  });

  test('cannot be changed or deleted', async () => {
    const before = await (await t.as(a.admin).get(`/companies/${a.id}`)).json();
    const sched = await t
      .as(b.admin)
      .put(`/companies/${a.id}/schedules`, { schedules: week('00:00', '00:01') });
    expect(sched.status).toBe(404);
    expect((await t.as(b.admin).put(`/companies/${a.id}`, { name: 'Pwned Inc' })).status).toBe(403);
    expect((await t.as(b.admin).del(`/companies/${a.id}`)).status).toBe(403);
    const after = await (await t.as(a.admin).get(`/companies/${a.id}`)).json();
    expect(after).toEqual(before);
  });
});

describe("another company's live events", () => {
  test('never reach B, whatever it asks to join', async () => {
    const sb = await t.socket(b.admin.token);
    const sa = await t.socket(a.admin.token);
    const asks = [
      `company-${a.id}`,
      `company-${a.id}-admins`,
      `company-${a.id}-user-${aUser.id}`,
      `company-${a.id}-notification`,
      `company-${a.id}-tickets-open`,
      `company-${a.id}-ticket-1`,
      `session-${a.admin.user.id}`,
      'platform-super',
      { room: `company-${a.id}` },
      [`company-${a.id}`],
    ];
    const acks: unknown[] = [];
    for (const room of asks) acks.push(await sb.timeout(1000).emitWithAck('join', room));
    expect(acks).toEqual(asks.map(() => ({ ok: false })));
    const rooms = ((await sb.timeout(1000).emitWithAck('ready')) as { rooms: string[] }).rooms;
    expect(rooms.some((r) => r.includes(`company-${a.id}`) || r === 'platform-super')).toBe(false);

    const leaked: string[] = [];
    sb.onAny((name: string) => {
      if (name.startsWith(`company-${a.id}-`)) leaked.push(name);
    });
    const bOwn = collectEvents(sb, `company-${b.id}-settings`, 500);
    const aGets = Promise.all([
      nextEvent(sa, `company-${a.id}-user`),
      nextEvent(sa, `company-${a.id}-settings`),
      nextEvent(sa, `company-${a.id}-company`),
    ]);
    await t.as(a.admin).put(`/users/${aUser.id}`, { name: 'Alice Renamed' });
    await t.as(a.admin).put('/settings/call', { value: 'disabled' });
    await t.as(a.admin).put(`/companies/${a.id}/schedules`, { schedules: week() });
    await aGets;
    await new Promise((r) => setTimeout(r, 200));
    expect(leaked).toEqual([]);
    expect(await bOwn).toEqual([]);
  });
});
