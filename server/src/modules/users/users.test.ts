import { describe, expect, test } from 'vitest';
import { eq } from 'drizzle-orm';
import { queues, users } from '../../db/schema/index.js';
import {
  collectEvents,
  nextEvent,
  testApp,
  unique,
  type Session,
  expectError,
} from '../../../test/helpers.js';

const t = await testApp();
const db = t.database.db;
/** For cases that change nothing: validation failures and bad ids. */
const shared = await t.company('Shared');

const newUser = (over: Record<string, unknown> = {}) => ({
  name: unique('User '),
  email: `${unique('u')}@users.test`,
  password: 'User@123',
  ...over,
});

const createUser = async (admin: Session, over: Record<string, unknown> = {}) => {
  const res = await t.as(admin).post('/users', newUser(over));
  expect(res.status).toBe(201);
  return res.json();
};

const insertQueue = async (companyId: number, name = unique('Q')) => {
  const [q] = await db
    .insert(queues)
    .values({ companyId, name, color: `#${unique('').slice(-6)}` })
    .returning({ id: queues.id });
  return q!.id;
};

describe('listing', () => {
  test('pages by 20 with hasMore, ordered by name, and searches name and e-mail', async () => {
    const c = await t.company('Many', { planId: 5 });
    const tag = unique('zz');
    // 24 users + the admin: page 1 has 20 and more, page 2 has the rest.
    await Promise.all(
      Array.from({ length: 24 }, (_, i) =>
        createUser(c.admin, {
          name: `Person ${String(i).padStart(2, '0')}`,
          email: `${tag}${i}@many.test`,
        }),
      ),
    );
    const p1 = await (await t.as(c.admin).get('/users/?pageNumber=1')).json();
    expect(p1.users).toHaveLength(20);
    expect(p1.hasMore).toBe(true);
    const names = p1.users.map((u: { name: string }) => u.name);
    expect(names).toEqual([...names].sort());
    const p2 = await (await t.as(c.admin).get('/users/?pageNumber=2')).json();
    expect(p2.users).toHaveLength(5);
    expect(p2.hasMore).toBe(false);
    const ids = new Set([...p1.users, ...p2.users].map((u: { id: number }) => u.id));
    expect(ids.size).toBe(25);
    expect(JSON.stringify(p1)).not.toContain('passwordHash');

    const byName = await (await t.as(c.admin).get('/users/?searchParam=PERSON%2007')).json();
    expect(byName.users.map((u: { name: string }) => u.name)).toEqual(['Person 07']);
    const byEmail = await (await t.as(c.admin).get(`/users/?searchParam=${tag}1`)).json();
    // tag1, tag10..tag19
    expect(byEmail.users).toHaveLength(11);
    expect(byEmail.hasMore).toBe(false);
    // LIKE wildcards are literal.
    const wild = await (await t.as(c.admin).get('/users/?searchParam=%25')).json();
    expect(wild.users).toHaveLength(0);

    const all = await (await t.as(c.admin).get('/users/list')).json();
    expect(all).toHaveLength(25);
  });

  test('a plain user can list and read the users of the company', async () => {
    const c = await t.company('Readers');
    const u = await t.user(c.admin);
    expect((await t.as(u).get('/users/list')).status).toBe(200);
    const res = await t.as(u).get(`/users/${c.admin.user.id}`);
    expect(res.status).toBe(200);
    expect((await res.json()).email).toBe(c.adminEmail);
  });

  test.each([
    ['/users/abc', 400, 'ERR_VALIDATION'],
    ['/users/-1', 400, 'ERR_VALIDATION'],
    ['/users/0', 400, 'ERR_VALIDATION'],
    ['/users/1.5', 400, 'ERR_VALIDATION'],
    ['/users/99999999999', 400, 'ERR_VALIDATION'],
    ['/users/2147483647', 404, 'ERR_NO_USER_FOUND'],
    ['/users/?pageNumber=0', 400, 'ERR_VALIDATION'],
    ['/users/?pageNumber=abc', 400, 'ERR_VALIDATION'],
    [`/users/?searchParam=${'x'.repeat(101)}`, 400, 'ERR_VALIDATION'],
  ])('GET %s answers %i %s', async (path, status, code) => {
    await expectError(await t.as(shared.admin).get(path), status, code);
  });
});

