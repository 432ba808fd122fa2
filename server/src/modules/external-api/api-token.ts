import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Connection tokens of the external API (docs/external-api.md): 43 random URL-safe characters (256 bits).
 * Stored twice, never in plain: a SHA-256 hash for the look-up and a sealed copy (secretBox) for admins.
 */
export const newApiToken = () => randomBytes(32).toString('base64url');

export const hashApiToken = (token: string) => createHash('sha256').update(token, 'utf8').digest('hex');

/** Constant-time comparison of two hex hashes (same length by construction). */
export function sameHash(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && x.length > 0 && timingSafeEqual(x, y);
}
