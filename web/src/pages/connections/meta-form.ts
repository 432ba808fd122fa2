import { z } from 'zod';
import { SECRET_MASK, type Whatsapp } from '@recado/contracts';

/**
 * #34 The connection form's Instagram / Messenger section (docs/channels.md "Instagram and Messenger"): the page
 * id (Messenger) or Instagram account id, the page access token and the app secret (kept when left empty on an
 * edit: they come back masked), the verify token Meta's dashboard asks for, and an optional Graph base URL.
 */
export interface MetaForm {
  accountId: string;
  pageAccessToken: string;
  appSecret: string;
  verifyToken: string;
  graphBaseUrl: string;
  /** Secrets stored already (masked): empty means "keep it". */
  storedToken: boolean;
  storedSecret: boolean;
}

const isMeta = (c: string | undefined): c is 'instagram' | 'messenger' =>
  c === 'instagram' || c === 'messenger';
const str = (v: unknown) => (typeof v === 'string' ? v : '');

/** A verify token for a new connection (shown and pasted into Meta's dashboard; the server keeps it). */
export function newVerifyToken(): string {
  const bytes = new Uint8Array(18);
  crypto.getRandomValues(bytes);
  return btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');
}

export const metaFormValues = (w: Whatsapp | null): MetaForm => {
  const cfg = isMeta(w?.channel) ? w.channelConfig : {};
  return {
    accountId: str(w?.channel === 'messenger' ? cfg.pageId : cfg.instagramAccountId),
    pageAccessToken: '',
    appSecret: '',
    verifyToken: str(cfg.verifyToken) || (w ? '' : newVerifyToken()),
    graphBaseUrl: str(cfg.graphBaseUrl) === 'https://graph.facebook.com' ? '' : str(cfg.graphBaseUrl),
    storedToken: cfg.pageAccessTokenSealed === SECRET_MASK,
    storedSecret: cfg.appSecretSealed === SECRET_MASK,
  };
};

export const MetaFormSchema = z.object({
  accountId: z.string().max(32),
  pageAccessToken: z.string().max(4096),
  appSecret: z.string().max(512),
  verifyToken: z.string().max(200),
  graphBaseUrl: z.string().max(500),
  storedToken: z.boolean(),
  storedSecret: z.boolean(),
});

type MetaPath = ['meta', keyof MetaForm];

/** The form's rules for an Instagram or Messenger connection (the server checks them again). */
export function checkMeta(v: MetaForm, issue: (path: MetaPath, message: string) => void) {
  const id = v.accountId.trim();
  if (!id) issue(['meta', 'accountId'], 'common.required');
  else if (!/^\d{1,32}$/.test(id)) issue(['meta', 'accountId'], 'connections.cloud.digitsOnly');
  if (!v.pageAccessToken.trim() && !v.storedToken) issue(['meta', 'pageAccessToken'], 'common.required');
  if (!v.appSecret.trim() && !v.storedSecret) issue(['meta', 'appSecret'], 'common.required');
  if (v.verifyToken.trim() && v.verifyToken.trim().length < 8)
    issue(['meta', 'verifyToken'], 'connections.cloud.verifyTokenShort');
  if (v.graphBaseUrl.trim() && !/^https?:\/\/[^\s/?#]+[^\s?#]*$/.test(v.graphBaseUrl.trim()))
    issue(['meta', 'graphBaseUrl'], 'connections.cloud.invalidUrl');
}

/**
 * The channelConfig sent: empty or masked secrets are left out (the server keeps the stored ones); undefined on
 * an edit that changed nothing (`initial`: the values the form opened with), so the connection is not restarted.
 */
export function metaChannelConfig(
  channel: 'instagram' | 'messenger',
  v: MetaForm,
  initial?: MetaForm,
): Record<string, string> | undefined {
  if (initial && JSON.stringify(build(channel, v)) === JSON.stringify(build(channel, initial)))
    return undefined;
  return build(channel, v);
}

function build(channel: 'instagram' | 'messenger', v: MetaForm) {
  const config: Record<string, string> = {
    [channel === 'messenger' ? 'pageId' : 'instagramAccountId']: v.accountId.trim(),
  };
  for (const key of ['pageAccessToken', 'appSecret'] as const) {
    const s = v[key].trim();
    if (s && s !== SECRET_MASK) config[key] = s;
  }
  if (v.verifyToken.trim()) config.verifyToken = v.verifyToken.trim();
  if (v.graphBaseUrl.trim()) config.graphBaseUrl = v.graphBaseUrl.trim();
  return config;
}

export { isMeta as isMetaChannel };
