import { SECRET_MASK } from '@recado/contracts';
import { describe, expect, test } from 'vitest';
import { AppError } from '../../../http/errors.js';
import { secretBox } from '../../../lib/crypto.js';
import { CloudConfigError, openCloudConfig, publicCloudConfig, sealCloudConfig } from './cloud-api-config.js';

const box = secretBox('test-app-secret-0123456789abcdef0123');
const input = {
  phoneNumberId: '106540352242922',
  businessAccountId: '102290129340398',
  accessToken: 'EAAG-very-secret-token',
  appSecret: 'meta-app-secret',
  verifyToken: 'verify-token-123',
};

describe('Cloud API settings', () => {
  test('seal keeps no secret in clear, open gives them back with defaults', () => {
    const stored = sealCloudConfig(input, box);
    const json = JSON.stringify(stored);
    expect(json).not.toContain(input.accessToken);
    expect(json).not.toContain(input.appSecret);
    expect(openCloudConfig(stored, box)).toEqual({
      ...input,
      graphBaseUrl: 'https://graph.facebook.com',
      apiVersion: 'v21.0',
    });
  });

  test('the web sees ids and the verify token, secrets only masked', () => {
    const pub = publicCloudConfig(sealCloudConfig(input, box) as unknown as Record<string, unknown>);
    expect(pub).toEqual({
      phoneNumberId: input.phoneNumberId,
      businessAccountId: input.businessAccountId,
      verifyToken: input.verifyToken,
      graphBaseUrl: 'https://graph.facebook.com',
      apiVersion: 'v21.0',
      accessToken: SECRET_MASK,
      appSecret: SECRET_MASK,
    });
    expect(publicCloudConfig({})).toMatchObject({ accessToken: '', appSecret: '', phoneNumberId: '' });
  });

  test('saving the masked form back keeps the stored secrets; a new token replaces only the token', () => {
    const first = sealCloudConfig(input, box);
    const pub = publicCloudConfig(first as unknown as Record<string, unknown>);
    const again = sealCloudConfig(
      { ...pub, apiVersion: 'v22.0' },
      box,
      first as unknown as Record<string, unknown>,
    );
    expect(openCloudConfig(again, box)).toMatchObject({
      accessToken: input.accessToken,
      appSecret: input.appSecret,
      apiVersion: 'v22.0',
    });
    const rotated = sealCloudConfig(
      { ...pub, accessToken: 'EAAG-new' },
      box,
      first as unknown as Record<string, unknown>,
    );
    expect(openCloudConfig(rotated, box)).toMatchObject({
      accessToken: 'EAAG-new',
      appSecret: input.appSecret,
    });
  });

  test('a verify token is generated when none is given, and kept on later saves', () => {
    const { verifyToken: _omit, ...rest } = input;
    const stored = sealCloudConfig(rest, box);
    expect(stored.verifyToken.length).toBeGreaterThanOrEqual(24);
    const again = sealCloudConfig(
      { phoneNumberId: rest.phoneNumberId },
      box,
      stored as unknown as Record<string, unknown>,
    );
    expect(again.verifyToken).toBe(stored.verifyToken);
  });

  test('invalid input is a 400 ERR_VALIDATION with fields', () => {
    const cases: unknown[] = [
      { ...input, phoneNumberId: 'abc' },
      { ...input, accessToken: undefined },
      { ...input, graphBaseUrl: 'ftp://x' },
      { ...input, apiVersion: '21' },
      { ...input, verifyToken: 'short' },
      null,
    ];
    for (const c of cases) {
      const err = (() => {
        try {
          sealCloudConfig(c, box);
        } catch (e) {
          return e;
        }
      })();
      expect(err).toBeInstanceOf(AppError);
      expect(err).toMatchObject({ code: 'ERR_VALIDATION', statusCode: 400 });
      expect((err as AppError).extra?.fields).toEqual(
        expect.arrayContaining([expect.objectContaining({ path: expect.any(String) })]),
      );
    }
  });

  test('open refuses incomplete settings and secrets sealed with another key, without leaking them', () => {
    expect(() => openCloudConfig({}, box)).toThrow(CloudConfigError);
    expect(() => openCloudConfig(undefined, box)).toThrow(CloudConfigError);
    const stored = sealCloudConfig(input, box);
    const err = (() => {
      try {
        openCloudConfig(stored, secretBox('another-app-secret-000000000000000'));
      } catch (e) {
        return e as CloudConfigError;
      }
    })();
    expect(err).toBeInstanceOf(CloudConfigError);
    expect(err!.reason).not.toContain(stored.accessTokenSealed);
  });
});
