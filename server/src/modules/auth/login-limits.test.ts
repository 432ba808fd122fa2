import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { expectError, testApp, unique, type TestApp } from '../../../test/helpers.js';
import { DEVICE_COOKIE } from './auth-routes.js';
import { ACCOUNT_FACTOR } from './login-throttle.js';

const LIMIT = 10;
// TRUST_PROXY off (the default): X-Forwarded-For is ignored, the socket's address counts.
const direct = await testApp({ loginLimit: LIMIT });
// Behind a trusted proxy on loopback: X-Forwarded-For names the client, so tests can play many addresses.
const proxied = await testApp({ loginLimit: LIMIT, env: { TRUST_PROXY: '127.0.0.1' } });

const login = (t: TestApp, email: string, password: string, from: string, device?: string) =>
  t.request('POST', '/auth/login', {
    body: { email, password },
    headers: {
      'x-forwarded-for': from,
      ...(device ? { cookie: `${DEVICE_COOKIE}=${device}` } : {}),
    },
  });
const deviceOf = (res: Response) =>
  res.headers
    .getSetCookie()
    .find((c) => c.startsWith(`${DEVICE_COOKIE}=`))
    ?.split(';')[0]!
    .slice(DEVICE_COOKIE.length + 1);
const statuses = (list: Response[]) => list.map((r) => r.status);

describe('failed logins, TRUST_PROXY off', () => {
  test('30 wrong logins with a rotating X-Forwarded-For are limited', async () => {
    const c = await direct.company('Rot');
    const seen: number[] = [];
    for (let i = 0; i < 30; i++)
      seen.push((await login(direct, c.adminEmail, `wrong-${i}`, `203.0.113.${i + 1}`)).status);
    expect(seen.filter((s) => s === 401)).toHaveLength(LIMIT);
    expect(seen.slice(LIMIT)).toEqual(Array(30 - LIMIT).fill(429));
    const res = await login(direct, `${unique('other')}@x.test`, 'wrong', '198.51.100.9');
    await expectError(res, 429, 'ERR_RATE_LIMITED');
  });

  test('signups are limited per real address, whatever X-Forwarded-For says', async () => {
    const seen: number[] = [];
    for (let i = 0; i < LIMIT + 2; i++) {
      const res = await direct.request('POST', '/companies/cadastro', {
        body: {
          name: unique('Loja '),
          email: `${unique('owner')}@shop.test`,
          phone: '(11) 98888-7777',
          document: '529.982.247-25',
          password: 'secret1',
        },
        headers: { 'x-forwarded-for': `192.0.2.${i + 1}` },
      });
      seen.push(res.status);
    }
    expect(seen.slice(0, LIMIT)).toEqual(Array(LIMIT).fill(201));
    expect(seen.slice(LIMIT)).toEqual([429, 429]);
  });
});

describe('failed logins, per address and per account', () => {
  test('a burst of parallel wrong logins from one address: no more than the limit get a password check', async () => {
    const c = await proxied.company('Burst');
    const all = await Promise.all(
      Array.from({ length: 30 }, (_, i) => login(proxied, c.adminEmail, `bad-${i}`, '203.0.113.50')),
    );
    expect(statuses(all).filter((s) => s === 401)).toHaveLength(LIMIT);
    expect(statuses(all).filter((s) => s === 429)).toHaveLength(30 - LIMIT);
  });

  test("the real user's correct login works after an attacker's 30 wrong tries from another address", async () => {
    const c = await proxied.company('Victim');
    const attack: number[] = [];
    for (let i = 0; i < 30; i++)
      attack.push((await login(proxied, c.adminEmail, `guess-${i}`, '203.0.113.66')).status);
    expect(attack.filter((s) => s === 401)).toHaveLength(LIMIT);
    expect(attack.at(-1)).toBe(429);
    // The attacker's address is done, even with the right password.
    await expectError(
      await login(proxied, c.adminEmail, 'Admin@123', '203.0.113.66'),
      429,
      'ERR_RATE_LIMITED',
    );
    // The real user, from a browser that never signed in before.
    const res = await login(proxied, c.adminEmail, 'Admin@123', '198.51.100.20');
    expect(res.status).toBe(200);
    expect(deviceOf(res)).toBeTruthy();
  });

  test('a spread-out attack closes the account to new browsers only: a known browser still signs in', async () => {
    const c = await proxied.company('Spread');
    const known = deviceOf(await login(proxied, c.adminEmail, 'Admin@123', '198.51.100.30'))!;
    const budget = LIMIT * ACCOUNT_FACTOR;
    const attack: number[] = [];
    for (let i = 0; i < budget + 5; i++)
      attack.push((await login(proxied, c.adminEmail, `guess-${i}`, `10.9.${i >> 8}.${i & 255}`)).status);
    expect(attack.filter((s) => s === 401)).toHaveLength(budget);
    expect(attack.slice(budget)).toEqual(Array(5).fill(429));
    // A new browser, even with the right password, waits for the window to pass (or resets the password).
    await expectError(
      await login(proxied, c.adminEmail, 'Admin@123', '198.51.100.31'),
      429,
      'ERR_RATE_LIMITED',
    );
    // The real user's browser is not affected, from any address.
    expect((await login(proxied, c.adminEmail, 'Admin@123', '198.51.100.32', known)).status).toBe(200);
    // A known-browser cookie is bound to its account: it does not open another one.
    const other = await proxied.company('Other');
    for (let i = 0; i < budget; i++)
      await login(proxied, other.adminEmail, `g-${i}`, `10.8.${i >> 8}.${i & 255}`);
    await expectError(
      await login(proxied, other.adminEmail, 'Admin@123', '198.51.100.33', known),
      429,
      'ERR_RATE_LIMITED',
    );
    // A forged cookie is an unknown browser.
    await expectError(
      await login(proxied, c.adminEmail, 'Admin@123', '198.51.100.34', `${known.split('.')[0]}.forged`),
      429,
      'ERR_RATE_LIMITED',
    );
  });

  test('a known browser has its own limit of wrong passwords', async () => {
    const c = await proxied.company('OwnLimit');
    const known = deviceOf(await login(proxied, c.adminEmail, 'Admin@123', '198.51.100.40'))!;
    for (let i = 0; i < LIMIT; i++)
      expect((await login(proxied, c.adminEmail, `typo-${i}`, '198.51.100.40', known)).status).toBe(401);
    await expectError(
      await login(proxied, c.adminEmail, 'Admin@123', '198.51.100.40', known),
      429,
      'ERR_RATE_LIMITED',
    );
  });
});

