import { createHmac, timingSafeEqual } from 'node:crypto';
import { and, count, desc, eq, gt, isNull, or } from 'drizzle-orm';
import {
  RESET_CODE_TTL_MINUTES,
  SUPER_ONLY_SETTINGS,
  SETTING_DEFAULTS,
  subscriptionState,
  type AuthUser,
  type ResetPasswordInput,
  type SettingKey,
} from '@recado/contracts';
import { maskSecretSetting } from '../settings/setting-service.js';
import type { Db } from '../../db/client.js';
import { companies, passwordResets, userSessions, users } from '../../db/schema/index.js';
import { AppError } from '../../http/errors.js';
import type { Tenant } from '../../http/tenant.js';
import { dummyHash, hashPassword, verifyPassword } from '../../lib/passwords.js';
import { newOpaqueToken, newResetCode, newSessionId, sha256, type TokenService } from '../../lib/tokens.js';
import type { Mailer } from '../../mail/mailer.js';
import type { Events } from '../../realtime/events.js';
import { companyQueries } from '../companies/company-queries.js';
import { userQueries } from '../users/user-queries.js';
import { sessionCache, type SessionCache } from './session-cache.js';
import type { LoginThrottle } from './login-throttle.js';
import { truncate } from '../../lib/text.js';

/** How long a just-rotated refresh token is still honoured (two tabs refreshing at once). */
const ROTATION_GRACE_MS = 30_000;
const MAX_RESET_ATTEMPTS = 5;
/** Reset codes one account can be sent per hour (a mailbox is not a free SMS gateway for attackers). */
export const RESET_CODES_PER_HOUR = 3;

export interface AuthDeps {
  db: Db;
  tokens: TokenService;
  events: Events;
  mailer: Mailer;
  appSecret: string;
  refreshTtlSeconds: number;
  publicUrl: string;
  /** Live sessions remembered for a few seconds (shared with the events that invalidate it). */
  sessionCache?: SessionCache;
  /** Failed-login limits per address, account and known browser; absent: no limit (unit tests). */
  throttle?: LoginThrottle;
}

export interface LoginContext {
  userAgent?: string;
  /** The client address (X-Forwarded-For only from TRUST_PROXY peers). */
  ip?: string;
  /** The known-browser cookie, if any. */
  device?: string;
}

export interface Issued {
  token: string;
  user: AuthUser;
  refreshToken?: string;
  /** The known-browser cookie to keep (set after a successful login). */
  device?: string;
}

