import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { AppError } from '../../http/errors.js';

/**
 * Counts attempts per key in a fixed window. `take` is atomic (check and count in one step), so a burst
 * of parallel requests cannot all pass before the first failure is recorded.
 */
export interface AttemptCounter {
  /** Counts one attempt; false (nothing counted) when `max` attempts are already counted in the window. */
  take(key: string, max: number, windowMs: number): Promise<boolean>;
  /** Gives one attempt back (it succeeded: only failures are meant to count). */
  give(key: string): Promise<void>;
  clear(key: string): Promise<void>;
  close?(): Promise<void>;
}

/** One process's counters (several processes each count their own: see docs/security.md). */
export function memoryCounter(now: () => number = Date.now): AttemptCounter {
  const slots = new Map<string, { count: number; resetAt: number }>();
  const prune = () => {
    const t = now();
    for (const [k, v] of slots) if (v.resetAt <= t) slots.delete(k);
  };
  return {
    async take(key, max, windowMs) {
      const t = now();
      if (slots.size > 50_000) prune();
      let slot = slots.get(key);
      if (!slot || slot.resetAt <= t) slots.set(key, (slot = { count: 0, resetAt: t + windowMs }));
      if (slot.count >= max) return false;
      slot.count++;
      return true;
    },
    async give(key) {
      const slot = slots.get(key);
      if (slot && slot.count > 0) slot.count--;
    },
    async clear(key) {
      slots.delete(key);
    },
  };
}

const TAKE = `local c = redis.call('INCR', KEYS[1])
if c == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
if c > tonumber(ARGV[1]) then redis.call('DECR', KEYS[1]) return 0 end
return 1`;
const GIVE = `local c = tonumber(redis.call('GET', KEYS[1]) or '0')
if c > 0 then redis.call('DECR', KEYS[1]) end
return 0`;

/** Counters shared by every process through Redis (REDIS_URL). */
export async function redisCounter(url: string, prefix = 'recado:login:'): Promise<AttemptCounter> {
  const { Redis } = await import('ioredis');
  const redis = new Redis(url, { lazyConnect: false, maxRetriesPerRequest: 2 });
  return {
    async take(key, max, windowMs) {
      return (await redis.eval(TAKE, 1, prefix + key, max, windowMs)) === 1;
    },
    async give(key) {
      await redis.eval(GIVE, 1, prefix + key);
    },
    async clear(key) {
      await redis.del(prefix + key);
    },
    async close() {
      redis.disconnect();
    },
  };
}

export const LOGIN_WINDOW_MS = 5 * 60_000;
/** A browser that never signed in to an account shares that account's budget with every other one. */
export const ACCOUNT_FACTOR = 3;

export interface LoginAttempt {
  email: string;
  /** The client address Fastify decided (X-Forwarded-For only from TRUST_PROXY peers). */
  ip: string;
  /** The known-browser cookie, if the browser sent one. */
  device?: string;
}

/**
 * Failed logins are limited three ways (docs/security.md):
 * - per address: `limit` per window;
 * - per account, for browsers that never signed in to it: `limit × 3` per window (a single address
 *   runs into its own limit long before, so only a spread-out attack closes the account to new browsers);
 * - a browser that signed in to the account before (signed cookie naming it) skips both and has its own
 *   `limit`: an attacker elsewhere can neither lock the real user out nor use the user's budget.
 * Attempts are counted before the password is checked and given back when it was right.
 */
export function loginThrottle(o: {
  counter: AttemptCounter;
  limit: number;
  secret: string;
  windowMs?: number;
}) {
  const windowMs = o.windowMs ?? LOGIN_WINDOW_MS;
  const sign = (email: string, nonce: string) =>
    createHmac('sha256', o.secret).update(`known-device:${email}:${nonce}`).digest('base64url');
  /** The cookie's id when it is a valid known-browser cookie for this e-mail. */
  const knownDevice = (email: string, cookie: string | undefined): string | undefined => {
    const [nonce, sig] = (cookie ?? '').split('.');
    if (!nonce || !sig || nonce.length > 64) return undefined;
    const want = Buffer.from(sign(email, nonce));
    const got = Buffer.from(sig);
    return want.length === got.length && timingSafeEqual(want, got) ? nonce : undefined;
  };
  const limited = () =>
    new AppError('ERR_RATE_LIMITED', 429, 'Too many failed attempts: wait a few minutes', {
      retryAfterSeconds: Math.ceil(windowMs / 1000),
    });

  return {
    /**
     * Counts the attempt (or refuses it with 429) and returns what to call once the password was checked:
     * `succeeded()` gives the counted attempts back and names the browser's cookie value.
     */
    async begin(a: LoginAttempt): Promise<{ succeeded(): Promise<string> }> {
      const email = a.email.toLowerCase();
      const device = knownDevice(email, a.device);
      const taken: string[] = [];
      const give = () => Promise.all(taken.map((k) => o.counter.give(k)));
      if (device) {
        if (!(await o.counter.take(`device:${device}`, o.limit, windowMs))) throw limited();
        taken.push(`device:${device}`);
      } else {
        if (!(await o.counter.take(`ip:${a.ip}`, o.limit, windowMs))) throw limited();
        taken.push(`ip:${a.ip}`);
        if (!(await o.counter.take(`account:${email}`, o.limit * ACCOUNT_FACTOR, windowMs))) {
          await give();
          throw limited();
        }
        taken.push(`account:${email}`);
      }
      return {
        async succeeded() {
          await give();
          const nonce = device ?? randomBytes(16).toString('base64url');
          return `${nonce}.${sign(email, nonce)}`;
        },
      };
    },
    /** A password reset proves the mailbox: new browsers may try that account again at once. */
    async accountRecovered(email: string) {
      await o.counter.clear(`account:${email.toLowerCase()}`);
    },
  };
}

export type LoginThrottle = ReturnType<typeof loginThrottle>;
