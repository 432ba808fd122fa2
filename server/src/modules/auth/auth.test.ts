import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { eq } from 'drizzle-orm';
import { SignJWT } from 'jose';
import { userSessions } from '../../db/schema/index.js';
import { tokenService } from '../../lib/tokens.js';
import { SUPER, collectEvents, expectError, nextEvent, testApp, unique } from '../../../test/helpers.js';

const t = await testApp();

const signupBody = (over: Record<string, unknown> = {}) => ({
  name: unique('Loja '),
  email: `${unique('owner')}@shop.test`,
  phone: '(11) 98888-7777',
  document: '529.982.247-25',
  password: 'secret1',
  ...over,
});

describe('login', () => {
  test('answers a token and the user with company, plan flags and settings', async () => {
    const s = await t.login(SUPER.email, SUPER.password);
    expect(s.token).toMatch(/^ey/);
    const me = await t.as(s).get('/auth/me');
    expect(me.status).toBe(200);
    const user = await me.json();
    expect(user).toMatchObject({ email: SUPER.email, super: true, profile: 'admin' });
    expect(user.company.plan).toHaveProperty('useKanban');
    expect(user.company.settings.find((x: { key: string }) => x.key === 'sendGreetingAccepted')).toBeTruthy();
    expect(JSON.stringify(user)).not.toContain('passwordHash');
  });

  test('wrong password and unknown e-mail both give ERR_INVALID_CREDENTIALS', async () => {
    for (const body of [
      { email: SUPER.email, password: 'nope' },
      { email: 'ghost@x.test', password: 'nope' },
    ]) {
      const res = await t.request('POST', '/auth/login', { body });
      expect(res.status).toBe(401);
      expect((await res.json()).error).toBe('ERR_INVALID_CREDENTIALS');
    }
  });

  test('bad input is a 400 with the field list, never a 500', async () => {
    for (const body of [
      {},
      { email: 'not-an-email', password: 'x' },
      { email: 5, password: [] },
      '{bad json',
    ]) {
      const res = await t.request('POST', '/auth/login', { body });
      expect(res.status).toBe(400);
      expect((await res.json()).error).toBe('ERR_VALIDATION');
    }
  });

  test('the refresh cookie is httpOnly and rotates; the old one dies after rotation', async () => {
    const c = await t.company('Rot');
    const res1 = await t.request('POST', '/auth/refresh_token', { cookie: c.admin.cookie });
    expect(res1.status).toBe(200);
    const setCookie = res1.headers.get('set-cookie') ?? '';
    expect(setCookie).toMatch(/HttpOnly/i);
    const newCookie = setCookie.split(';')[0]!;
    expect(newCookie).not.toBe(c.admin.cookie);
    const body = await res1.json();
    expect((await t.request('GET', '/auth/me', { token: body.token })).status).toBe(200);
    // The new cookie works.
    expect((await t.request('POST', '/auth/refresh_token', { cookie: newCookie })).status).toBe(200);
    // No cookie at all: 401.
    expect((await t.request('POST', '/auth/refresh_token')).status).toBe(401);
  });

  test('logout revokes the session: the token and the cookie stop working', async () => {
    const c = await t.company('Out');
    expect((await t.as(c.admin).del('/auth/logout')).status).toBe(200);
    expect((await t.as(c.admin).get('/auth/me')).status).toBe(401);
    expect((await t.request('POST', '/auth/refresh_token', { cookie: c.admin.cookie })).status).toBe(401);
  });

  test('a new login ends the older session and tells its browser', async () => {
    const c = await t.company('Twice');
    const oldSocket = await t.socket(c.admin.token);
    const authEvent = nextEvent<{ action: string; user: { id: number }; sessionId: string }>(
      oldSocket,
      `company-${c.id}-auth`,
    );
    const disconnected = new Promise((r) => oldSocket.once('disconnect', r));
    const second = await t.login(c.adminEmail, 'Admin@123');
    const ev = await authEvent;
    expect(ev.user.id).toBe(c.admin.user.id);
    await disconnected;
    expect((await t.as(c.admin).get('/auth/me')).status).toBe(401);
    expect((await t.as(second).get('/auth/me')).status).toBe(200);
  });

  test('a session ended by a login elsewhere says so: ERR_SESSION_REPLACED on its token, refresh and socket', async () => {
    const c = await t.company('Elsewhere');
    await t.login(c.adminEmail, 'Admin@123');
    await expectError(await t.as(c.admin).get('/auth/me'), 401, 'ERR_SESSION_REPLACED');
    await expectError(
      await t.request('POST', '/auth/refresh_token', { cookie: c.admin.cookie }),
      401,
      'ERR_SESSION_REPLACED',
    );
    await expect(t.socket(c.admin.token)).rejects.toThrow('ERR_SESSION_REPLACED');
    // A session that ended otherwise (logout) keeps the plain answer.
    const other = await t.company('LoggedOut');
    expect((await t.as(other.admin).del('/auth/logout')).status).toBe(200);
    await expectError(await t.as(other.admin).get('/auth/me'), 401, 'ERR_SESSION_EXPIRED');
    await expectError(
      await t.request('POST', '/auth/refresh_token', { cookie: other.admin.cookie }),
      401,
      'ERR_SESSION_EXPIRED',
    );
    await expect(t.socket(other.admin.token)).rejects.toThrow('ERR_INVALID_TOKEN');
  });

  test('failed logins are limited per address, whatever the e-mail', async () => {
    const limited = await testApp({ loginLimit: 3 });
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++)
      statuses.push(
        (await limited.request('POST', '/auth/login', { body: { email: 'x@y.test', password: 'bad' } }))
          .status,
      );
    expect(statuses.slice(0, 3)).toEqual([401, 401, 401]);
    expect(statuses[4]).toBe(429);
    // Another e-mail from the same address is limited too (login-limits.test.ts covers the rest).
    expect(
      (await limited.request('POST', '/auth/login', { body: { email: 'z@y.test', password: 'bad' } })).status,
    ).toBe(429);
  });
});

