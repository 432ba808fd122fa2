import { SECRET_MASK } from '@recado/contracts';
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { SecretBox } from '../../../lib/crypto.js';
import { AppError } from '../../../http/errors.js';
import { assertPublicUrl } from '../../../lib/safe-fetch.js';

/**
 * The Cloud API settings of one connection, kept in `whatsapps.channelConfig`.
 * The access token and the app secret are stored sealed (secretBox); the web only ever sees them masked.
 */

export const DEFAULT_GRAPH_BASE_URL = 'https://graph.facebook.com';
export const DEFAULT_GRAPH_API_VERSION = 'v21.0';

/** Settings shared with the Messenger Platform's channels (channels/meta/meta-config.ts). */
export const graphId = z
  .string()
  .trim()
  .regex(/^\d{1,32}$/, 'digits only');
export const graphBaseUrl = z
  .url({ protocol: /^https?$/ })
  .transform((u) => u.replace(/\/+$/, ''))
  .default(DEFAULT_GRAPH_BASE_URL);
export const apiVersion = z
  .string()
  .trim()
  .regex(/^v\d{1,3}\.\d{1,3}$/, 'like v21.0')
  .default(DEFAULT_GRAPH_API_VERSION);
export const verifyToken = z.string().trim().min(8).max(200);

/** What an admin submits. Secrets may be omitted (or sent as the mask) to keep the stored ones. */
export const CloudApiConfigInput = z.object({
  phoneNumberId: graphId,
  businessAccountId: graphId.optional(),
  accessToken: z.string().trim().min(1).max(4096).optional(),
  appSecret: z.string().trim().min(1).max(512).optional(),
  /** Generated when absent: the admin copies it into Meta's webhook settings. */
  verifyToken: verifyToken.optional(),
  graphBaseUrl,
  apiVersion,
});
export type CloudApiConfigInput = z.input<typeof CloudApiConfigInput>;

/** The form kept in the database. */
export const CloudApiStoredConfig = z.object({
  phoneNumberId: graphId,
  businessAccountId: graphId.optional(),
  accessTokenSealed: z.string().min(1),
  appSecretSealed: z.string().min(1),
  verifyToken,
  graphBaseUrl,
  apiVersion,
});
export type CloudApiStoredConfig = z.output<typeof CloudApiStoredConfig>;

/** The form the channel works with, secrets in clear (memory only). */
export const CloudApiOpenConfig = z.object({
  phoneNumberId: graphId,
  businessAccountId: graphId.optional(),
  accessToken: z.string().min(1),
  appSecret: z.string().min(1),
  verifyToken,
  graphBaseUrl,
  apiVersion,
});
export type CloudApiOpenConfig = z.output<typeof CloudApiOpenConfig>;

export interface CloudApiPublicConfig {
  phoneNumberId: string;
  businessAccountId?: string;
  verifyToken: string;
  graphBaseUrl: string;
  apiVersion: string;
  /** SECRET_MASK when set, '' when not. */
  accessToken: string;
  appSecret: string;
}

/** A stored configuration that cannot be used; `reason` is safe to show (never contains a secret). */
export class CloudConfigError extends Error {
  constructor(public readonly reason: string) {
    super(reason);
  }
}

const fieldsOf = (err: z.ZodError) => err.issues.map((i) => ({ path: i.path.join('.'), message: i.message }));

const keepOrNew = (value: string | undefined) =>
  value === undefined || value === SECRET_MASK ? undefined : value;

/**
 * Validates an admin's input and seals its secrets for storage. `previous` (the stored config, if any)
 * provides the secrets the input leaves out. Throws AppError ERR_VALIDATION (400) with the field list, or
 * ERR_URL_NOT_ALLOWED (400) for a Graph base URL the server must not call (private or loopback host unless
 * `allowPrivateUrls`, query string or fragment, credentials, not http(s)).
 */
export function sealCloudConfig(
  input: unknown,
  box: SecretBox,
  previous?: Record<string, unknown>,
  opts: { allowPrivateUrls?: boolean } = {},
): CloudApiStoredConfig {
  const parsed = CloudApiConfigInput.safeParse(input);
  if (!parsed.success)
    throw new AppError('ERR_VALIDATION', 400, 'Invalid Cloud API settings', {
      fields: fieldsOf(parsed.error),
    });
  const prev = previous ? CloudApiStoredConfig.partial().safeParse(previous) : undefined;
  const old = prev?.success ? prev.data : {};
  const v = parsed.data;
  assertPublicUrl(v.graphBaseUrl, {
    allowPrivate: opts.allowPrivateUrls,
    allowQuery: false,
    field: 'channelConfig.graphBaseUrl',
  });
  const accessToken = keepOrNew(v.accessToken);
  const appSecret = keepOrNew(v.appSecret);
  const accessTokenSealed = accessToken !== undefined ? box.seal(accessToken) : old.accessTokenSealed;
  const appSecretSealed = appSecret !== undefined ? box.seal(appSecret) : old.appSecretSealed;
  const missing = [
    ...(accessTokenSealed ? [] : [{ path: 'accessToken', message: 'required' }]),
    ...(appSecretSealed ? [] : [{ path: 'appSecret', message: 'required' }]),
  ];
  if (missing.length)
    throw new AppError('ERR_VALIDATION', 400, 'Invalid Cloud API settings', { fields: missing });
  return {
    phoneNumberId: v.phoneNumberId,
    ...(v.businessAccountId ? { businessAccountId: v.businessAccountId } : {}),
    accessTokenSealed: accessTokenSealed!,
    appSecretSealed: appSecretSealed!,
    verifyToken: v.verifyToken ?? old.verifyToken ?? randomBytes(24).toString('base64url'),
    graphBaseUrl: v.graphBaseUrl,
    apiVersion: v.apiVersion,
  };
}

/** Opens a stored configuration for use. Throws CloudConfigError when it is missing, invalid or undecryptable. */
export function openCloudConfig(stored: unknown, box: SecretBox): CloudApiOpenConfig {
  const parsed = CloudApiStoredConfig.safeParse(stored ?? {});
  if (!parsed.success)
    throw new CloudConfigError(
      `Cloud API settings incomplete: ${parsed.error.issues.map((i) => i.path.join('.') || 'config').join(', ')}`,
    );
  const { accessTokenSealed, appSecretSealed, ...rest } = parsed.data;
  try {
    return { ...rest, accessToken: box.open(accessTokenSealed), appSecret: box.open(appSecretSealed) };
  } catch {
    // Wrong APP_SECRET or tampered value: the secrets must be entered again.
    throw new CloudConfigError('Cloud API secrets cannot be decrypted; enter them again');
  }
}

/** What the web may see: ids and the verify token, secrets masked. Never throws. */
export function publicCloudConfig(stored: Record<string, unknown> | null | undefined): CloudApiPublicConfig {
  const s = stored ?? {};
  const str = (k: string) => (typeof s[k] === 'string' ? (s[k] as string) : '');
  return {
    phoneNumberId: str('phoneNumberId'),
    ...(str('businessAccountId') ? { businessAccountId: str('businessAccountId') } : {}),
    verifyToken: str('verifyToken'),
    graphBaseUrl: str('graphBaseUrl') || DEFAULT_GRAPH_BASE_URL,
    apiVersion: str('apiVersion') || DEFAULT_GRAPH_API_VERSION,
    accessToken: str('accessTokenSealed') ? SECRET_MASK : '',
    appSecret: str('appSecretSealed') ? SECRET_MASK : '',
  };
}
