import { describe, expect, test } from 'vitest';
import { ERROR_CODES } from '@recado/contracts';
import { expectError, testApp, waitFor } from '../../test/helpers.js';
import { ERROR_MESSAGES } from './error-messages.js';
import { AppError } from './errors.js';

// #29.8: every error answers a sentence, never its code again; the external API's errors say what the docs
// say (docs/external-api.md "Errors"); POST /companies never makes a company without the admin it was given.
const t = await testApp();

describe('error messages', () => {
  test('every code has a sentence of its own, and an AppError without a message takes it', () => {
    for (const code of ERROR_CODES) {
      expect(ERROR_MESSAGES[code], code).toBeTruthy();
      expect(ERROR_MESSAGES[code], code).not.toMatch(/ERR_/);
    }
    expect(new AppError('ERR_WAPP_GREETING_REQUIRED', 400).message).toBe(
      ERROR_MESSAGES.ERR_WAPP_GREETING_REQUIRED,
    );
  });

  test('ERR_WAPP_GREETING_REQUIRED answers a sentence', async () => {
    const c = await t.company('Greeting');
    const queueIds: number[] = [];
    for (const [i, name] of ['Vendas', 'Suporte'].entries()) {
      const q = await t.as(c.admin).post('/queue', { name, color: `#00000${i}`, greetingMessage: '' });
      expect(q.status, await q.clone().text()).toBe(201);
      queueIds.push((await q.json()).id);
    }
    const res = await t.as(c.admin).post('/whatsapp', { name: 'Two', channel: 'simulator', queueIds });
    const body = await expectError(res, 400, 'ERR_WAPP_GREETING_REQUIRED');
    expect(body.message).toMatch(/greeting/i);
    expect(body.message).not.toContain('ERR_');
  });
});

const apiCompany = await t.company('ApiErrors');
const w = await (
  await t.as(apiCompany.admin).post('/whatsapp', { name: 'Sim', channel: 'simulator' })
).json();
await waitFor(async () => t.app.sessions.get(w.id));
const { token } = await (await t.as(apiCompany.admin).get(`/whatsapp/${w.id}/token`)).json();

describe('external API errors', () => {
  test('a wrong token is "invalid", a missing one "required"', async () => {
    const send = { number: '5511999990000', body: 'x' };
    for (const wrong of ['abc', 'x'.repeat(43), `${token}x`]) {
      const body = await expectError(
        await t.request('POST', '/messages/send', { token: wrong, body: send }),
        401,
        'ERR_INVALID_API_TOKEN',
      );
      expect(body.message).toBe('Invalid connection token');
    }
    const missing = await expectError(
      await t.request('POST', '/messages/send', { body: send }),
      401,
      'ERR_INVALID_API_TOKEN',
    );
    expect(missing.message).toMatch(/required/);
  });

  test('number "abc" is ERR_WAPP_INVALID_CONTACT on every call that takes a number', async () => {
    const sendAt = new Date(Date.now() + 3_600_000).toISOString();
    for (const number of ['abc', '', '12ab34567890', '123'])
      for (const [path, body] of [
        ['/messages/send', { number, body: 'Oi' }],
        ['/messages/schedule', { number, body: 'Oi', sendAt }],
        ['/contacts/check', { number }],
      ] as const) {
        const res = await t.request('POST', path, { token, body });
        const answer = await expectError(res, 400, 'ERR_WAPP_INVALID_CONTACT');
        expect(answer.fields, `${path} ${number}`).toEqual([
          { path: 'number', message: 'invalid phone number' },
        ]);
      }
    // Missing altogether: the field list says so (a malformed request, not a number).
    await expectError(
      await t.request('POST', '/messages/send', { token, body: { body: 'Oi' } }),
      400,
      'ERR_VALIDATION',
    );
  });
});

describe('POST /companies', () => {
  test('with `password` (the spec client’s name) the admin is created and signs in', async () => {
    const su = await t.superuser();
    const email = `admin${Date.now()}@pw.test`;
    const res = await t.as(su).post('/companies', {
      name: `Pw ${Date.now()}`,
      email,
      planId: 5,
      password: 'Segredo@1',
    });
    expect(res.status, await res.clone().text()).toBe(201);
    const session = await t.login(email, 'Segredo@1');
    expect(session.user).toMatchObject({ email, profile: 'admin', companyId: (await res.json()).id });
  });

  test('two different passwords, or a password without an e-mail: 400, and no company is made', async () => {
    const su = await t.superuser();
    const name = `Dup ${Date.now()}`;
    await expectError(
      await t.as(su).post('/companies', {
        name,
        email: `x${Date.now()}@pw.test`,
        planId: 5,
        password: 'Segredo@1',
        adminPassword: 'Outra@123',
      }),
      400,
      'ERR_VALIDATION',
    );
    await expectError(
      await t.as(su).post('/companies', { name, planId: 5, password: 'Segredo@1' }),
      400,
      'ERR_VALIDATION',
    );
    const list = await (await t.as(su).get('/companies/list')).json();
    expect(JSON.stringify(list)).not.toContain(name);
  });
});
