import { describe, expect, test } from 'vitest';
import { CAMPAIGN_SETTING_DEFAULTS, campaignSettingsFrom } from '@recado/contracts';
import { testApp, expectError } from '../../../test/helpers.js';
import { readCampaignSettings } from './campaign-setting-service.js';

const t = await testApp();

const asValues = (pairs: { key: string; value: string }[]) =>
  Object.fromEntries(pairs.map((p) => [p.key, JSON.parse(p.value)]));

describe('campaign settings', () => {
  test('defaults until saved; then JSON values by key; only the keys sent change', async () => {
    const c = await t.company('Settings');
    const initial = await (await t.as(c.admin).get('/campaign-settings')).json();
    // docs/campaigns.md: key/value pairs, values JSON-encoded.
    expect(initial).toEqual([
      { key: 'messageInterval', value: '20' },
      { key: 'longerIntervalAfter', value: '20' },
      { key: 'greaterInterval', value: '60' },
      { key: 'variables', value: '[]' },
    ]);
    const saved = await (
      await t.as(c.admin).post('/campaign-settings', {
        settings: {
          messageInterval: 5,
          greaterInterval: 120,
          variables: [{ key: 'loja', value: 'Loja Centro' }],
        },
      })
    ).json();
    expect(asValues(saved)).toEqual({
      messageInterval: 5,
      longerIntervalAfter: 20,
      greaterInterval: 120,
      variables: [{ key: 'loja', value: 'Loja Centro' }],
    });
    await t.as(c.admin).post('/campaign-settings', { settings: { longerIntervalAfter: 0 } });
    const again = asValues(await (await t.as(c.admin).get('/campaign-settings')).json());
    expect(again).toMatchObject({ messageInterval: 5, longerIntervalAfter: 0, greaterInterval: 120 });
    // The engine reads the same values.
    expect(await readCampaignSettings(t.database.db, c.id)).toEqual(again);
  });

  test('only the option lists of docs/campaigns.md, unique shortcuts, no unknown keys', async () => {
    const c = await t.company('SettingsBad');
    const post = (settings: unknown) => t.as(c.admin).post('/campaign-settings', { settings });
    await expectError(await post({ messageInterval: 7 }), 400, 'ERR_VALIDATION');
    await expectError(await post({ messageInterval: 30 }), 400, 'ERR_VALIDATION');
    await expectError(await post({ longerIntervalAfter: 2 }), 400, 'ERR_VALIDATION');
    await expectError(await post({ greaterInterval: 61 }), 400, 'ERR_VALIDATION');
    await expectError(await post({ greaterInterval: 'abc' }), 400, 'ERR_VALIDATION');
    await expectError(await post({ other: 1 }), 400, 'ERR_VALIDATION');
    await expectError(await post({ variables: [{ key: '', value: 'x' }] }), 400, 'ERR_VALIDATION');
    await expectError(await post({ variables: [{ key: 'a b', value: 'x' }] }), 400, 'ERR_VALIDATION');
    await expectError(
      await post({
        variables: [
          { key: 'Loja', value: 'A' },
          { key: 'loja', value: 'B' },
        ],
      }),
      400,
      'ERR_VALIDATION',
    );
    await expectError(await t.as(c.admin).post('/campaign-settings', {}), 400, 'ERR_VALIDATION');
    for (const v of [0, 5, 10, 15, 20]) expect((await post({ messageInterval: v })).status).toBe(200);
    for (const v of [0, 1, 5, 10, 15, 20, 30, 40, 60, 80, 100, 120]) {
      expect((await post({ longerIntervalAfter: v })).status).toBe(200);
      expect((await post({ greaterInterval: v })).status).toBe(200);
    }
  });

  test('unreadable stored values fall back to the defaults', () => {
    expect(
      campaignSettingsFrom([
        { key: 'messageInterval', value: 'not json' },
        { key: 'variables', value: 3 },
      ]),
    ).toEqual(CAMPAIGN_SETTING_DEFAULTS);
  });

  test('plain users read, only admins save; plans without campaigns get ERR_NO_PERMISSION', async () => {
    const c = await t.company('SettingsPerm');
    const user = await t.user(c.admin, 'user');
    expect((await t.as(user).get('/campaign-settings')).status).toBe(200);
    await expectError(
      await t.as(user).post('/campaign-settings', { settings: { messageInterval: 5 } }),
      403,
      'ERR_NO_PERMISSION',
    );
    const bronze = await t.company('SettingsBronze', { planId: 1 });
    await expectError(await t.as(bronze.admin).get('/campaign-settings'), 403, 'ERR_NO_PERMISSION');
    await expectError(
      await t.as(bronze.admin).post('/campaign-settings', { settings: { messageInterval: 5 } }),
      403,
      'ERR_NO_PERMISSION',
    );
  });

  test("one company's settings are its own", async () => {
    const a = await t.company('SetA');
    const b = await t.company('SetB');
    await t.as(a.admin).post('/campaign-settings', {
      settings: { messageInterval: 15, variables: [{ key: 'x', value: 'A' }] },
    });
    await t.as(b.admin).post('/campaign-settings', { settings: { messageInterval: 0 } });
    expect(asValues(await (await t.as(a.admin).get('/campaign-settings')).json())).toMatchObject({
      messageInterval: 15,
      variables: [{ key: 'x', value: 'A' }],
    });
    expect(asValues(await (await t.as(b.admin).get('/campaign-settings')).json())).toMatchObject({
      messageInterval: 0,
      variables: [],
    });
  });
});
