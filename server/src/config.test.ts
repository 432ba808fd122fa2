import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { loadConfig } from './config.js';

const STRONG_APP = 'Vq3xY8rT2mKp9LwZ4nB7cD1fG6hJ0sAe';
const STRONG_JWT = 'k2P9sR4tW7yB1nM5qX8vC3zL6dF0gHjU';
const dir = () => mkdtempSync(join(tmpdir(), 'recado-config-'));
const prod = (over: Record<string, string | undefined> = {}) => ({
  NODE_ENV: 'production',
  DATA_DIR: dir(),
  APP_SECRET: STRONG_APP,
  JWT_SECRET: STRONG_JWT,
  ...over,
});

describe('production', () => {
  test('starts with strong secrets and writes nothing into DATA_DIR', () => {
    const env = prod({ SUPERUSER_PASSWORD: 'a-Long-and-Unique-pass-42' });
    const c = loadConfig(env);
    expect(c).toMatchObject({ env: 'production', appSecret: STRONG_APP, jwtSecret: STRONG_JWT });
    expect(() => statSync(join(env.DATA_DIR, '.app_secret'))).toThrow();
  });

  test.each(['APP_SECRET', 'JWT_SECRET'])(
    'refuses a missing, empty, default, short or repetitive %s',
    (name) => {
      for (const value of [
        undefined,
        '',
        'changeme',
        'secret',
        'recado',
        'default',
        'x'.repeat(31),
        'x'.repeat(64),
        'changemechangemechangemechangeme',
        // Alphabet and keyboard runs, and short units repeated, even with enough distinct characters.
        'abcdefghijklmnopqrstuvwxyz012345',
        'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghij',
        'zyxwvutsrqponmlkjihgfedcba987654',
        'qwertyuiopasdfghjklzxcvbnm1234567890',
        '0123456789abcdef0123456789abcdef',
        'Vq3xY8rT2mKpVq3xY8rT2mKpVq3xY8rT2mKp',
      ])
        expect(() => loadConfig(prod({ [name]: value })), String(value)).toThrow(new RegExp(name));
    },
  );

  test('random secrets as operators generate them are accepted', async () => {
    const { randomBytes } = await import('node:crypto');
    for (let i = 0; i < 300; i++) {
      const hex = randomBytes(32).toString('hex');
      const b64 = randomBytes(32).toString('base64');
      expect(loadConfig(prod({ APP_SECRET: hex, JWT_SECRET: b64 })).appSecret).toBe(hex);
    }
  });

  test('refuses APP_SECRET equal to JWT_SECRET', () => {
    expect(() => loadConfig(prod({ JWT_SECRET: STRONG_APP }))).toThrow(/APP_SECRET and JWT_SECRET/);
  });

  test('the demo company is off by default, and refused when asked for', () => {
    expect(loadConfig(prod()).seedDemo).toBe(false);
    expect(loadConfig(prod({ SEED_DEMO: 'false' })).seedDemo).toBe(false);
    expect(() => loadConfig(prod({ SEED_DEMO: 'true' }))).toThrow(/SEED_DEMO/);
  });

  test('refuses a default SUPERUSER_PASSWORD, whatever its case', () => {
    for (const value of [
      'changeme',
      'CHANGEME',
      'secret',
      'recado',
      'default',
      'admin',
      '123456',
      'password',
      'Demo@1234',
    ])
      expect(() => loadConfig(prod({ SUPERUSER_PASSWORD: value })), value).toThrow(/SUPERUSER_PASSWORD/);
    // Absent is fine: one is generated and printed once.
    expect(loadConfig(prod()).superuserPassword).toBeUndefined();
  });

  test('refuses malformed numbers', () => {
    expect(() => loadConfig(prod({ PORT: 'eighty' }))).toThrow();
    expect(() => loadConfig(prod({ ACCESS_TOKEN_TTL: '5' }))).toThrow();
  });
});

