import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { io as ioClient } from 'socket.io-client';
import { describe, expect, test } from 'vitest';
import { SUPER, testApp, waitFor } from '../../test/helpers.js';
import { redactUrl } from './log-redaction.js';

const PUBLIC_URL = 'https://recado.example.com';
const webDist = mkdtempSync(join(tmpdir(), 'recado-web-'));
writeFileSync(join(webDist, 'index.html'), '<!doctype html><div id="root"></div>');

// Every log line the server writes, as parsed JSON.
const lines: Record<string, unknown>[] = [];
const stream = new Writable({
  write(chunk, _enc, done) {
    for (const l of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(l));
    done();
  },
});

const prod = await testApp({
  env: {
    NODE_ENV: 'production',
    APP_SECRET: 'Vq3xY8rT2mKp9LwZ4nB7cD1fG6hJ0sAe',
    JWT_SECRET: 'k2P9sR4tW7yB1nM5qX8vC3zL6dF0gHjU',
    PUBLIC_URL,
  },
  deps: { webDist, logger: { level: 'info', stream } },
});
const dev = await testApp({ deps: { webDist } });

const connect = (url: string, token: string, origin?: string) =>
  new Promise<string>((resolve) => {
    const s = ioClient(url, {
      path: '/socket.io',
      auth: { token },
      transports: ['websocket'],
      reconnection: false,
      forceNew: true,
      extraHeaders: origin ? { origin } : {},
    });
    s.once('connect', () => {
      s.disconnect();
      resolve('connected');
    });
    s.once('connect_error', (err) => {
      s.disconnect();
      resolve(`refused: ${err.message}`);
    });
  });

describe('security headers', () => {
  const expectHeaders = (res: Response, production: boolean) => {
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toMatch(/script-src[^;]*unsafe-inline/);
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toMatch(/img-src 'self' data: blob:/);
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('referrer-policy')).toBe('strict-origin-when-cross-origin');
    if (production) expect(res.headers.get('strict-transport-security')).toMatch(/max-age=\d+/);
    else expect(res.headers.get('strict-transport-security')).toBeNull();
  };

  test('on a page, on /api and on an API error, in production with HSTS', async () => {
    const page = await fetch(`${prod.url}/tickets`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('root');
    expectHeaders(page, true);
    expect(page.headers.get('content-security-policy')).toContain(
      `connect-src 'self' wss://recado.example.com`,
    );
    expectHeaders(await prod.request('GET', '/version'), true);
    const denied = await prod.request('GET', '/users/list');
    expect(denied.status).toBe(401);
    expectHeaders(denied, true);
  });

  test('outside production: the same headers, no HSTS', async () => {
    expectHeaders(await fetch(`${dev.url}/`), false);
    expectHeaders(await dev.request('GET', '/version'), false);
  });
});

describe('socket origins', () => {
  test('production refuses a socket opened from a foreign page and accepts PUBLIC_URL', async () => {
    const s = await prod.login(SUPER.email, SUPER.password);
    expect(await connect(prod.url, s.token, 'https://evil.example')).toMatch(/^refused/);
    expect(await connect(prod.url, s.token, 'http://localhost:5173')).toMatch(/^refused/);
    expect(await connect(prod.url, s.token, PUBLIC_URL)).toBe('connected');
    // Not a browser (no Origin): the token alone decides.
    expect(await connect(prod.url, s.token)).toBe('connected');
  });

  test('development also accepts Vite and its own page, still not a foreign one', async () => {
    const s = await dev.login(SUPER.email, SUPER.password);
    expect(await connect(dev.url, s.token, 'http://localhost:5173')).toBe('connected');
    expect(await connect(dev.url, s.token, dev.url)).toBe('connected');
    expect(await connect(dev.url, s.token, 'https://evil.example')).toMatch(/^refused/);
  });

  test('polling from a foreign origin gets no CORS grant in production', async () => {
    const res = await fetch(`${prod.url}/socket.io/?EIO=4&transport=polling`, {
      headers: { origin: 'https://evil.example' },
    });
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
    expect(res.status).toBeGreaterThanOrEqual(400);
  });
});

describe('logs', () => {
  test('e-mails in forgetpassword URLs and token-like query parameters are redacted', async () => {
    const email = 'victim.person@mail.example';
    await prod.request('POST', `/forgetpassword/${encodeURIComponent(email)}`);
    await prod.request(
      'GET',
      `/webhooks/cloud-api/1?hub.mode=subscribe&hub.verify_token=VERIFY-SECRET-42&hub.challenge=77`,
    );
    await prod.request('GET', '/version?access_token=AT-SECRET-43&page=2');
    const logged = await waitFor(() => {
      const urls = lines.map((l) => (l.req as { url?: string } | undefined)?.url).filter(Boolean) as string[];
      return (
        urls.some((u) => u.includes('/version?')) && urls.some((u) => u.includes('verify_token')) && urls
      );
    });
    const all = JSON.stringify(lines);
    expect(all).not.toContain('victim.person');
    expect(all).not.toContain(encodeURIComponent(email));
    expect(all).not.toContain('VERIFY-SECRET-42');
    expect(all).not.toContain('AT-SECRET-43');
    expect(logged).toContain('/api/forgetpassword/[redacted]');
    expect(logged).toContain(
      '/api/webhooks/cloud-api/1?hub.mode=subscribe&hub.verify_token=[redacted]&hub.challenge=77',
    );
    expect(logged).toContain('/api/version?access_token=[redacted]&page=2');
  });

  test('redactUrl', () => {
    expect(redactUrl('/api/forgetpassword/a%40b.c?x=1')).toBe('/api/forgetpassword/[redacted]?x=1');
    expect(redactUrl('/api/users/a@b.c')).toBe('/api/users/[redacted]');
    expect(redactUrl('/api/x?searchParam=joe%40mail.com&token=abc&code=123456&id=4')).toBe(
      '/api/x?searchParam=[redacted]&token=[redacted]&code=[redacted]&id=4',
    );
    expect(redactUrl('/api/tickets?status=open&pageNumber=1')).toBe('/api/tickets?status=open&pageNumber=1');
  });
});
