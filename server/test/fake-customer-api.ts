import { createServer, type IncomingHttpHeaders } from 'node:http';

export interface CustomerApiRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/**
 * A company's own customer service, as a flow's HTTP node calls it (docs/flows.md's example, its test and
 * bench:flows): `GET /customers/<cpf>` answers `{ customer: { name, plan, since } }` for a known CPF and 404
 * otherwise; any other request answers what `reply` returns (200 `{ ok: true }` by default). Every request is
 * kept in `requests`; `delayMs` makes it slow.
 */
export async function fakeCustomerApi(
  opts: {
    customers?: Record<string, { name: string; plan: string; since: string }>;
    delayMs?: number;
  } = {},
) {
  const requests: CustomerApiRequest[] = [];
  const customers = opts.customers ?? {};
  let delayMs = opts.delayMs ?? 0;
  let reply: ((r: CustomerApiRequest) => { status: number; body: unknown; type?: string }) | null = null;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const r: CustomerApiRequest = {
        method: req.method ?? 'GET',
        path: req.url ?? '/',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      requests.push(r);
      const known = /^\/customers\/([^/?]+)/.exec(r.path);
      let answer: { status: number; body: unknown; type?: string };
      if (reply) answer = reply(r);
      else if (known) {
        const c = customers[decodeURIComponent(known[1]!)];
        answer = c ? { status: 200, body: { customer: c } } : { status: 404, body: { error: 'not found' } };
      } else answer = { status: 200, body: { ok: true } };
      const text = typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body);
      setTimeout(
        () => res.writeHead(answer.status, { 'content-type': answer.type ?? 'application/json' }).end(text),
        delayMs,
      );
    });
  });
  server.keepAliveTimeout = 1000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    setDelay: (ms: number) => {
      delayMs = ms;
    },
    /** Answers every request this way from now on (null: back to the customers). */
    setReply: (fn: typeof reply) => {
      reply = fn;
    },
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
