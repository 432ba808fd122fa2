import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { z } from 'zod';

const EnvSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  HOST: z.string().default('0.0.0.0'),
  DATA_DIR: z.string().default('./data'),
  DATABASE_URL: z.string().optional(),
  REDIS_URL: z.string().optional(),
  APP_SECRET: z.string().optional(),
  JWT_SECRET: z.string().optional(),
  PUBLIC_URL: z.string().optional(),
  SMTP_URL: z.string().optional(),
  SMTP_FROM: z.string().default('Recado <no-reply@recado.local>'),
  SUPERUSER_EMAIL: z.string().optional(),
  SUPERUSER_PASSWORD: z.string().optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  ACCESS_TOKEN_TTL: z.coerce
    .number()
    .int()
    .min(30)
    .default(15 * 60),
  REFRESH_TOKEN_TTL: z.coerce
    .number()
    .int()
    .min(60)
    .default(7 * 24 * 3600),
  SEED_DEMO: z.enum(['true', 'false']).default('true'),
  /** Login and password-reset attempts per IP and e-mail in 5 minutes. */
  LOGIN_RATE_LIMIT: z.coerce.number().int().min(1).max(100000).default(10),
  WEB_DIST: z.string().optional(),
  /** ffmpeg for voice notes; "off" (or empty) sends recordings unconverted. */
  FFMPEG_PATH: z.string().default('ffmpeg'),
  /** Tenant-supplied URLs may reach private and loopback addresses (tests, self-hosted set-ups). */
  ALLOW_PRIVATE_URLS: z.enum(['true', 'false', '1', '0', '']).default('false'),
});

export interface Config {
  env: 'development' | 'production' | 'test';
  port: number;
  host: string;
  dataDir: string;
  databaseUrl?: string;
  redisUrl?: string;
  appSecret: string;
  jwtSecret: string;
  publicUrl: string;
  smtpUrl?: string;
  smtpFrom: string;
  superuserEmail?: string;
  superuserPassword?: string;
  logLevel: string;
  accessTokenTtl: number;
  refreshTokenTtl: number;
  seedDemo: boolean;
  loginRateLimit: number;
  webDist?: string;
  /** false: recordings are sent as plain audio files, unconverted. */
  ffmpegPath: string | false;
  /** ALLOW_PRIVATE_URLS: outbound calls to tenant URLs may reach private/loopback addresses (never metadata). */
  allowPrivateUrls: boolean;
}

const KNOWN_DEFAULTS = new Set(['', 'changeme', 'secret', 'recado', 'default']);
/** Passwords that ship in examples and docs (compared case-insensitively). */
const DEFAULT_PASSWORDS = new Set([
  ...KNOWN_DEFAULTS,
  'admin',
  'password',
  '123456',
  '12345678',
  'demo@1234',
]);
const GENERATED_SECRET_LENGTH = 64;

/** A production secret: long, not a known placeholder, and not one character (or word) repeated. */
const weakSecret = (value: string | undefined): boolean =>
  !value || value.length < 32 || KNOWN_DEFAULTS.has(value.toLowerCase()) || new Set(value).size < 10;

/**
 * Reads the environment once. Outside production, missing secrets are generated once into DATA_DIR so
 * tokens survive restarts; in production, missing, default or short secrets stop the server.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const e = EnvSchema.parse(env);
  const dataDir = resolve(e.DATA_DIR);
  const production = e.NODE_ENV === 'production';
  const secret = (name: 'APP_SECRET' | 'JWT_SECRET'): string => {
    const given = e[name];
    if (production) {
      if (weakSecret(given))
        throw new Error(`${name} must be set to a random value of at least 32 characters in production`);
      return given!;
    }
    if (given) return given;
    mkdirSync(dataDir, { recursive: true });
    const file = join(dataDir, `.${name.toLowerCase()}`);
    // An empty or truncated file (a crash mid-write) is replaced rather than used as a key.
    const stored = existsSync(file) ? readFileSync(file, 'utf8').trim() : '';
    if (stored.length >= 32) return stored;
    const generated = randomBytes(GENERATED_SECRET_LENGTH / 2).toString('hex');
    writeFileSync(file, generated, { mode: 0o600 });
    return generated;
  };
  const superPassword = e.SUPERUSER_PASSWORD;
  if (
    production &&
    superPassword &&
    (DEFAULT_PASSWORDS.has(superPassword.toLowerCase()) || superPassword.length < 8)
  )
    throw new Error('SUPERUSER_PASSWORD must not be a default or short (< 8) value in production');
  return {
    env: e.NODE_ENV,
    port: e.PORT,
    host: e.HOST,
    dataDir,
    databaseUrl: e.DATABASE_URL || undefined,
    redisUrl: e.REDIS_URL || undefined,
    appSecret: secret('APP_SECRET'),
    jwtSecret: secret('JWT_SECRET'),
    publicUrl: e.PUBLIC_URL ?? `http://localhost:${e.PORT}`,
    smtpUrl: e.SMTP_URL || undefined,
    smtpFrom: e.SMTP_FROM,
    superuserEmail: e.SUPERUSER_EMAIL,
    superuserPassword: e.SUPERUSER_PASSWORD,
    logLevel: e.LOG_LEVEL,
    accessTokenTtl: e.ACCESS_TOKEN_TTL,
    refreshTokenTtl: e.REFRESH_TOKEN_TTL,
    seedDemo: e.SEED_DEMO === 'true',
    loginRateLimit: e.LOGIN_RATE_LIMIT,
    webDist: e.WEB_DIST,
    ffmpegPath: ['', 'off', 'false'].includes(e.FFMPEG_PATH.trim()) ? false : e.FFMPEG_PATH.trim(),
    allowPrivateUrls: e.ALLOW_PRIVATE_URLS === 'true' || e.ALLOW_PRIVATE_URLS === '1',
  };
}