describe('reset codes', () => {
  const mails = (t: TestApp, to: string) =>
    readdirSync(join(t.dataDir, 'outbox')).filter((f) => f.includes(to));

  test('at most 3 codes an hour per e-mail, whatever the address asking', async () => {
    const c = await proxied.company('Codes');
    const seen: number[] = [];
    for (let i = 0; i < 6; i++)
      seen.push(
        (
          await proxied.request('POST', `/forgetpassword/${encodeURIComponent(c.adminEmail)}`, {
            headers: { 'x-forwarded-for': `198.18.0.${i + 1}` },
          })
        ).status,
      );
    expect(seen).toEqual([200, 200, 200, 429, 429, 429]);
    expect(mails(proxied, c.adminEmail)).toHaveLength(3);
    // Another account is not affected.
    const d = await proxied.company('Codes2');
    expect(
      (await proxied.request('POST', `/forgetpassword/${encodeURIComponent(d.adminEmail)}`)).status,
    ).toBe(200);
  });

  test('a parallel burst of reset requests still sends no more than 3 codes', async () => {
    const c = await proxied.company('CodesBurst');
    const all = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        proxied.request('POST', `/forgetpassword/${encodeURIComponent(c.adminEmail)}`, {
          headers: { 'x-forwarded-for': `198.18.1.${i + 1}` },
        }),
      ),
    );
    expect(statuses(all).sort()).toEqual([200, 200, 200, 429, 429, 429]);
    expect(mails(proxied, c.adminEmail)).toHaveLength(3);
  });

  test('a completed reset reopens the account to new browsers', async () => {
    const c = await proxied.company('Recover');
    for (let i = 0; i < LIMIT * ACCOUNT_FACTOR; i++)
      await login(proxied, c.adminEmail, `g-${i}`, `10.7.${i >> 8}.${i & 255}`);
    await expectError(
      await login(proxied, c.adminEmail, 'Admin@123', '198.51.100.50'),
      429,
      'ERR_RATE_LIMITED',
    );
    await proxied.request('POST', `/forgetpassword/${encodeURIComponent(c.adminEmail)}`, {
      headers: { 'x-forwarded-for': '198.51.100.50' },
    });
    const file = mails(proxied, c.adminEmail).sort().at(-1)!;
    const mail = readFileSync(join(proxied.dataDir, 'outbox', file), 'utf8');
    const code = /(\d{6})/.exec(mail.split('\n\n').slice(1).join('\n'))![1]!;
    const reset = await proxied.request('POST', '/resetpasswords', {
      body: { email: c.adminEmail, token: code, password: 'NewPass123' },
      headers: { 'x-forwarded-for': '198.51.100.50' },
    });
    expect(reset.status).toBe(200);
    expect((await login(proxied, c.adminEmail, 'NewPass123', '198.51.100.51')).status).toBe(200);
  });
});