describe('creating', () => {
  test('creates with queues and answers the user without secrets', async () => {
    const c = await t.company('Create');
    const q = await insertQueue(c.id, 'Sales');
    const body = await createUser(c.admin, { profile: 'supervisor', queueIds: [q, q] });
    expect(body).toMatchObject({ profile: 'supervisor', companyId: c.id, super: false });
    expect(body.queues).toEqual([expect.objectContaining({ id: q, name: 'Sales' })]);
    expect(JSON.stringify(body)).not.toMatch(/password/i);
    // The new user can sign in.
    await t.login(body.email, 'User@123');
  });

  test.each([
    ['missing name', { name: undefined }],
    ['missing e-mail', { email: undefined }],
    ['missing password', { password: undefined }],
    ['numeric name', { name: 12345 }],
    ['short name', { name: 'A' }],
    ['oversize name', { name: 'x'.repeat(51) }],
    ['oversize e-mail', { email: `${'x'.repeat(120)}@a.test` }],
    ['bad e-mail', { email: 'not-an-email' }],
    ['short password', { password: '1234' }],
    ['oversize password', { password: 'x'.repeat(51) }],
    ['bad profile', { profile: 'root' }],
    ['bad allTicket', { allTicket: 'yes' }],
    ['string showQueuelessTickets', { showQueuelessTickets: 'maybe' }],
    ['queueIds not an array', { queueIds: 'abc' }],
    ['negative queue id', { queueIds: [-1] }],
    ['too many queue ids', { queueIds: Array.from({ length: 501 }, (_, i) => i + 1) }],
    ['out-of-range queue id', { queueIds: [99999999999] }],
    ['unknown queue id', { queueIds: [2147483647] }],
    ['out-of-range whatsappId', { whatsappId: 99999999999 }],
  ])('refuses %s with 400 ERR_VALIDATION', async (_, over) => {
    const res = await t.as(shared.admin).post('/users', newUser(over));
    await expectError(res, 400, 'ERR_VALIDATION');
  });

  test('refuses a body that is not an object, or not JSON', async () => {
    for (const body of [[], 'null', '"x"', '{bad']) {
      const res = await t.request('POST', '/users', { token: shared.admin.token, body });
      await expectError(res, 400, 'ERR_VALIDATION');
    }
  });

  test('an e-mail already used anywhere (any case) is ERR_EMAIL_ALREADY_EXISTS', async () => {
    const a = await t.company('DupA');
    const b = await t.company('DupB');
    const first = await createUser(a.admin);
    await expectError(
      await t.as(a.admin).post('/users', newUser({ email: first.email.toUpperCase() })),
      409,
      'ERR_EMAIL_ALREADY_EXISTS',
    );
    await expectError(
      await t.as(b.admin).post('/users', newUser({ email: first.email })),
      409,
      'ERR_EMAIL_ALREADY_EXISTS',
    );
    // ... also when changing the e-mail of an existing user.
    const other = await createUser(a.admin);
    await expectError(
      await t.as(a.admin).put(`/users/${other.id}`, { email: first.email }),
      409,
      'ERR_EMAIL_ALREADY_EXISTS',
    );
  });

  test("the plan's user limit holds: plan 7 allows 3 users", async () => {
    const c = await t.company('Limit', { planId: 7 });
    await createUser(c.admin);
    await createUser(c.admin);
    const res = await t.as(c.admin).post('/users', newUser());
    const body = await expectError(res, 403, 'ERR_USER_LIMIT_REACHED');
    expect(body.message).toContain('3');
    // Deleting one frees a place.
    const list = await (await t.as(c.admin).get('/users/list')).json();
    const victim = list.find((u: { id: number }) => u.id !== c.admin.user.id);
    expect((await t.as(c.admin).del(`/users/${victim.id}`)).status).toBe(200);
    await createUser(c.admin);
  });

  test('5 concurrent creations at the limit never exceed it', async () => {
    const c = await t.company('Race', { planId: 7 });
    const results = await Promise.all(
      Array.from({ length: 5 }, () => t.as(c.admin).post('/users', newUser())),
    );
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([201, 201, 403, 403, 403]);
    for (const r of results.filter((x) => x.status === 403))
      expect((await r.json()).error).toBe('ERR_USER_LIMIT_REACHED');
    const rows = await db.select({ id: users.id }).from(users).where(eq(users.companyId, c.id));
    expect(rows).toHaveLength(3);
  });

  test('the super user creates in a named company; an unknown company is ERR_NO_COMPANY_FOUND', async () => {
    const c = await t.company('BySuper', { planId: 7 });
    const su = await t.superuser();
    const res = await t.as(su).post('/users', newUser({ companyId: c.id, profile: 'admin' }));
    expect(res.status).toBe(201);
    expect(await res.json()).toMatchObject({ companyId: c.id, profile: 'admin' });
    // The target company's plan limit applies to the super user too.
    await createUser(c.admin);
    await expectError(
      await t.as(su).post('/users', newUser({ companyId: c.id })),
      403,
      'ERR_USER_LIMIT_REACHED',
    );
    for (const companyId of [2147483647, 99999999999])
      await expectError(await t.as(su).post('/users', newUser({ companyId })), 404, 'ERR_NO_COMPANY_FOUND');
  });

  test('an admin cannot make a super user nor create in another company', async () => {
    const a = await t.company('NoSuper');
    const b = await t.company('NoSuperOther');
    const body = await createUser(a.admin, { super: true, companyId: b.id });
    expect(body.super).toBe(false);
    expect(body.companyId).toBe(a.id);
  });
});