describe('signup', () => {
  test('creates a trial company on plan 7 with recurrence MENSAL and a due date 3 days out', async () => {
    const body = signupBody();
    const res = await t.request('POST', '/companies/cadastro', {
      body: { ...body, dueDate: '2999-01-01', trialPeriod: false },
    });
    expect(res.status).toBe(201);
    const company = await res.json();
    expect(company).toMatchObject({
      planId: 7,
      recurrence: 'MENSAL',
      trialPeriod: true,
      status: true,
      document: '52998224725',
    });
    const due = new Date(company.dueDate).getTime();
    expect(Math.round((due - Date.now()) / 86400000)).toBeGreaterThanOrEqual(2);
    expect(Math.round((due - Date.now()) / 86400000)).toBeLessThanOrEqual(3);
    const s = await t.login(body.email, body.password);
    expect(s.user.profile).toBe('admin');
  });

  test('signs the new admin in (token + refresh cookie), names them apart from the company, keeps the chosen plan', async () => {
    const body = signupBody({ adminName: 'Júlia Dona', planId: 3 });
    const res = await t.request('POST', '/companies/cadastro', { body });
    expect(res.status).toBe(201);
    const answer = await res.json();
    expect(answer).toMatchObject({ name: body.name, planId: 3, trialPeriod: true });
    expect(answer.user).toMatchObject({ name: 'Júlia Dona', email: body.email, profile: 'admin' });
    expect(answer.user.company).toMatchObject({ id: answer.id, planId: 3 });
    // The session works at once, and its refresh cookie too.
    const me = await t.request('GET', '/auth/me', { token: answer.token });
    expect(me.status).toBe(200);
    expect((await me.json()).company.plan.name).toBe('Ouro');
    const cookie = (res.headers.get('set-cookie') ?? '').split(';')[0]!;
    expect(res.headers.get('set-cookie')).toMatch(/HttpOnly/i);
    expect((await t.request('POST', '/auth/refresh_token', { cookie })).status).toBe(200);
    // Another company's admin cannot read the new company.
    const other = await t.company('Vizinha');
    await expectError(await t.as(other.admin).get(`/companies/${answer.id}`), 404, 'ERR_NO_COMPANY_FOUND');
  });

  test("the spec's request shape still works: no admin name (the company's is used), the plan as `plan`", async () => {
    const body = signupBody({ plan: 2 });
    const res = await t.request('POST', '/companies/cadastro', { body });
    expect(res.status).toBe(201);
    const answer = await res.json();
    expect(answer.planId).toBe(2);
    expect(answer.user.name).toBe(body.name);
    const hidden = signupBody({ plan: { id: 6 } });
    await expectError(
      await t.request('POST', '/companies/cadastro', { body: hidden }),
      404,
      'ERR_NO_PLAN_FOUND',
    );
    const short = signupBody({ adminName: 'J' });
    await expectError(await t.request('POST', '/companies/cadastro', { body: short }), 400, 'ERR_VALIDATION');
  });

  test.each([
    ['invalid CPF', { document: '529.982.247-26' }],
    ['all-equal CPF', { document: '111.111.111-11' }],
    ['invalid CNPJ', { document: '11.222.333/0001-82' }],
    ['short name', { name: 'A' }],
    ['long name', { name: 'x'.repeat(51) }],
    ['short password', { password: '1234' }],
    ['bad e-mail', { email: 'nope' }],
    ['missing phone', { phone: undefined }],
    ['oversize document', { document: '1'.repeat(500) }],
  ])('refuses %s with 400', async (_, over) => {
    const res = await t.request('POST', '/companies/cadastro', { body: signupBody(over) });
    expect(res.status).toBe(400);
    expect((await res.json()).error).toBe('ERR_VALIDATION');
  });

  test('only a public plan can be chosen: a hidden plan is refused by id (ERR_NO_PLAN_FOUND)', async () => {
    const su = await t.superuser();
    const hidden = await (
      await t.as(su).post('/plans', {
        name: unique('Hidden '),
        users: 99,
        connections: 9,
        queues: 9,
        value: 0,
        isPublic: false,
      })
    ).json();
    for (const planId of [hidden.id, 6]) {
      const body = signupBody({ planId });
      await expectError(await t.request('POST', '/companies/cadastro', { body }), 404, 'ERR_NO_PLAN_FOUND');
      // Nothing was created: the e-mail is still free.
      expect((await t.request('POST', '/companies/cadastro', { body: { ...body, planId: 5 } })).status).toBe(
        201,
      );
    }
  });

  test('a duplicate e-mail is refused with ERR_EMAIL_ALREADY_EXISTS', async () => {
    const body = signupBody();
    expect((await t.request('POST', '/companies/cadastro', { body })).status).toBe(201);
    const res = await t.request('POST', '/companies/cadastro', { body: { ...body, name: unique('Outra ') } });
    expect(res.status).toBe(409);
    expect((await res.json()).error).toBe('ERR_EMAIL_ALREADY_EXISTS');
  });
});

