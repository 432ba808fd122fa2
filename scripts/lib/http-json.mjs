// One HTTP request answered as status and JSON (text when the body is not JSON: nginx's error pages), shared by
// the benchmarks' API client (bench/lib.ts, keep-alive agent) and the scale test (a chosen local address, no
// agent, a timeout).
import http from 'node:http';

/** `opts`: method (GET), headers, body (sent as JSON), agent, localAddress, timeoutMs. */
export function httpJson(url, opts = {}) {
  return new Promise((resolve, reject) => {
    const body = opts.body === undefined ? undefined : JSON.stringify(opts.body);
    const req = http.request(
      url,
      {
        method: opts.method ?? 'GET',
        agent: opts.agent ?? false,
        ...(opts.localAddress ? { localAddress: opts.localAddress } : {}),
        ...(opts.timeoutMs ? { timeout: opts.timeoutMs } : {}),
        headers: {
          ...opts.headers,
          ...(body ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } : {}),
        },
      },
      (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString();
          let json = text;
          try {
            json = JSON.parse(text);
          } catch {
            // not JSON
          }
          resolve({ status: res.statusCode ?? 0, json });
        });
      },
    );
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
    req.end(body);
  });
}
