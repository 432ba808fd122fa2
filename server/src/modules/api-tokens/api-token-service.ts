import { createHash, randomBytes } from 'node:crypto';
import { and, count, desc, eq, isNull, lt, or } from 'drizzle-orm';
import {
  API_TOKEN_HINT_LENGTH,
  API_TOKEN_LAST_USED_EVERY_MS,
  API_TOKEN_PREFIX,
  MAX_API_TOKENS,
  type ApiToken,
  type ApiTokenCreated,
  type ApiTokenInput,
  type ApiTokenKind,
  type ApiTokenScope,
} from '@recado/contracts';
import type { Db } from '../../db/client.js';
import { apiTokens, companies, users } from '../../db/schema/index.js';
import { AppError } from '../../http/errors.js';
import type { Tenant } from '../../http/tenant.js';
import type { Clock } from '../../lib/clock.js';
import type { Events } from '../../realtime/events.js';

/** Whether a bearer value is one of these tokens rather than a session's access token (a JWT). */
export const isApiToken = (bearer: string): boolean => bearer.startsWith(API_TOKEN_PREFIX);

/**
 * 32 random bytes (256 bits) after the prefix. A plain SHA-256 is the stored form: with that much entropy
 * nobody can guess a token from its hash, so a slow password hash would only add a delay to every call.
 */
const newToken = () => API_TOKEN_PREFIX + randomBytes(32).toString('base64url');
const hashToken = (token: string) => createHash('sha256').update(token, 'utf8').digest('hex');

/** The socket room / session id of a token's callers: revoking it disconnects their sockets. */
export const apiTokenSessionId = (id: number) => `pat-${id}`;

const view = {
  id: apiTokens.id,
  kind: apiTokens.kind,
  name: apiTokens.name,
  scope: apiTokens.scope,
  hint: apiTokens.hint,
  userId: apiTokens.userId,
  userName: users.name,
  createdAt: apiTokens.createdAt,
  expiresAt: apiTokens.expiresAt,
  lastUsedAt: apiTokens.lastUsedAt,
};
type Row = { [K in keyof typeof view]: unknown };
const asToken = (r: Row) => r as ApiToken;

