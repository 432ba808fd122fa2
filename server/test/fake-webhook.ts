import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SeenHook {
  path: string;
  contentType: string;
  body: Record<string, unknown>;
  /** The raw body and headers as received (signature checks). */
  raw: string;
  headers: import('node:http').IncomingHttpHeaders;
}

/** A webhook receiver (an n8n "Webhook" node or any HTTP endpoint): stores every JSON POST; `status` is its answer. */
export async function fakeWebhook() {
  const seen: SeenHook[] = [];
  /** Every request's path, answered 2xx or not. */
  const hits: string[] = [];
  const state: {
    status: number;
    /** The answer's body (2xx only): the hook's actions, or any text; `{ ok: true }` when unset. */
    body?: (hook: SeenHook) => { text: string; contentType?: string };
  } = { status: 200 };
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
          raw,
          headers: req.headers,
        });
      const custom = state.status < 300 && state.body ? state.body(seen.at(-1)!) : null;
      res.writeHead(state.status, { 'content-type': custom?.contentType ?? 'application/json' });
      res.end(custom ? custom.text : JSON.stringify(state.status < 300 ? { ok: true } : { error: 'down' }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, seen, hits, state, close: () => new Promise<void>((r) => server.close(() => r())) };
}