describe('permissions', () => {
  test('a plain user or supervisor cannot create, edit others or delete', async () => {
    const c = await t.company('Perms');
    const other = await createUser(c.admin);
    for (const profile of ['user', 'supervisor'] as const) {
      const u = await t.user(c.admin, profile);
      await expectError(await t.as(u).post('/users', newUser()), 403, 'ERR_NO_PERMISSION');
      await expectError(
        await t.as(u).put(`/users/${other.id}`, { name: 'Hacked' }),
        403,
        'ERR_NO_PERMISSION',
      );
      await expectError(await t.as(u).del(`/users/${other.id}`), 403, 'ERR_NO_PERMISSION');
      await expectError(
        await t.as(u).put(`/users/${c.admin.user.id}`, { password: 'owned1' }),
        403,
        'ERR_NO_PERMISSION',
      );
    }
    const still = await (await t.as(c.admin).get(`/users/${other.id}`)).json();
    expect(still.name).toBe(other.name);
  });

  test('a user editing self changes name, e-mail and password only', async () => {
    const c = await t.company('SelfEdit');
    const u = await t.user(c.admin);
    const q = await insertQueue(c.id);
    const email = `${unique('self')}@users.test`;
    const res = await t.as(u).put(`/users/${u.user.id}`, {
      name: 'New Name',
      email,
      password: 'Newpass1',
      profile: 'admin',
      allTicket: 'enabled',
      showQueuelessTickets: false,
      queueIds: [q],
      super: true,
    });
    expect(res.status).toBe(200);
    const me = await (await t.as(c.admin).get(`/users/${u.user.id}`)).json();
    expect(me).toMatchObject({
      name: 'New Name',
      email,
      profile: 'user',
      allTicket: 'desabled',
      showQueuelessTickets: true,
      super: false,
      queues: [],
    });
    await t.login(email, 'Newpass1');
    // And the session still acts as a plain user.
    const again = await t.login(email, 'Newpass1');
    await expectError(await t.as(again).post('/users', newUser()), 403, 'ERR_NO_PERMISSION');
  });

  test('an admin cannot demote self, nor delete self', async () => {
    const c = await t.company('SelfAdmin');
    const res = await t.as(c.admin).put(`/users/${c.admin.user.id}`, { profile: 'user' });
    expect(res.status).toBe(200);
    expect((await res.json()).profile).toBe('admin');
    await expectError(await t.as(c.admin).del(`/users/${c.admin.user.id}`), 400, 'ERR_CANNOT_DELETE_SELF');
  });

  test('a partial update changes only what was sent', async () => {
    const c = await t.company('Partial');
    const q = await insertQueue(c.id);
    const u = await createUser(c.admin, {
      profile: 'admin',
      allTicket: 'enabled',
      showQueuelessTickets: false,
      queueIds: [q],
    });
    const res = await t.as(c.admin).put(`/users/${u.id}`, { name: 'Renamed' });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      name: 'Renamed',
      email: u.email,
      profile: 'admin',
      allTicket: 'enabled',
      showQueuelessTickets: false,
      queues: [expect.objectContaining({ id: q })],
    });
    // An empty password keeps the old one.
    expect((await t.as(c.admin).put(`/users/${u.id}`, { password: '' })).status).toBe(200);
    await t.login(u.email, 'User@123');
  });

  test('an admin changes profile and queues; a demotion takes effect on the live token', async () => {
    const c = await t.company('Promote');
    const q1 = await insertQueue(c.id);
    const q2 = await insertQueue(c.id);
    const s = await t.user(c.admin, 'admin');
    const res = await t.as(c.admin).put(`/users/${s.user.id}`, { profile: 'user', queueIds: [q2, q1] });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.profile).toBe('user');
    expect(body.queues.map((x: { id: number }) => x.id).sort()).toEqual([q1, q2].sort());
    await expectError(await t.as(s).post('/users', newUser()), 403, 'ERR_NO_PERMISSION');
    // Clearing queues.
    const cleared = await (await t.as(c.admin).put(`/users/${s.user.id}`, { queueIds: [] })).json();
    expect(cleared.queues).toEqual([]);
  });

  test('PUT validates the body and the id', async () => {
    const c = await t.company('PutValid');
    const u = await createUser(c.admin);
    for (const body of [{ name: 'x' }, { email: 'bad' }, { profile: 'god' }, { password: '123' }])
      await expectError(await t.as(c.admin).put(`/users/${u.id}`, body), 400, 'ERR_VALIDATION');
    await expectError(await t.as(c.admin).put('/users/abc', { name: 'Okay' }), 400, 'ERR_VALIDATION');
    await expectError(
      await t.as(c.admin).put('/users/2147483647', { name: 'Okay' }),
      404,
      'ERR_NO_USER_FOUND',
    );
    await expectError(await t.as(c.admin).del('/users/2147483647'), 404, 'ERR_NO_USER_FOUND');
  });
});

