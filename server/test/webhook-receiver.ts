import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';

export interface ReceivedHook {
  headers: IncomingHttpHeaders;
  raw: string;
  json: { id: string; event: string; companyId: number; createdAt: string; data: Record<string, unknown> };
  status: number;
}

/**
 * A small HTTP server that receives Recado's webhook deliveries as an integrator's would (tests and
 * bench:ingest). `answers` is the queue of status codes it gives (200 once empty); `delayMs` makes it slow.
 */
export async function webhookReceiver(opts: { delayMs?: number } = {}) {
  const received: ReceivedHook[] = [];
  const answers: number[] = [];
  let delayMs = opts.delayMs ?? 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const status = answers.shift() ?? 200;
      let json: ReceivedHook['json'];
      try {
        json = JSON.parse(raw);
      } catch {
        json = { id: '', event: '', companyId: 0, createdAt: '', data: {} };
      }
      received.push({ headers: req.headers, raw, json, status });
      setTimeout(() => res.writeHead(status, { 'content-type': 'text/plain' }).end('ok'), delayMs);
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
    of: (event: string) => received.filter((r) => r.json.event === event),
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

/** What a receiver does with the secret: HMAC-SHA256 of the raw body, compared in constant time. */
export function verifySignature(secret: string, raw: string, header: string | string[] | undefined): boolean {
  const expected = Buffer.from(`sha256=${createHmac('sha256', secret).update(raw, 'utf8').digest('hex')}`);
  const got = Buffer.from(String(header ?? ''));
  return expected.length === got.length && timingSafeEqual(expected, got);
}
