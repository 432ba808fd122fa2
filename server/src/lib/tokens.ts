import { createHash, randomBytes, randomInt, randomUUID } from 'node:crypto';
import { SignJWT, jwtVerify, errors } from 'jose';

export interface AccessClaims {
  userId: number;
  companyId: number;
  profile: string;
  super: boolean;
  sessionId: string;
}

/** Tokens already checked, remembered until they expire: the same string verifies the same way again. */
const VERIFIED_MAX = 10_000;

export function tokenService(secret: string, ttlSeconds: number) {
  const key = new TextEncoder().encode(secret);
  const verified = new Map<string, { claims: AccessClaims; exp: number }>();
  return {
    ttlSeconds,
    async sign(c: AccessClaims): Promise<string> {
      return new SignJWT({ cid: c.companyId, prf: c.profile, sup: c.super, sid: c.sessionId })
        .setProtectedHeader({ alg: 'HS256' })
        .setSubject(String(c.userId))
        .setIssuedAt()
        .setExpirationTime(Math.floor(Date.now() / 1000) + ttlSeconds)
        .sign(key);
    },
    /** Returns the claims, 'expired' or null (invalid). */
    async verify(token: string): Promise<AccessClaims | 'expired' | null> {
      const known = verified.get(token);
      if (known) {
        if (known.exp > Math.floor(Date.now() / 1000)) return { ...known.claims };
        verified.delete(token);
        return 'expired';
      }
      try {
        const { payload } = await jwtVerify(token, key, { algorithms: ['HS256'] });
        const claims = {
          userId: Number(payload.sub),
          companyId: Number(payload.cid),
          profile: String(payload.prf),
          super: Boolean(payload.sup),
          sessionId: String(payload.sid),
        };
        if (verified.size >= VERIFIED_MAX) verified.delete(verified.keys().next().value!);
        if (typeof payload.exp === 'number') verified.set(token, { claims, exp: payload.exp });
        return { ...claims };
      } catch (err) {
        if (err instanceof errors.JWTExpired) return 'expired';
        return null;
      }
    },
  };
}
export type TokenService = ReturnType<typeof tokenService>;

export const sha256 = (value: string): string => createHash('sha256').update(value).digest('hex');
export const newOpaqueToken = (): string => randomBytes(32).toString('base64url');
export const newSessionId = (): string => randomUUID();
/** A 6-digit code the user types from the e-mail. */
export const newResetCode = (): string => String(randomInt(0, 1_000_000)).padStart(6, '0');
