import { describe, expect, test } from 'vitest';
import {
  SECRET_MASK,
  SETTING_DEFAULTS,
  SETTING_KEYS,
  SETTING_VALUES,
  type SettingKey,
} from '@recado/contracts';
import { collectEvents, nextEvent, testApp, unique } from '../../../test/helpers.js';

const t = await testApp();
const shared = await t.company('Settings');

const asMap = (list: { key: string; value: string }[]) =>
  Object.fromEntries(list.map((s) => [s.key, s.value]));

describe('reading', () => {
  test('a new company reads every key with its default; asaas is hidden from non-super users', async () => {
    const c = await t.company('Fresh');
    const u = await t.user(c.admin);
    for (const who of [c.admin, u]) {
      const res = await t.as(who).get('/settings');
      expect(res.status).toBe(200);
      const list = await res.json();
      const expected = { ...SETTING_DEFAULTS } as Record<string, string>;
      delete expected.asaas;
      expect(asMap(list)).toEqual(expected);
      expect(list).toHaveLength(SETTING_KEYS.length - 1);
    }
    const one = await t.as(u).get('/settings/timezone');
    expect(await one.json()).toEqual({ key: 'timezone', value: 'America/Sao_Paulo' });
    const hidden = await t.as(c.admin).get('/settings/asaas');
    expect(hidden.status).toBe(403);
    expect((await hidden.json()).error).toBe('ERR_NO_PERMISSION');
  });

  test('the super user reads asaas too', async () => {
    const list = await (await t.as(await t.superuser()).get('/settings')).json();
    expect(list.map((s: { key: string }) => s.key).sort()).toEqual([...SETTING_KEYS].sort());
  });

  test('an unknown key is a 400', async () => {
    const res = await t.as(shared.admin).get('/settings/nope');
    expect(res.status).toBe(400);
    expect((await res.json()).error).toBe('ERR_VALIDATION');
  });
});

