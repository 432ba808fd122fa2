import { createECDH, randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
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
  /** Default: true outside production, false in production (where true is refused). */
  SEED_DEMO: z.enum(['true', 'false']).optional(),
  /** Which peers may set X-Forwarded-For: off, true (any), a hop count, or comma-separated IPs/CIDRs. */
  TRUST_PROXY: z.string().default('false'),
  /** Failed logins per 5 minutes, per address, per account and per known browser (see docs/security.md). */
  LOGIN_RATE_LIMIT: z.coerce.number().int().min(1).max(100000).default(10),
  /** External API calls per minute per connection token (docs/external-api.md). */
  API_RATE_LIMIT: z.coerce.number().int().min(1).max(100000).default(120),
  WEB_DIST: z.string().optional(),
  /** Tests only: the process kills itself right after a change that staged this event committed (docs/events.md). */
  RECADO_TEST_CRASH_AFTER_COMMIT: z.string().optional(),
  /** ffmpeg for voice notes; "off" (or empty) sends recordings unconverted. */
  FFMPEG_PATH: z.string().default('ffmpeg'),
  /** Tenant-supplied URLs may reach private and loopback addresses (tests, self-hosted set-ups). */
  ALLOW_PRIVATE_URLS: z.enum(['true', 'false', '1', '0', '']).default('false'),
  /** Web Push (docs/push.md): the VAPID key pair (base64url) and the contact the push services see. */
  VAPID_PUBLIC_KEY: z.string().optional(),
  VAPID_PRIVATE_KEY: z.string().optional(),
  VAPID_SUBJECT: z.string().optional(),
  /** Outside services' base URLs (GUIDE §8): tests point them at local fakes. */
  OPENAI_BASE_URL: z.string().url().default('https://api.openai.com/v1'),
  /** The operator's Graph API endpoint for Cloud API connections on Meta's default URL (docs/cloud-api.md). */
  CLOUD_API_GRAPH_URL: z.string().url().optional(),
  /** #34 The Telegram Bot API (docs/channels.md "Telegram"): tests point it at a local stand-in. */
  TELEGRAM_API_URL: z.string().url().default('https://api.telegram.org'),
  DIALOGFLOW_API_URL: z.string().url().default('https://dialogflow.googleapis.com'),
  GOOGLE_TOKEN_URL: z.string().url().default('https://oauth2.googleapis.com/token'),
  /** Bearer token for GET /metrics; unset, only direct (unproxied) loopback callers may read it. */
  METRICS_TOKEN: z.string().optional(),
  /** `off` closes /api/openapi.json and /api/docs (404); `public` (default) serves them to anyone. */
  API_DOCS: z.enum(['public', 'off']).default('public'),
  /** Asaas REST base URL (sandbox outside production); tests point it at a local fake. */
  ASAAS_API_URL: z.string().url().optional(),
  /** The token Asaas sends in `asaas-access-token` on its webhooks; unset refuses every webhook. */
  ASAAS_WEBHOOK_TOKEN: z.string().optional(),
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
  /** Fastify's trustProxy: whose X-Forwarded-For decides the client address. */
  trustProxy: boolean | number | string[];
  loginRateLimit: number;
  /** External API calls per minute per connection token. */
  apiRateLimit: number;
  webDist?: string;
  /** false: recordings are sent as plain audio files, unconverted. */
  ffmpegPath: string | false;
  /** ALLOW_PRIVATE_URLS: outbound calls to tenant URLs may reach private/loopback addresses (never metadata). */
  allowPrivateUrls: boolean;
  /** Tests only (RECADO_TEST_CRASH_AFTER_COMMIT; ignored in production): see events/outbox.ts. */
  testCrashAfterCommit?: string;
  /** Web Push keys; null when push is off (production without VAPID_* keys). */
  vapid: { publicKey: string; privateKey: string; subject: string } | null;
  /** OpenAI (or compatible) API base URL used by prompts without a base URL of their own. */
  openaiBaseUrl: string;
  /** CLOUD_API_GRAPH_URL: where connections on Meta's default Graph URL are sent instead (trusted). */
  cloudApiGraphUrl?: string;
  dialogflowApiUrl: string;
  /** TELEGRAM_API_URL: the Bot API's base (trusted, the operator's). */
  telegramApiUrl: string;
  googleTokenUrl: string;
  /** METRICS_TOKEN: /metrics asks for it as a bearer token. */
  metricsToken?: string;
  /** API_DOCS: whether /api/openapi.json and /api/docs are served (docs/security.md). */
  apiDocs: 'public' | 'off';
  /** ASAAS_API_URL: the payment provider's base URL, ending in /v3 (docs/billing.md). */
  asaasApiUrl: string;
  /** ASAAS_WEBHOOK_TOKEN: what `asaas-access-token` must be on `POST /api/webhooks/asaas`. */
  asaasWebhookToken?: string;
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

/** Keyboard and alphabet runs: neighbours in one of these (either direction) count as "easy" pairs. */
const RUNS = ['abcdefghijklmnopqrstuvwxyz', '0123456789', 'qwertyuiop', 'asdfghjkl', 'zxcvbnm', '1234567890'];
const easyPair = (a: string, b: string): boolean => {
  if (a === b) return true;
  const x = a.toLowerCase();
  const y = b.toLowerCase();
  if (Math.abs(x.charCodeAt(0) - y.charCodeAt(0)) === 1) return true;
  return RUNS.some((r) => {
    const i = r.indexOf(x);
    return i >= 0 && (r[i + 1] === y || r[i - 1] === y);
  });
};
/** True when the value is a shorter unit repeated ("Ab3$Ab3$...", "abcdefabcdef..."). */
const periodic = (v: string): boolean => {
  for (let p = 1; p <= v.length / 2; p++) {
    let same = true;
    for (let i = p; i < v.length && same; i++) same = v[i] === v[i - p];
    if (same) return true;
  }
  return false;
};

/**
 * A production secret: long, not a known placeholder, not one character or word repeated, not an
 * alphabet or keyboard run, and made of enough distinct characters.
 */
export const weakSecret = (value: string | undefined): boolean => {
  if (!value || value.length < 32 || KNOWN_DEFAULTS.has(value.toLowerCase())) return true;
  if (new Set(value).size < 10 || periodic(value)) return true;
  let easy = 0;
  for (let i = 1; i < value.length; i++) if (easyPair(value[i - 1]!, value[i]!)) easy++;
  // Random text has almost no such pairs; "abcdef…", "aaaa…", "qwerty…" are mostly made of them.
  return easy / (value.length - 1) > 0.5;
};

const IPV4_CIDR = /^(\d{1,3}(?:\.\d{1,3}){3})\/(\d{1,2})$/;
const IPV6_CIDR = /^([0-9a-f:.]+)\/(\d{1,3})$/i;
/** TRUST_PROXY: "false"/"" (default), "true", a hop count, or comma-separated IPs and CIDRs. */
export function parseTrustProxy(raw: string): boolean | number | string[] {
  const v = raw.trim().toLowerCase();
  if (v === '' || v === 'false' || v === 'off' || v === '0') return false;
  if (v === 'true') return true;
  if (/^\d+$/.test(v)) return Number(v);
  const list = raw
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);
  for (const item of list) {
    const v4 = IPV4_CIDR.exec(item);
    const v6 = IPV6_CIDR.exec(item);
    const ok =
      isIP(item) !== 0 ||
      (v4 && isIP(v4[1]!) === 4 && Number(v4[2]) <= 32) ||
      (v6 && isIP(v6[1]!) === 6 && Number(v6[2]) <= 128) ||
      ['loopback', 'linklocal', 'uniquelocal'].includes(item);
    if (!ok)
      throw new Error(
        `TRUST_PROXY: "${item}" is not an IP address or CIDR (use true, false, a hop count or a list of addresses)`,
      );
  }
  return list;
}

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
        throw new Error(
          `${name} must be set to a random value of at least 32 characters in production (no runs, repeats or placeholders)`,
        );
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
  const vapid = vapidKeys(e, dataDir, production);
  const superPassword = e.SUPERUSER_PASSWORD;
  if (
    production &&
    superPassword &&
    (DEFAULT_PASSWORDS.has(superPassword.toLowerCase()) || superPassword.length < 8)
  )
    throw new Error('SUPERUSER_PASSWORD must not be a default or short (< 8) value in production');
  // The demo company's passwords are published in the README: never on a production install.
  if (production && e.SEED_DEMO === 'true')
    throw new Error(
      'SEED_DEMO=true is refused in production: the demo company signs in with published passwords',
    );
  const appSecret = secret('APP_SECRET');
  const jwtSecret = secret('JWT_SECRET');
  // One leaked key must not give the other: sealed secrets and signed tokens use different keys.
  if (production && appSecret === jwtSecret)
    throw new Error('APP_SECRET and JWT_SECRET must be different values in production');
  return {
    env: e.NODE_ENV,
    port: e.PORT,
    host: e.HOST,
    dataDir,
    databaseUrl: e.DATABASE_URL || undefined,
    redisUrl: e.REDIS_URL || undefined,
    appSecret,
    jwtSecret,
    publicUrl: e.PUBLIC_URL ?? `http://localhost:${e.PORT}`,
    smtpUrl: e.SMTP_URL || undefined,
    smtpFrom: e.SMTP_FROM,
    superuserEmail: e.SUPERUSER_EMAIL,
    superuserPassword: e.SUPERUSER_PASSWORD,
    logLevel: e.LOG_LEVEL,
    accessTokenTtl: e.ACCESS_TOKEN_TTL,
    refreshTokenTtl: e.REFRESH_TOKEN_TTL,
    seedDemo: (e.SEED_DEMO ?? (production ? 'false' : 'true')) === 'true',
    trustProxy: parseTrustProxy(e.TRUST_PROXY),
    loginRateLimit: e.LOGIN_RATE_LIMIT,
    apiRateLimit: e.API_RATE_LIMIT,
    webDist: e.WEB_DIST,
    ffmpegPath: ['', 'off', 'false'].includes(e.FFMPEG_PATH.trim()) ? false : e.FFMPEG_PATH.trim(),
    allowPrivateUrls: e.ALLOW_PRIVATE_URLS === 'true' || e.ALLOW_PRIVATE_URLS === '1',
    ...(e.RECADO_TEST_CRASH_AFTER_COMMIT && !production
      ? { testCrashAfterCommit: e.RECADO_TEST_CRASH_AFTER_COMMIT }
      : {}),
    vapid,
    openaiBaseUrl: e.OPENAI_BASE_URL.replace(/\/+$/, ''),
    ...(e.CLOUD_API_GRAPH_URL ? { cloudApiGraphUrl: e.CLOUD_API_GRAPH_URL.replace(/\/+$/, '') } : {}),
    dialogflowApiUrl: e.DIALOGFLOW_API_URL.replace(/\/+$/, ''),
    telegramApiUrl: e.TELEGRAM_API_URL.replace(/\/+$/, ''),
    googleTokenUrl: e.GOOGLE_TOKEN_URL,
    metricsToken: e.METRICS_TOKEN || undefined,
    apiDocs: e.API_DOCS,
    asaasApiUrl: (
      e.ASAAS_API_URL || (production ? 'https://api.asaas.com/v3' : 'https://sandbox.asaas.com/api/v3')
    ).replace(/\/+$/, ''),
    asaasWebhookToken: e.ASAAS_WEBHOOK_TOKEN || undefined,
  };
}

