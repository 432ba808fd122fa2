import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Clock } from '../../lib/clock.js';

/** How long a webhook's file link works: longer than a delivery's retries (about 3 days, webhook-service.ts). */
export const MEDIA_LINK_TTL_MS = 7 * 24 * 3600_000;

/**
 * Signed, expiring download links for the files of `message.created` webhooks (docs/webhooks.md#files): the
 * receiver downloads without a token until `expires`. The HMAC (a key derived from APP_SECRET for this use
 * alone) covers the message id and the expiry, so neither can be changed; the route checks it and the expiry
 * before reading anything. The link is a capability: it is written only into the signed delivery body, never
 * into the log.
 */
export function mediaLinks(deps: { appSecret: string; publicUrl: string; clock: Clock; ttlMs?: number }) {
  const key = createHmac('sha256', deps.appSecret).update('recado:webhook-media-link:v1').digest();
  const mac = (messageId: number, expires: number) =>
    createHmac('sha256', key).update(`${messageId}.${expires}`).digest('base64url');
  const base = deps.publicUrl.replace(/\/+$/, '');
  return {
    /** The link of a message's file and when it stops working. */
    link(messageId: number): { url: string; expiresAt: string } {
      const expires = Math.floor((deps.clock.now().getTime() + (deps.ttlMs ?? MEDIA_LINK_TTL_MS)) / 1000);
      return {
        url: `${base}/api/webhook-media/${messageId}?expires=${expires}&signature=${mac(messageId, expires)}`,
        expiresAt: new Date(expires * 1000).toISOString(),
      };
    },
    /** 'ok', or why not: an altered link ('invalid') or one past its time ('expired'). */
    check(messageId: number, expires: number, signature: string): 'ok' | 'invalid' | 'expired' {
      const expected = Buffer.from(mac(messageId, expires));
      const got = Buffer.from(signature);
      if (expected.length !== got.length || !timingSafeEqual(expected, got)) return 'invalid';
      return deps.clock.now().getTime() > expires * 1000 ? 'expired' : 'ok';
    },
  };
}
export type MediaLinks = ReturnType<typeof mediaLinks>;