describe('password reset', () => {
  const latestMail = (to: string) => {
    const dir = join(t.dataDir, 'outbox');
    const file = readdirSync(dir)
      .filter((f) => f.includes(to))
      .sort()
      .at(-1);
    if (!file) throw new Error('no mail');
    return readFileSync(join(dir, file), 'utf8');
  };

  test('mails a single-use 6-digit code; the new password works and old sessions end', async () => {
    const c = await t.company('Reset');
    const res = await t.request('POST', `/forgetpassword/${encodeURIComponent(c.adminEmail)}`);
    expect(res.status).toBe(200);
    const mail = latestMail(c.adminEmail);
    const code = /(\d{6})/.exec(mail.split('\n\n').slice(1).join('\n'))![1]!;

    const weak = await t.request('POST', '/resetpasswords', {
      body: { email: c.adminEmail, token: code, password: 'weakpass' },
    });
    expect(weak.status).toBe(400);
    const wrong = await t.request('POST', '/resetpasswords', {
      body: { email: c.adminEmail, token: code === '000000' ? '111111' : '000000', password: 'NewPass123' },
    });
    expect((await wrong.json()).error).toBe('ERR_INVALID_RESET_CODE');

    const ok = await t.request('POST', '/resetpasswords', {
      body: { email: c.adminEmail, token: code, password: 'NewPass123' },
    });
    expect(ok.status).toBe(200);
    expect((await t.as(c.admin).get('/auth/me')).status).toBe(401);
    await t.login(c.adminEmail, 'NewPass123');
    // Single use.
    const again = await t.request('POST', '/resetpasswords', {
      body: { email: c.adminEmail, token: code, password: 'Other123x' },
    });
    expect(again.status).toBe(400);
  });

  test('an unknown e-mail answers 404 as the spec says', async () => {
    const res = await t.request('POST', '/forgetpassword/nobody%40nowhere.test');
    expect(res.status).toBe(404);
    expect((await res.json()).error).toBe('ERR_USER_DONT_EXISTS');
  });

  test('five wrong codes burn the code', async () => {
    const c = await t.company('Burn');
    await t.request('POST', `/forgetpassword/${encodeURIComponent(c.adminEmail)}`);
    const code = /(\d{6})/.exec(latestMail(c.adminEmail).split('\n\n').slice(1).join('\n'))![1]!;
    const wrongCode = code === '123456' ? '654321' : '123456';
    for (let i = 0; i < 5; i++)
      await t.request('POST', '/resetpasswords', {
        body: { email: c.adminEmail, token: wrongCode, password: 'NewPass123' },
      });
    const res = await t.request('POST', '/resetpasswords', {
      body: { email: c.adminEmail, token: code, password: 'NewPass123' },
    });
    expect(res.status).toBe(400);
  });
});