export function authService(deps: AuthDeps) {
  const { db, tokens, events } = deps;
  const cache = deps.sessionCache ?? sessionCache();
  const resetHash = (userId: number, code: string) =>
    createHmac('sha256', deps.appSecret).update(`${userId}:${code}`).digest('hex');

  async function authUser(companyId: number, userId: number): Promise<AuthUser> {
    const [view, company] = await Promise.all([
      userQueries.byId(db, companyId, userId),
      companyQueries.summary(db, companyId),
    ]);
    if (!view || !company) throw new AppError('ERR_SESSION_EXPIRED', 401);
    // Gateway credentials are the platform owner's: other users never receive them.
    const settings = view.super
      ? company.settings.map(maskSecretSetting)
      : company.settings.filter((s) => !SUPER_ONLY_SETTINGS.includes(s.key as SettingKey));
    return {
      ...view,
      profile: view.profile as AuthUser['profile'],
      allTicket: view.allTicket as AuthUser['allTicket'],
      // Why the app is blocked, if it is: the web shows the modal, the server refuses writes (402).
      // Counted on the company's calendar (its timezone setting).
      company: {
        ...company,
        settings,
        subscription: subscriptionState(
          company,
          new Date(),
          company.settings.find((s) => s.key === 'timezone')?.value || SETTING_DEFAULTS.timezone,
        ),
      },
    };
  }

  async function accessToken(
    u: { id: number; companyId: number; profile: string; super: boolean },
    sessionId: string,
  ) {
    return tokens.sign({
      userId: u.id,
      companyId: u.companyId,
      profile: u.profile,
      super: u.super,
      sessionId,
    });
  }

  const sessionReplaced = () =>
    new AppError('ERR_SESSION_REPLACED', 401, 'This session ended: the user signed in on another device');

  /**
   * A session that is no longer alive: when a login elsewhere ended it, say so (the browser tells its user
   * why they were signed out); otherwise the caller answers the usual "invalid session". Failure path only.
   */
  async function whyEnded(sessionId: string): Promise<void> {
    const [s] = await db
      .select({ reason: userSessions.revokedReason })
      .from(userSessions)
      .where(eq(userSessions.id, sessionId));
    if (s?.reason === 'replaced') throw sessionReplaced();
  }

  /** A new session: one browser per user, so every older session of the user ends ("replaced"). */
  async function openSession(
    u: { id: number; companyId: number; profile: string; super: boolean },
    userAgent: string,
  ): Promise<Issued> {
    const sessionId = newSessionId();
    const refreshToken = newOpaqueToken();
    const ended = await db.transaction(async (tx) => {
      // One browser per user: a new login ends every older session (the spec's "accessed on another computer").
      const old = await tx
        .update(userSessions)
        .set({ revokedAt: new Date(), revokedReason: 'replaced' })
        .where(and(eq(userSessions.userId, u.id), isNull(userSessions.revokedAt)))
        .returning({ id: userSessions.id });
      await tx.insert(userSessions).values({
        id: sessionId,
        userId: u.id,
        companyId: u.companyId,
        refreshHash: sha256(refreshToken),
        userAgent: truncate(userAgent, 300),
        expiresAt: new Date(Date.now() + deps.refreshTtlSeconds * 1000),
      });
      return old.map((s) => s.id);
    });
    cache.forgetSessions(ended);
    if (ended.length) {
      events.toUser(u.companyId, u.id, 'auth', { action: 'update', user: { id: u.id }, sessionId });
      events.endSessions(ended, 'replaced');
    }
    return {
      token: await accessToken(u, sessionId),
      user: await authUser(u.companyId, u.id),
      refreshToken,
    };
  }

  return {
    authUser,

    /** Checks an access token and that its session is still alive; returns the caller's tenant. */
    async authenticate(token: string): Promise<Tenant | 'expired' | null> {
      const claims = await tokens.verify(token);
      if (!claims || claims === 'expired') return claims;
      const tenant = await cache.lookup(claims.sessionId, claims.userId, async () => {
        const [row] = await db
          .select({
            userId: users.id,
            companyId: users.companyId,
            profile: users.profile,
            super: users.super,
          })
          .from(userSessions)
          .innerJoin(users, eq(users.id, userSessions.userId))
          .where(
            and(
              eq(userSessions.id, claims.sessionId),
              isNull(userSessions.revokedAt),
              eq(users.id, claims.userId),
            ),
          );
        // Profile and super come from the database (a demotion forgets the cached session at once).
        return row ? { ...row, sessionId: claims.sessionId } : null;
      });
      if (!tenant) await whyEnded(claims.sessionId);
      return tenant;
    },

    async login(email: string, password: string, ctx: LoginContext = {}): Promise<Issued> {
      const userAgent = ctx.userAgent ?? '';
      // Counted before the password is checked (429 once over a limit), given back when it was right.
      const attempt = await deps.throttle?.begin({ email, ip: ctx.ip ?? '', device: ctx.device });
      const [u] = await db
        .select({
          id: users.id,
          companyId: users.companyId,
          profile: users.profile,
          super: users.super,
          passwordHash: users.passwordHash,
          companyStatus: companies.status,
        })
        .from(users)
        .innerJoin(companies, eq(companies.id, users.companyId))
        .where(eq(users.email, email));
      if (!u) {
        await verifyPassword(await dummyHash(), password);
        throw new AppError('ERR_INVALID_CREDENTIALS', 401);
      }
      if (!(await verifyPassword(u.passwordHash, password)))
        throw new AppError('ERR_INVALID_CREDENTIALS', 401);
      const device = await attempt?.succeeded();
      if (!u.companyStatus && !u.super)
        throw new AppError('ERR_COMPANY_INACTIVE', 403, 'This company is inactive');

      return { ...(await openSession(u, userAgent)), device };
    },

    /**
     * A session for a user who just proved who they are another way (signup made the account with its
     * password a moment ago): the same session a login opens.
     */
    async signInCreated(companyId: number, userId: number, ctx: LoginContext = {}): Promise<Issued> {
      const [u] = await db
        .select({ id: users.id, companyId: users.companyId, profile: users.profile, super: users.super })
        .from(users)
        .where(and(eq(users.id, userId), eq(users.companyId, companyId)));
      if (!u) throw new AppError('ERR_SESSION_EXPIRED', 401);
      return openSession(u, ctx.userAgent ?? '');
    },

    /** Rotates the refresh token. A token replaced more than a few seconds ago means theft: the session ends. */
    async refresh(refreshToken: string | undefined): Promise<Issued> {
      if (!refreshToken) throw new AppError('ERR_SESSION_EXPIRED', 401);
      const hash = sha256(refreshToken);
      const [s] = await db
        .select()
        .from(userSessions)
        .where(or(eq(userSessions.refreshHash, hash), eq(userSessions.previousHash, hash)));
      if (s?.revokedAt && s.revokedReason === 'replaced') throw sessionReplaced();
      if (!s || s.revokedAt || s.expiresAt < new Date()) throw new AppError('ERR_SESSION_EXPIRED', 401);
      const [u] = await db
        .select({ id: users.id, companyId: users.companyId, profile: users.profile, super: users.super })
        .from(users)
        .where(eq(users.id, s.userId));
      if (!u) throw new AppError('ERR_SESSION_EXPIRED', 401);
      if (s.refreshHash !== hash) {
        const recent = s.rotatedAt && Date.now() - s.rotatedAt.getTime() < ROTATION_GRACE_MS;
        if (!recent) {
          await db
            .update(userSessions)
            .set({ revokedAt: new Date(), revokedReason: 'reuse' })
            .where(eq(userSessions.id, s.id));
          cache.forgetSessions([s.id]);
          events.endSessions([s.id], 'refresh token reuse');
          throw new AppError('ERR_SESSION_EXPIRED', 401);
        }
        // The other tab already rotated; the browser holds the new cookie. Hand out an access token only.
        return { token: await accessToken(u, s.id), user: await authUser(u.companyId, u.id) };
      }
      const next = newOpaqueToken();
      const now = new Date();
      const updated = await db
        .update(userSessions)
        .set({ refreshHash: sha256(next), previousHash: hash, rotatedAt: now, lastUsedAt: now })
        .where(
          and(eq(userSessions.id, s.id), eq(userSessions.refreshHash, hash), isNull(userSessions.revokedAt)),
        )
        .returning({ id: userSessions.id });
      if (updated.length === 0) throw new AppError('ERR_SESSION_EXPIRED', 401);
      return {
        token: await accessToken(u, s.id),
        user: await authUser(u.companyId, u.id),
        refreshToken: next,
      };
    },

    async logout(t: Tenant) {
      await db
        .update(userSessions)
        .set({ revokedAt: new Date(), revokedReason: 'logout' })
        .where(and(eq(userSessions.id, t.sessionId), isNull(userSessions.revokedAt)));
      cache.forgetSessions([t.sessionId]);
      await db.update(users).set({ online: false }).where(eq(users.id, t.userId));
      events.endSessions([t.sessionId], 'logout');
    },

    async forgotPassword(email: string, language = 'pt') {
      const [u] = await db
        .select({ id: users.id, name: users.name, language: users.language })
        .from(users)
        .where(eq(users.email, email));
      if (!u) throw new AppError('ERR_USER_DONT_EXISTS', 404);
      const code = newResetCode();
      await db.transaction(async (tx) => {
        // The user's row lock makes "count, then insert" atomic against parallel requests.
        await tx.select({ id: users.id }).from(users).where(eq(users.id, u.id)).for('update');
        const [sent] = await tx
          .select({ n: count() })
          .from(passwordResets)
          .where(
            and(
              eq(passwordResets.userId, u.id),
              gt(passwordResets.createdAt, new Date(Date.now() - 3600_000)),
            ),
          );
        if ((sent?.n ?? 0) >= RESET_CODES_PER_HOUR)
          throw new AppError(
            'ERR_RATE_LIMITED',
            429,
            'Too many reset codes for this e-mail: try again later',
          );
        // Only the newest code works.
        await tx
          .update(passwordResets)
          .set({ usedAt: new Date() })
          .where(and(eq(passwordResets.userId, u.id), isNull(passwordResets.usedAt)));
        await tx.insert(passwordResets).values({
          userId: u.id,
          codeHash: resetHash(u.id, code),
          expiresAt: new Date(Date.now() + RESET_CODE_TTL_MINUTES * 60_000),
        });
      });
      const lang = (u.language || language) as keyof typeof RESET_MAIL;
      const text = RESET_MAIL[lang] ?? RESET_MAIL.pt;
      await deps.mailer.send({
        to: email,
        subject: text.subject,
        text: text.body(u.name, code, RESET_CODE_TTL_MINUTES, `${deps.publicUrl}/forgetpsw`),
      });
      return { message: 'Reset code sent' };
    },

    async resetPassword(input: ResetPasswordInput) {
      const [u] = await db
        .select({ id: users.id, companyId: users.companyId })
        .from(users)
        .where(eq(users.email, input.email));
      if (!u) throw new AppError('ERR_USER_DONT_EXISTS', 404);
      const [reset] = await db
        .select()
        .from(passwordResets)
        .where(
          and(
            eq(passwordResets.userId, u.id),
            isNull(passwordResets.usedAt),
            gt(passwordResets.expiresAt, new Date()),
          ),
        )
        .orderBy(desc(passwordResets.createdAt))
        .limit(1);
      if (!reset) throw new AppError('ERR_INVALID_RESET_CODE', 400, 'The code is invalid or has expired');
      const expected = Buffer.from(reset.codeHash, 'hex');
      const given = Buffer.from(resetHash(u.id, input.token.trim()), 'hex');
      if (!timingSafeEqual(expected, given)) {
        const attempts = reset.attempts + 1;
        await db
          .update(passwordResets)
          .set({ attempts, usedAt: attempts >= MAX_RESET_ATTEMPTS ? new Date() : null })
          .where(eq(passwordResets.id, reset.id));
        throw new AppError('ERR_INVALID_RESET_CODE', 400, 'The code is invalid or has expired');
      }
      const passwordHash = await hashPassword(input.password);
      const ended = await db.transaction(async (tx) => {
        const claimed = await tx
          .update(passwordResets)
          .set({ usedAt: new Date() })
          .where(and(eq(passwordResets.id, reset.id), isNull(passwordResets.usedAt)))
          .returning({ id: passwordResets.id });
        if (claimed.length === 0)
          throw new AppError('ERR_INVALID_RESET_CODE', 400, 'The code is invalid or has expired');
        await tx.update(users).set({ passwordHash, updatedAt: new Date() }).where(eq(users.id, u.id));
        const revoked = await tx
          .update(userSessions)
          .set({ revokedAt: new Date(), revokedReason: 'password reset' })
          .where(and(eq(userSessions.userId, u.id), isNull(userSessions.revokedAt)))
          .returning({ id: userSessions.id });
        return revoked.map((r) => r.id);
      });
      cache.forgetSessions(ended);
      events.endSessions(ended, 'password reset');
      await deps.throttle?.accountRecovered(input.email);
      return { message: 'Password updated' };
    },
  };
}
export type AuthService = ReturnType<typeof authService>;

const RESET_MAIL = {
  pt: {
    subject: 'Recado: código para redefinir sua senha',
    body: (name: string, code: string, ttl: number, url: string) =>
      `Olá, ${name}.\n\nSeu código para redefinir a senha é: ${code}\n\nEle vale por ${ttl} minutos e pode ser usado uma vez, em ${url}.\nSe você não pediu, ignore este e-mail.\n`,
  },
  en: {
    subject: 'Recado: your password reset code',
    body: (name: string, code: string, ttl: number, url: string) =>
      `Hello, ${name}.\n\nYour password reset code is: ${code}\n\nIt is valid for ${ttl} minutes and can be used once, at ${url}.\nIf you did not ask for it, ignore this e-mail.\n`,
  },
  es: {
    subject: 'Recado: código para restablecer su contraseña',
    body: (name: string, code: string, ttl: number, url: string) =>
      `Hola, ${name}.\n\nSu código para restablecer la contraseña es: ${code}\n\nVale por ${ttl} minutos y se puede usar una vez, en ${url}.\nSi no lo pidió, ignore este correo.\n`,
  },
};