describe('deleting', () => {
  test("deleting a user ends that user's sessions and disconnects its sockets", async () => {
    const c = await t.company('Delete');
    const u = await t.user(c.admin);
    const socket = await t.socket(u.token);
    const gone = new Promise((r) => socket.once('disconnect', r));
    expect((await t.as(u).get('/auth/me')).status).toBe(200);
    expect((await t.as(c.admin).del(`/users/${u.user.id}`)).status).toBe(200);
    await gone;
    await expectError(await t.as(u).get('/auth/me'), 401, 'ERR_SESSION_EXPIRED');
    expect((await t.request('POST', '/auth/refresh_token', { cookie: u.cookie })).status).toBe(401);
    await expectError(await t.as(c.admin).get(`/users/${u.user.id}`), 404, 'ERR_NO_USER_FOUND');
  });
});

describe('language', () => {
  test('sets the caller’s language; refuses unknown ones', async () => {
    const c = await t.company('Lang');
    const u = await t.user(c.admin);
    const res = await t.as(u).post('/users/set-language/es');
    expect(res.status).toBe(200);
    expect((await (await t.as(u).get('/auth/me')).json()).language).toBe('es');
    await expectError(await t.as(u).post('/users/set-language/fr'), 400, 'ERR_VALIDATION');
  });
});

describe('live events', () => {
  test('create, update and delete reach every socket of the company', async () => {
    const c = await t.company('Live');
    const u = await t.user(c.admin);
    const adminSocket = await t.socket(c.admin.token);
    const userSocket = await t.socket(u.token);
    const event = `company-${c.id}-user`;
    type UserEvent = { action: string; user?: { id: number; name: string; email: string }; userId?: number };

    let seen = Promise.all([
      nextEvent<UserEvent>(adminSocket, event),
      nextEvent<UserEvent>(userSocket, event),
    ]);
    const created = await createUser(c.admin);
    for (const ev of await seen) {
      expect(ev).toMatchObject({ action: 'create', user: { id: created.id, email: created.email } });
      expect(JSON.stringify(ev)).not.toMatch(/password/i);
    }

    seen = Promise.all([nextEvent<UserEvent>(adminSocket, event), nextEvent<UserEvent>(userSocket, event)]);
    await t.as(c.admin).put(`/users/${created.id}`, { name: 'Live Renamed' });
    for (const ev of await seen)
      expect(ev).toMatchObject({ action: 'update', user: { name: 'Live Renamed' } });

    seen = Promise.all([nextEvent<UserEvent>(adminSocket, event), nextEvent<UserEvent>(userSocket, event)]);
    await t.as(c.admin).del(`/users/${created.id}`);
    for (const ev of await seen) expect(ev).toMatchObject({ action: 'delete', userId: created.id });
  });

  test('a failed change emits nothing', async () => {
    const c = await t.company('Quiet', { planId: 7 });
    await createUser(c.admin);
    await createUser(c.admin);
    const socket = await t.socket(c.admin.token);
    const seen = collectEvents(socket, `company-${c.id}-user`, 400);
    expect((await t.as(c.admin).post('/users', newUser())).status).toBe(403);
    expect(await seen).toHaveLength(0);
  });
});

test('a default connection of another company is refused', async () => {
  const a = await t.company('UWa');
  const b = await t.company('UWb');
  const foreign = await (
    await t.as(b.admin).post('/whatsapp', { name: 'Foreign', channel: 'simulator' })
  ).json();
  const own = await (await t.as(a.admin).post('/whatsapp', { name: 'Own', channel: 'simulator' })).json();
  const bad = await t.as(a.admin).post('/users', {
    name: 'Ze',
    email: `${unique('ze')}@x.test`,
    password: 'abcde',
    whatsappId: foreign.id,
  });
  expect(bad.status).toBe(404);
  expect((await bad.json()).error).toBe('ERR_NO_WAPP_FOUND');
  const ok = await t
    .as(a.admin)
    .post('/users', { name: 'Ze', email: `${unique('ze')}@x.test`, password: 'abcde', whatsappId: own.id });
  expect(ok.status).toBe(201);
  const u = await ok.json();
  expect((await t.as(a.admin).put(`/users/${u.id}`, { whatsappId: foreign.id })).status).toBe(404);
});
