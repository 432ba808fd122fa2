import { createServer, type IncomingHttpHeaders } from 'node:http';
import { verifyPayload } from '../src/lib/webhook-signature.js';

export interface ReceivedHook {
  headers: IncomingHttpHeaders;
  raw: string;
  json: {
    id: string;
    event: string;
    companyId: number;
    sequence?: number;
    occurredAt?: string;
    createdAt: string;
    data: Record<string, unknown>;
  };
  status: number;
  /** When it arrived (Date.now()). */
  at: number;
}

/**
 * A small HTTP server that receives Recado's webhook deliveries as an integrator's would (tests and
 * bench:ingest). `answers` is the queue of status codes it gives (200 once empty); `delayMs` makes it slow.
 */
export async function webhookReceiver(opts: { delayMs?: number } = {}) {
  const received: ReceivedHook[] = [];
  const answers: number[] = [];
  let delayMs = opts.delayMs ?? 0;
  /** Decides a request's status before the queue of answers (undefined: not this one). */
  let rule: ((json: ReceivedHook['json']) => number | undefined) | null = null;
  /** A delay per request (out-of-order answers), instead of `delayMs`. */
  let delayOf: ((json: ReceivedHook['json']) => number) | null = null;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let json: ReceivedHook['json'];
      try {
        json = JSON.parse(raw);
      } catch {
        json = { id: '', event: '', companyId: 0, createdAt: '', data: {} };
      }
      const status = rule?.(json) ?? answers.shift() ?? 200;
      received.push({ headers: req.headers, raw, json, status, at: Date.now() });
      const wait = delayOf ? delayOf(json) : delayMs;
      setTimeout(() => res.writeHead(status, { 'content-type': 'text/plain' }).end('ok'), wait);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    /** Status codes for the next requests, in order. */
    answer: (...codes: number[]) => answers.push(...codes),
    clearAnswers: () => answers.splice(0),
    setDelay: (ms: number) => {
      delayMs = ms;
    },
    /** A status chosen from the request's body (null: back to the queue of answers). */
    setRule: (fn: typeof rule) => {
      rule = fn;
    },
    /** A delay chosen per request (null: back to `setDelay`'s). */
    setDelayOf: (fn: typeof delayOf) => {
      delayOf = fn;
    },
    of: (event: string) => received.filter((r) => r.json.event === event),
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

/**
 * What a receiver does with the secret: HMAC-SHA256 of `<X-Recado-Timestamp>.<raw body>`, compared in constant
 * time, the timestamp within 5 minutes of `now` (docs/webhooks.md#signature).
 */
export function verifySignature(
  secret: string,
  hook: Pick<ReceivedHook, 'raw' | 'headers'>,
  now?: Date,
): boolean {
  return verifyPayload(
    secret,
    hook.raw,
    { signature: hook.headers['x-recado-signature'], timestamp: hook.headers['x-recado-timestamp'] },
    now ? { now } : {},
  );
}