describe('sockets', () => {
  test('a handshake without a valid token is refused', async () => {
    await expect(t.socket('garbage')).rejects.toThrow();
    await expect(t.socket('')).rejects.toThrow();
  });

  test('company B never receives company A events, whatever room it asks for', async () => {
    const a = await t.company('SockA');
    const b = await t.company('SockB');
    const sb = await t.socket(b.admin.token);
    for (const room of [
      `company-${a.id}`,
      `company-${a.id}-admins`,
      `company-${a.id}-notification`,
      'notification',
      'open',
      '1',
      `ticket-1`,
    ]) {
      sb.emit('join', room);
    }
    sb.emit('joinNotification');
    sb.emit('joinTickets', 'open');
    const sa = await t.socket(a.admin.token);
    const seenB = collectEvents(sb, `company-${a.id}-user`, 600);
    const seenA = nextEvent(sa, `company-${a.id}-user`);
    const res = await t
      .as(a.admin)
      .post('/users', { name: 'Someone', email: `${unique('s')}@a.test`, password: 'pass123' });
    expect(res.status).toBe(201);
    await seenA;
    expect(await seenB).toHaveLength(0);
    const anyB: string[] = [];
    sb.onAny((name: string) => anyB.push(name));
    await new Promise((r) => setTimeout(r, 200));
    expect(anyB.filter((n) => n.startsWith(`company-${a.id}`))).toHaveLength(0);
  });
});

test('GET /version answers 6.0.0', async () => {
  expect(await (await t.request('GET', '/version')).json()).toEqual({ version: '6.0.0' });
});

