import { createHmac, timingSafeEqual } from 'node:crypto';
import { WEBHOOK_SIGNATURE_HEADER, WEBHOOK_TIMESTAMP_HEADER } from '@recado/contracts';

/**
 * `sha256=<hex HMAC-SHA256 of "<timestamp>.<raw body>">`: the timestamp is inside the signature, so a captured
 * request cannot be replayed later with a fresh `X-Recado-Timestamp` (Stripe's scheme).
 */
export const signPayload = (secret: string, timestamp: number, body: string) =>
  `sha256=${createHmac('sha256', secret).update(`${timestamp}.${body}`, 'utf8').digest('hex')}`;

/**
 * The two headers of one outgoing request (webhook deliveries and the n8n / webhook queue integrations alike):
 * the unix seconds of this attempt and the signature binding them to the body.
 */
export function signatureHeaders(secret: string, body: string, now: Date): Record<string, string> {
  const timestamp = Math.floor(now.getTime() / 1000);
  return {
    [WEBHOOK_SIGNATURE_HEADER]: signPayload(secret, timestamp, body),
    [WEBHOOK_TIMESTAMP_HEADER]: String(timestamp),
  };
}

/**
 * What a receiver does (tests use it; docs/webhooks.md shows the same in Node and Python): recompute over the
 * raw body and the timestamp header, compare in constant time, refuse a timestamp older than `toleranceS`.
 */
export function verifyPayload(
  secret: string,
  raw: string,
  headers: { signature: string | string[] | undefined; timestamp: string | string[] | undefined },
  opts: { now?: Date; toleranceS?: number } = {},
): boolean {
  const timestamp = Number(String(headers.timestamp ?? ''));
  if (!Number.isInteger(timestamp)) return false;
  const now = Math.floor((opts.now ?? new Date()).getTime() / 1000);
  if (Math.abs(now - timestamp) > (opts.toleranceS ?? 300)) return false;
  const expected = Buffer.from(signPayload(secret, timestamp, raw));
  const got = Buffer.from(String(headers.signature ?? ''));
  return expected.length === got.length && timingSafeEqual(expected, got);
}
