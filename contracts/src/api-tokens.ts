import { z } from 'zod';
import { Timestamp } from './responses.js';

/**
 * Personal and company API tokens (docs/api.md "API tokens"): `Authorization: Bearer rec_pat_…` on every
 * `/api` route, under the owner's permissions and the token's scope.
 */
export const API_TOKEN_PREFIX = 'rec_pat_';
/** Characters of the token kept in plain to recognise it in a list (`rec_pat_` + 4). */
export const API_TOKEN_HINT_LENGTH = API_TOKEN_PREFIX.length + 4;
/** Active (not revoked) tokens a user, or a company's server-to-server list, may hold. */
export const MAX_API_TOKENS = 20;
/** How often the last use of a token is written at most (the request that finds it older writes it). */
export const API_TOKEN_LAST_USED_EVERY_MS = 60_000;

/** Each scope includes the one before: read (GET/HEAD) ⊂ write (any method) ⊂ admin (admin routes too). */
export const API_TOKEN_SCOPES = ['read', 'write', 'admin'] as const;
export const ApiTokenScope = z.enum(API_TOKEN_SCOPES);
export type ApiTokenScope = z.infer<typeof ApiTokenScope>;

export const API_TOKEN_KINDS = ['user', 'company'] as const;
export const ApiTokenKind = z.enum(API_TOKEN_KINDS);
export type ApiTokenKind = z.infer<typeof ApiTokenKind>;

/** Expiry choices offered by the web; the API takes any whole number of days in range, or none. */
export const API_TOKEN_EXPIRY_DAYS = [30, 90, 365] as const;

/** Whether a token of `scope` may make a call with `method` on a route for `role` (docs/api.md). */
export function apiTokenAllows(
  scope: ApiTokenScope,
  method: string,
  role: 'public' | 'user' | 'supervisor' | 'admin' | 'super',
): boolean {
  if ((role === 'admin' || role === 'super') && scope !== 'admin') return false;
  const reads = method === 'GET' || method === 'HEAD' || method === 'OPTIONS';
  return reads || scope !== 'read';
}

/** POST /api-tokens and /api-tokens/company. */
export const ApiTokenInput = z.object({
  name: z.string().trim().min(1).max(80),
  scope: ApiTokenScope,
  /** Days until it stops working; absent or null: it never expires. */
  expiresInDays: z.number().int().min(1).max(3650).nullish(),
});
export type ApiTokenInput = z.infer<typeof ApiTokenInput>;

export const ApiToken = z.object({
  id: z.number(),
  kind: ApiTokenKind,
  name: z.string(),
  scope: ApiTokenScope,
  /** `rec_pat_AbCd`: the start of the token, to recognise it. */
  hint: z.string(),
  /** The owner (user token) or the admin a company token acts through. */
  userId: z.number(),
  userName: z.string(),
  createdAt: Timestamp,
  expiresAt: Timestamp.nullable(),
  lastUsedAt: Timestamp.nullable(),
});
export type ApiToken = z.infer<typeof ApiToken>;

/** The creation answer: the only time the token itself is ever sent. */
export const ApiTokenCreated = ApiToken.extend({ token: z.string() });
export type ApiTokenCreated = z.infer<typeof ApiTokenCreated>;

export const ApiTokenList = z.object({ tokens: z.array(ApiToken) });
export type ApiTokenList = z.infer<typeof ApiTokenList>;