describe('outside production', () => {
  test('missing secrets are generated once into DATA_DIR and reused on the next load', () => {
    const DATA_DIR = dir();
    const first = loadConfig({ NODE_ENV: 'development', DATA_DIR });
    expect(first.appSecret).toMatch(/^[0-9a-f]{64}$/);
    expect(first.jwtSecret).toMatch(/^[0-9a-f]{64}$/);
    expect(first.appSecret).not.toBe(first.jwtSecret);
    const file = join(DATA_DIR, '.app_secret');
    expect(readFileSync(file, 'utf8')).toBe(first.appSecret);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const second = loadConfig({ NODE_ENV: 'development', DATA_DIR });
    expect(second.appSecret).toBe(first.appSecret);
    expect(second.jwtSecret).toBe(first.jwtSecret);
    // Another data directory is another installation.
    expect(loadConfig({ NODE_ENV: 'development', DATA_DIR: dir() }).appSecret).not.toBe(first.appSecret);
  });

  test('a given secret wins over the stored one', () => {
    const DATA_DIR = dir();
    loadConfig({ NODE_ENV: 'development', DATA_DIR });
    expect(loadConfig({ NODE_ENV: 'development', DATA_DIR, JWT_SECRET: 'given' }).jwtSecret).toBe('given');
  });

  test('an empty or truncated secret file is replaced, never used as a key', () => {
    const DATA_DIR = dir();
    writeFileSync(join(DATA_DIR, '.jwt_secret'), '\n');
    const c = loadConfig({ NODE_ENV: 'development', DATA_DIR });
    expect(c.jwtSecret).toMatch(/^[0-9a-f]{64}$/);
    expect(loadConfig({ NODE_ENV: 'development', DATA_DIR }).jwtSecret).toBe(c.jwtSecret);
  });

  test('defaults of the embedded mode', () => {
    const DATA_DIR = dir();
    const c = loadConfig({ DATA_DIR });
    expect(c).toMatchObject({
      env: 'development',
      port: 8080,
      dataDir: DATA_DIR,
      databaseUrl: undefined,
      publicUrl: 'http://localhost:8080',
      accessTokenTtl: 900,
      refreshTokenTtl: 604800,
      seedDemo: true,
      trustProxy: false,
      allowPrivateUrls: false,
    });
    expect(loadConfig({ DATA_DIR, SEED_DEMO: 'false' }).seedDemo).toBe(false);
  });

  test('TRUST_PROXY takes the forms Fastify knows, and refuses anything else', () => {
    const DATA_DIR = dir();
    const tp = (TRUST_PROXY: string) => loadConfig({ DATA_DIR, TRUST_PROXY }).trustProxy;
    expect(tp('')).toBe(false);
    expect(tp('false')).toBe(false);
    expect(tp('true')).toBe(true);
    expect(tp('1')).toBe(1);
    expect(tp('2')).toBe(2);
    expect(tp('127.0.0.1')).toEqual(['127.0.0.1']);
    expect(tp(' 10.0.0.0/8, 192.168.1.5 ,::1,fd00::/8')).toEqual([
      '10.0.0.0/8',
      '192.168.1.5',
      '::1',
      'fd00::/8',
    ]);
    for (const bad of ['yes please', '10.0.0.0/33', '300.1.1.1', 'nginx'])
      expect(() => tp(bad), bad).toThrow(/TRUST_PROXY/);
  });

  test('ALLOW_PRIVATE_URLS is off unless set to true (or 1); anything else is refused', () => {
    const DATA_DIR = dir();
    expect(loadConfig({ DATA_DIR, ALLOW_PRIVATE_URLS: 'true' }).allowPrivateUrls).toBe(true);
    expect(loadConfig({ DATA_DIR, ALLOW_PRIVATE_URLS: '1' }).allowPrivateUrls).toBe(true);
    expect(loadConfig({ DATA_DIR, ALLOW_PRIVATE_URLS: 'false' }).allowPrivateUrls).toBe(false);
    expect(loadConfig({ DATA_DIR, ALLOW_PRIVATE_URLS: '' }).allowPrivateUrls).toBe(false);
    expect(() => loadConfig({ DATA_DIR, ALLOW_PRIVATE_URLS: 'yes please' })).toThrow();
  });
});

describe('Web Push keys (VAPID_*)', () => {
  test('generated once into DATA_DIR outside production, reused on the next load', () => {
    const DATA_DIR = dir();
    const first = loadConfig({ NODE_ENV: 'development', DATA_DIR });
    expect(first.vapid!.publicKey).toMatch(/^[A-Za-z0-9_-]{87}$/);
    expect(Buffer.from(first.vapid!.privateKey, 'base64url')).toHaveLength(32);
    expect(first.vapid!.subject).toBe('mailto:no-reply@recado.local');
    expect(statSync(join(DATA_DIR, '.vapid.json')).mode & 0o777).toBe(0o600);
    expect(loadConfig({ NODE_ENV: 'development', DATA_DIR }).vapid).toEqual(first.vapid);
    // A damaged file is replaced.
    writeFileSync(join(DATA_DIR, '.vapid.json'), '{"publicKey":"x"');
    expect(loadConfig({ NODE_ENV: 'development', DATA_DIR }).vapid!.publicKey).not.toBe(
      first.vapid!.publicKey,
    );
  });

  test('production: from the environment, or push off; half a pair or a bad key refused', () => {
    const env = prod();
    expect(loadConfig(env).vapid).toBeNull();
    expect(() => statSync(join(env.DATA_DIR, '.vapid.json'))).toThrow();
    const keys = loadConfig({ NODE_ENV: 'development', DATA_DIR: dir() }).vapid!;
    const given = loadConfig(
      prod({
        VAPID_PUBLIC_KEY: keys.publicKey,
        VAPID_PRIVATE_KEY: keys.privateKey,
        VAPID_SUBJECT: 'https://recado.example.com',
      }),
    );
    expect(given.vapid).toEqual({ ...keys, subject: 'https://recado.example.com' });
    expect(() => loadConfig(prod({ VAPID_PUBLIC_KEY: keys.publicKey }))).toThrow(/VAPID_PUBLIC_KEY/);
    expect(() => loadConfig(prod({ VAPID_PUBLIC_KEY: 'short', VAPID_PRIVATE_KEY: keys.privateKey }))).toThrow(
      /VAPID/,
    );
    expect(() => loadConfig(prod({ VAPID_SUBJECT: 'admin@example.com' }))).toThrow(/VAPID_SUBJECT/);
  });
});
