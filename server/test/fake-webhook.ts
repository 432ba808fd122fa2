import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SeenHook {
  path: string;
  contentType: string;
  body: Record<string, unknown>;
}

/** A webhook receiver (an n8n "Webhook" node or any HTTP endpoint): stores every JSON POST; `status` is its answer. */
export async function fakeWebhook() {
  const seen: SeenHook[] = [];
  /** Every request's path, answered 2xx or not. */
  const hits: string[] = [];
  const state = { status: 200 };
  const server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString('utf8')));
    req.on('end', () => {
      hits.push(req.url ?? '');
      if (state.status < 300)
        seen.push({
          path: req.url ?? '',
          contentType: String(req.headers['content-type'] ?? ''),
          body: JSON.parse(raw || '{}') as Record<string, unknown>,
        });
      res.writeHead(state.status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(state.status < 300 ? { ok: true } : { error: 'down' }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, seen, hits, state, close: () => new Promise<void>((r) => server.close(() => r())) };
}