describe('changing', () => {
  const closed = Object.entries(SETTING_VALUES) as [SettingKey, readonly string[]][];

  test.each(closed)('%s takes each value of its closed set and nothing else', async (key, allowed) => {
    for (const value of allowed) {
      const res = await t.as(shared.admin).put(`/settings/${key}`, { value });
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ key, value });
      expect((await (await t.as(shared.admin).get(`/settings/${key}`)).json()).value).toBe(value);
    }
    for (const value of ['', 'bogus', allowed[0]!.toUpperCase(), ` ${allowed[0]}`]) {
      const res = await t.as(shared.admin).put(`/settings/${key}`, { value });
      expect(res.status).toBe(400);
      expect((await res.json()).error).toBe('ERR_VALIDATION');
    }
  });

  test.each([
    ['unknown key', '/settings/nope', { value: 'enabled' }],
    ['missing value', '/settings/userRating', {}],
    ['numeric value', '/settings/userRating', { value: 1 }],
    ['null value', '/settings/userRating', { value: null }],
    ['oversize value', '/settings/asaas', { value: 'x'.repeat(2001) }],
  ])('refuses %s with 400', async (_, path, body) => {
    const res = await t.as(shared.admin).put(path, body);
    expect(res.status).toBe(400);
    expect((await res.json()).error).toBe('ERR_VALIDATION');
  });

  test('timezone must be a real IANA zone, stored in its canonical spelling', async () => {
    for (const value of ['America/Recife', 'Europe/Lisbon', 'UTC', 'America/Sao_Paulo']) {
      const res = await t.as(shared.admin).put('/settings/timezone', { value });
      expect(res.status).toBe(200);
      expect((await res.json()).value).toBe(value);
    }
    const lower = await t.as(shared.admin).put('/settings/timezone', { value: 'america/manaus' });
    expect(lower.status).toBe(200);
    expect((await lower.json()).value).toBe('America/Manaus');
    for (const value of [
      '',
      'Mars/Olympus_Mons',
      'Sao Paulo',
      '+03:00',
      '-0300',
      'GMT-3',
      '../etc',
      'x'.repeat(300),
    ]) {
      const res = await t.as(shared.admin).put('/settings/timezone', { value });
      expect(res.status, value).toBe(400);
      expect((await res.json()).error).toBe('ERR_VALIDATION');
    }
    expect((await (await t.as(shared.admin).get('/settings/timezone')).json()).value).toBe('America/Manaus');
  });

  test('only admins change settings', async () => {
    for (const profile of ['user', 'supervisor'] as const) {
      const u = await t.user(shared.admin, profile);
      const res = await t.as(u).put('/settings/call', { value: 'disabled' });
      expect(res.status).toBe(403);
      expect((await res.json()).error).toBe('ERR_NO_PERMISSION');
    }
  });

  test('asaas is for super users only: refused to admins, never shown to anyone else', async () => {
    const res = await t.as(shared.admin).put('/settings/asaas', { value: 'stolen' });
    expect(res.status).toBe(403);
    expect((await res.json()).error).toBe('ERR_NO_PERMISSION');

    const su = await t.superuser();
    const token = unique('asaas-token-');
    // A plain user of the platform company sees neither the value nor its event.
    const email = `${unique('staff')}@platform.test`;
    expect(
      (await t.as(su).post('/users', { name: 'Platform staff', email, password: 'Staff@123' })).status,
    ).toBe(201);
    const staff = await t.login(email, 'Staff@123');
    const staffSocket = await t.socket(staff.token);
    const superSocket = await t.socket(su.token);
    const staffSees: string[] = [];
    staffSocket.onAny((_name: string, payload: unknown) => staffSees.push(JSON.stringify(payload)));
    const superEvent = nextEvent<{ setting: { key: string; value: string } }>(
      superSocket,
      `company-${su.user.companyId}-settings`,
    );

    const ok = await t.as(su).put('/settings/asaas', { value: token });
    expect(ok.status).toBe(200);
    // Sealed at rest: even the super user reads the mask only (the key is the server's to use).
    expect((await superEvent).setting).toEqual({ key: 'asaas', value: SECRET_MASK });
    expect((await (await t.as(su).get('/settings/asaas')).json()).value).toBe(SECRET_MASK);
    await new Promise((r) => setTimeout(r, 200));

    expect(staffSees.join()).not.toContain(token);
    expect(JSON.stringify(await (await t.as(staff).get('/settings')).json())).not.toContain(token);
    expect((await t.as(staff).get('/settings/asaas')).status).toBe(403);
    const me = await (await t.as(staff).get('/auth/me')).json();
    expect(JSON.stringify(me)).not.toContain(token);
    expect(me.company.settings.map((s: { key: string }) => s.key)).not.toContain('asaas');
    // The super user's own session carries only the mask (set, but never shown).
    const superMe = await (await t.as(su).get('/auth/me')).json();
    expect(asMap(superMe.company.settings).asaas).toBe(SECRET_MASK);
  });
});

describe('live events', () => {
  test('company-{id}-settings reaches every socket of the company after a change, and only then', async () => {
    const c = await t.company('SetLive');
    const u = await t.user(c.admin);
    const sockets = [await t.socket(c.admin.token), await t.socket(u.token)];
    const event = `company-${c.id}-settings`;
    const seen = Promise.all(sockets.map((s) => nextEvent(s, event)));
    await t.as(c.admin).put('/settings/scheduleType', { value: 'company' });
    for (const ev of await seen)
      expect(ev).toEqual({ action: 'update', setting: { key: 'scheduleType', value: 'company' } });

    const none = collectEvents(sockets[0]!, event, 300);
    expect((await t.as(c.admin).put('/settings/scheduleType', { value: 'weekly' })).status).toBe(400);
    expect((await t.as(u).put('/settings/scheduleType', { value: 'queue' })).status).toBe(403);
    expect(await none).toEqual([]);
  });
});