export function apiTokenService({ db, events, clock }: { db: Db; events: Events; clock: Clock }) {
  /** A token can list and revoke, never mint another one: creation needs a signed-in browser. */
  const refuseTokenCaller = (t: Tenant) => {
    if (t.apiToken)
      throw new AppError('ERR_API_TOKEN_SCOPE', 403, 'API tokens are created from a signed-in session');
  };

  /** Unrevoked tokens of the kind that the caller lists and counts (personal ones: only their own). */
  const activeTokens = (t: Tenant, kind: ApiTokenKind) =>
    and(
      eq(apiTokens.companyId, t.companyId),
      eq(apiTokens.kind, kind),
      isNull(apiTokens.revokedAt),
      kind === 'user' ? eq(apiTokens.userId, t.userId) : undefined,
    );

  async function list(t: Tenant, kind: ApiTokenKind) {
    const rows = await db
      .select(view)
      .from(apiTokens)
      .innerJoin(users, eq(users.id, apiTokens.userId))
      .where(activeTokens(t, kind))
      .orderBy(desc(apiTokens.id));
    return { tokens: rows.map(asToken) };
  }

  async function create(t: Tenant, kind: ApiTokenKind, input: ApiTokenInput): Promise<ApiTokenCreated> {
    refuseTokenCaller(t);
    const token = newToken();
    const now = clock.now();
    const row = await db.transaction(async (tx) => {
      // The owner's row lock makes "count, then insert" atomic against parallel creations.
      await tx.select({ id: users.id }).from(users).where(eq(users.id, t.userId)).for('update');
      const [active] = await tx.select({ n: count() }).from(apiTokens).where(activeTokens(t, kind));
      if ((active?.n ?? 0) >= MAX_API_TOKENS)
        throw new AppError('ERR_API_TOKEN_LIMIT', 400, `At most ${MAX_API_TOKENS} active tokens`);
      const [inserted] = await tx
        .insert(apiTokens)
        .values({
          companyId: t.companyId,
          userId: t.userId,
          kind,
          name: input.name,
          scope: input.scope,
          tokenHash: hashToken(token),
          hint: token.slice(0, API_TOKEN_HINT_LENGTH),
          expiresAt: input.expiresInDays ? new Date(now.getTime() + input.expiresInDays * 86_400_000) : null,
          createdAt: now,
        })
        .returning({ id: apiTokens.id });
      return inserted!;
    });
    const [created] = await db
      .select(view)
      .from(apiTokens)
      .innerJoin(users, eq(users.id, apiTokens.userId))
      .where(eq(apiTokens.id, row.id));
    return { ...asToken(created!), token };
  }

  async function revoke(t: Tenant, kind: ApiTokenKind, id: number) {
    const ended = await db
      .update(apiTokens)
      .set({ revokedAt: clock.now() })
      .where(
        and(
          eq(apiTokens.id, id),
          eq(apiTokens.companyId, t.companyId),
          eq(apiTokens.kind, kind),
          isNull(apiTokens.revokedAt),
          kind === 'user' ? eq(apiTokens.userId, t.userId) : undefined,
        ),
      )
      .returning({ id: apiTokens.id });
    if (!ended.length) throw new AppError('ERR_NO_API_TOKEN_FOUND', 404);
    // Sockets opened with the token close at once; HTTP calls are checked against the database every time.
    events.endSessions([apiTokenSessionId(id)], 'api token revoked');
    return { message: 'API token revoked' };
  }

  return {
    /**
     * The caller of a `rec_pat_` bearer: its user's tenant (a company token: its admin, as an admin), or an
     * error. Read from the database on every call, so a revocation, expiry or deleted user counts at once.
     */
    async authenticate(bearer: string): Promise<Tenant> {
      const [r] = await db
        .select({
          id: apiTokens.id,
          kind: apiTokens.kind,
          scope: apiTokens.scope,
          companyId: apiTokens.companyId,
          expiresAt: apiTokens.expiresAt,
          revokedAt: apiTokens.revokedAt,
          lastUsedAt: apiTokens.lastUsedAt,
          userId: users.id,
          userCompanyId: users.companyId,
          profile: users.profile,
          super: users.super,
          companyActive: companies.status,
        })
        .from(apiTokens)
        .innerJoin(users, eq(users.id, apiTokens.userId))
        .innerJoin(companies, eq(companies.id, apiTokens.companyId))
        .where(eq(apiTokens.tokenHash, hashToken(bearer)));
      const invalid = () => new AppError('ERR_API_TOKEN_INVALID', 401, 'Invalid or revoked API token');
      if (!r || r.revokedAt || r.userCompanyId !== r.companyId) throw invalid();
      // A company token acts through an admin; it stops when that user is no longer one.
      const admin = r.profile === 'admin' || r.super;
      if (r.kind === 'company' && !admin) throw invalid();
      const now = clock.now();
      if (r.expiresAt && r.expiresAt <= now)
        throw new AppError('ERR_API_TOKEN_EXPIRED', 401, 'API token expired');
      if (!r.companyActive && !r.super)
        throw new AppError('ERR_COMPANY_INACTIVE', 403, 'This company is inactive');
      if (!r.lastUsedAt || now.getTime() - r.lastUsedAt.getTime() >= API_TOKEN_LAST_USED_EVERY_MS) {
        // At most one write a minute per token, across processes (the condition loses a race harmlessly).
        const before = new Date(now.getTime() - API_TOKEN_LAST_USED_EVERY_MS);
        await db
          .update(apiTokens)
          .set({ lastUsedAt: now })
          .where(
            and(eq(apiTokens.id, r.id), or(isNull(apiTokens.lastUsedAt), lt(apiTokens.lastUsedAt, before))),
          );
      }
      return {
        userId: r.userId,
        companyId: r.companyId,
        profile: r.kind === 'company' ? 'admin' : r.profile,
        super: r.kind === 'company' ? false : r.super,
        sessionId: apiTokenSessionId(r.id),
        apiToken: { id: r.id, kind: r.kind as ApiTokenKind, scope: r.scope as ApiTokenScope },
      };
    },
    listMine: (t: Tenant) => list(t, 'user'),
    createMine: (t: Tenant, input: ApiTokenInput) => create(t, 'user', input),
    revokeMine: (t: Tenant, id: number) => revoke(t, 'user', id),
    listCompany: (t: Tenant) => list(t, 'company'),
    createCompany: (t: Tenant, input: ApiTokenInput) => create(t, 'company', input),
    revokeCompany: (t: Tenant, id: number) => revoke(t, 'company', id),
  };
}
export type ApiTokenService = ReturnType<typeof apiTokenService>;