const BASE64URL = /^[A-Za-z0-9_-]+$/;
/** A P-256 key pair in the base64url form Web Push uses (65-byte public point, 32-byte private scalar). */
const newVapidKeys = () => {
  const ecdh = createECDH('prime256v1');
  ecdh.generateKeys();
  return {
    publicKey: ecdh.getPublicKey().toString('base64url'),
    // A scalar with leading zero bytes comes back shorter: Web Push wants exactly 32 bytes.
    privateKey: Buffer.concat([Buffer.alloc(32), ecdh.getPrivateKey()])
      .subarray(-32)
      .toString('base64url'),
  };
};
const validVapid = (k: { publicKey?: string; privateKey?: string }) =>
  Boolean(
    k.publicKey &&
    k.privateKey &&
    BASE64URL.test(k.publicKey) &&
    BASE64URL.test(k.privateKey) &&
    Buffer.from(k.publicKey, 'base64url').length === 65 &&
    Buffer.from(k.privateKey, 'base64url').length === 32,
  );

/**
 * Web Push keys: VAPID_PUBLIC_KEY and VAPID_PRIVATE_KEY (both or neither); outside production, missing keys
 * are generated once into DATA_DIR/.vapid.json. Production without them runs with push off.
 */
function vapidKeys(e: z.infer<typeof EnvSchema>, dataDir: string, production: boolean): Config['vapid'] {
  const subject = e.VAPID_SUBJECT?.trim() || 'mailto:no-reply@recado.local';
  if (!/^(mailto:|https:\/\/)/.test(subject))
    throw new Error('VAPID_SUBJECT must be a mailto: address or an https:// URL');
  const given = { publicKey: e.VAPID_PUBLIC_KEY?.trim(), privateKey: e.VAPID_PRIVATE_KEY?.trim() };
  if (given.publicKey || given.privateKey) {
    if (!validVapid(given))
      throw new Error(
        'VAPID_PUBLIC_KEY and VAPID_PRIVATE_KEY must both be set to a P-256 key pair in base64url (npx web-push generate-vapid-keys)',
      );
    return { publicKey: given.publicKey!, privateKey: given.privateKey!, subject };
  }
  if (production) return null;
  mkdirSync(dataDir, { recursive: true });
  const file = join(dataDir, '.vapid.json');
  try {
    const stored = JSON.parse(readFileSync(file, 'utf8')) as { publicKey?: string; privateKey?: string };
    if (validVapid(stored)) return { publicKey: stored.publicKey!, privateKey: stored.privateKey!, subject };
  } catch {
    // Missing or unreadable: generated below.
  }
  const generated = newVapidKeys();
  writeFileSync(file, JSON.stringify(generated), { mode: 0o600 });
  return { ...generated, subject };
}