describe('access tokens', () => {
  const claimsOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString());

  test('an expired access token answers 403 ERR_SESSION_EXPIRED (the client refreshes), on HTTP and sockets', async () => {
    const c = await t.company('Expired');
    const claims = claimsOf(c.admin.token);
    // Same secret and claims as the server's own token, but its lifetime ended a minute ago.
    const expired = await tokenService(t.config.jwtSecret, -60).sign({
      userId: Number(claims.sub),
      companyId: claims.cid,
      profile: claims.prf,
      super: claims.sup,
      sessionId: claims.sid,
    });
    const res = await t.request('GET', '/auth/me', { token: expired });
    expect(res.status).toBe(403);
    expect((await res.json()).error).toBe('ERR_SESSION_EXPIRED');
    await expect(t.socket(expired)).rejects.toThrow('ERR_SESSION_EXPIRED');
    // The session itself is alive: a refresh gives a working token.
    const refreshed = await t.request('POST', '/auth/refresh_token', { cookie: c.admin.cookie });
    expect(refreshed.status).toBe(200);
    expect((await t.request('GET', '/auth/me', { token: (await refreshed.json()).token })).status).toBe(200);
  });

  test('a missing, garbage, forged or foreign token answers 401', async () => {
    const c = await t.company('Garbage');
    const claims = claimsOf(c.admin.token);
    const forged = await new SignJWT({ ...claims, sup: true })
      .setProtectedHeader({ alg: 'HS256' })
      .sign(new TextEncoder().encode('not-the-server-secret-not-the-server-secret'));
    const unsigned = `${Buffer.from('{"alg":"none"}').toString('base64url')}.${c.admin.token.split('.')[1]}.`;
    // Flip the first signature character (the last one may only carry padding bits).
    const [head, body, sig] = c.admin.token.split('.') as [string, string, string];
    const tampered = `${head}.${body}.${sig[0] === 'A' ? 'B' : 'A'}${sig.slice(1)}`;
    const headerSets: Record<string, string>[] = [
      {},
      { authorization: 'Bearer' },
      { authorization: 'Bearer garbage' },
      { authorization: `Bearer ${forged}` },
      { authorization: `Bearer ${unsigned}` },
      { authorization: `Bearer ${tampered}` },
      { authorization: `Basic ${c.admin.token}` },
      { authorization: 'Bearer ' + 'x'.repeat(5000) },
    ];
    for (const headers of headerSets) {
      const res = await t.request('GET', '/users/list', { headers });
      expect(res.status, JSON.stringify(headers).slice(0, 60)).toBe(401);
      expect((await res.json()).error).toBe('ERR_SESSION_EXPIRED');
    }
    await expect(t.socket(forged)).rejects.toThrow('ERR_INVALID_TOKEN');
  });

  test('a refresh token reused after rotation, past the 30 s grace, ends the session', async () => {
    const c = await t.company('Reuse');
    const first = await t.request('POST', '/auth/refresh_token', { cookie: c.admin.cookie });
    expect(first.status).toBe(200);
    const rotated = (first.headers.get('set-cookie') ?? '').split(';')[0]!;
    const freshToken = (await first.json()).token;

    // Within the grace (two tabs refreshing together): an access token, no new cookie.
    const tab = await t.request('POST', '/auth/refresh_token', { cookie: c.admin.cookie });
    expect(tab.status).toBe(200);
    expect(tab.headers.get('set-cookie')).toBeNull();

    // 31 seconds later, the old cookie is a stolen one.
    const sessionId = claimsOf(c.admin.token).sid;
    await t.database.db
      .update(userSessions)
      .set({ rotatedAt: new Date(Date.now() - 31_000) })
      .where(eq(userSessions.id, sessionId));
    const socket = await t.socket(freshToken);
    const gone = new Promise((r) => socket.once('disconnect', r));
    const reuse = await t.request('POST', '/auth/refresh_token', { cookie: c.admin.cookie });
    expect(reuse.status).toBe(401);
    expect((await reuse.json()).error).toBe('ERR_SESSION_EXPIRED');
    await gone;
    // Everything of that session is dead: the rotated cookie and every access token.
    expect((await t.request('POST', '/auth/refresh_token', { cookie: rotated })).status).toBe(401);
    expect((await t.request('GET', '/auth/me', { token: freshToken })).status).toBe(401);
    expect((await t.as(c.admin).get('/auth/me')).status).toBe(401);
    const [row] = await t.database.db.select().from(userSessions).where(eq(userSessions.id, sessionId));
    expect(row!.revokedReason).toBe('reuse');
  });
});
