import { randomBytes } from 'node:crypto';
import { SECRET_MASK } from '@recado/contracts';
import { z } from 'zod';
import type { SecretBox } from '../../../lib/crypto.js';
import { AppError } from '../../../http/errors.js';
import { assertPublicUrl } from '../../../lib/safe-fetch.js';
import {
  apiVersion,
  CloudConfigError,
  graphBaseUrl,
  graphId,
  verifyToken,
} from '../cloud-api/cloud-api-config.js';

/**
 * The Messenger Platform settings of an `instagram` or `messenger` connection, kept in
 * `whatsapps.channelConfig` (docs/channels.md "Instagram and Messenger"). The page access token and the app
 * secret are stored sealed (SecretBox) and only ever shown masked; the verify token is shown (the admin pastes
 * it into Meta's dashboard).
 */

export type MetaChannelKind = 'instagram' | 'messenger';
export const META_CHANNELS: readonly MetaChannelKind[] = ['instagram', 'messenger'];
export const isMetaChannel = (c: string): c is MetaChannelKind => c === 'instagram' || c === 'messenger';

/** What an admin submits. Secrets may be omitted (or sent as the mask) to keep the stored ones. */
export const MetaConfigInput = z.object({
  /** Messenger: the Facebook page's id (entry[].id of `object: 'page'` events). */
  pageId: graphId.optional(),
  /** Instagram: the Instagram professional account's id (entry[].id of `object: 'instagram'` events). */
  instagramAccountId: graphId.optional(),
  pageAccessToken: z.string().trim().min(1).max(4096).optional(),
  appSecret: z.string().trim().min(1).max(512).optional(),
  /** Generated when absent: the admin copies it into Meta's webhook settings. */
  verifyToken: verifyToken.optional(),
  graphBaseUrl,
  apiVersion,
});
export type MetaConfigInput = z.input<typeof MetaConfigInput>;

const common = {
  pageId: graphId.optional(),
  instagramAccountId: graphId.optional(),
  verifyToken,
  graphBaseUrl,
  apiVersion,
};

/** The form kept in the database. */
export const MetaStoredConfig = z.object({
  ...common,
  pageAccessTokenSealed: z.string().min(1),
  appSecretSealed: z.string().min(1),
});
export type MetaStoredConfig = z.output<typeof MetaStoredConfig>;

/** The form the channel works with, secrets in clear (memory only); `accountId` is the page or IG account. */
export interface MetaOpenConfig {
  channel: MetaChannelKind;
  accountId: string;
  pageAccessToken: string;
  appSecret: string;
  verifyToken: string;
  graphBaseUrl: string;
  apiVersion: string;
}

const fieldsOf = (err: z.ZodError) => err.issues.map((i) => ({ path: i.path.join('.'), message: i.message }));
const keepOrNew = (value: string | undefined) =>
  value === undefined || value === SECRET_MASK ? undefined : value;
const accountKey = (channel: MetaChannelKind) => (channel === 'messenger' ? 'pageId' : 'instagramAccountId');

/**
 * Validates an admin's input and seals its secrets for storage; `previous` (the stored config) provides the
 * secrets the input leaves out. ERR_VALIDATION 400 with the field list, or ERR_URL_NOT_ALLOWED 400 for a
 * Graph base URL the server must not call.
 */
export function sealMetaConfig(
  channel: MetaChannelKind,
  input: unknown,
  box: SecretBox,
  previous?: Record<string, unknown>,
  opts: { allowPrivateUrls?: boolean } = {},
): MetaStoredConfig {
  const parsed = MetaConfigInput.safeParse(input ?? {});
  const invalid = (fields: { path: string; message: string }[]) =>
    new AppError('ERR_VALIDATION', 400, `Invalid ${channel} settings`, { fields });
  if (!parsed.success) throw invalid(fieldsOf(parsed.error));
  const prev = previous ? MetaStoredConfig.partial().safeParse(previous) : undefined;
  const old = prev?.success ? prev.data : {};
  const v = parsed.data;
  assertPublicUrl(v.graphBaseUrl, {
    allowPrivate: opts.allowPrivateUrls,
    allowQuery: false,
    field: 'channelConfig.graphBaseUrl',
  });
  const key = accountKey(channel);
  const token = keepOrNew(v.pageAccessToken);
  const secret = keepOrNew(v.appSecret);
  const pageAccessTokenSealed = token !== undefined ? box.seal(token) : old.pageAccessTokenSealed;
  const appSecretSealed = secret !== undefined ? box.seal(secret) : old.appSecretSealed;
  const missing = [
    ...(v[key] ? [] : [{ path: key, message: 'required' }]),
    ...(pageAccessTokenSealed ? [] : [{ path: 'pageAccessToken', message: 'required' }]),
    ...(appSecretSealed ? [] : [{ path: 'appSecret', message: 'required' }]),
  ];
  if (missing.length) throw invalid(missing);
  return {
    [key]: v[key]!,
    pageAccessTokenSealed: pageAccessTokenSealed!,
    appSecretSealed: appSecretSealed!,
    verifyToken: v.verifyToken ?? old.verifyToken ?? randomBytes(24).toString('base64url'),
    graphBaseUrl: v.graphBaseUrl,
    apiVersion: v.apiVersion,
  };
}

/** Opens a stored configuration for use. Throws CloudConfigError (a reason safe to show) when it cannot. */
export function openMetaConfig(channel: MetaChannelKind, stored: unknown, box: SecretBox): MetaOpenConfig {
  const parsed = MetaStoredConfig.safeParse(stored ?? {});
  const accountId = parsed.success ? parsed.data[accountKey(channel)] : undefined;
  if (!parsed.success || !accountId)
    throw new CloudConfigError(
      `${channel} settings incomplete: ${
        parsed.success
          ? accountKey(channel)
          : parsed.error.issues.map((i) => i.path.join('.') || 'config').join(', ')
      }`,
    );
  const { pageAccessTokenSealed, appSecretSealed, verifyToken, graphBaseUrl, apiVersion } = parsed.data;
  try {
    return {
      channel,
      accountId,
      pageAccessToken: box.open(pageAccessTokenSealed),
      appSecret: box.open(appSecretSealed),
      verifyToken,
      graphBaseUrl,
      apiVersion,
    };
  } catch {
    throw new CloudConfigError(`${channel} secrets cannot be decrypted; enter them again`);
  }
}
