import { lookup } from 'node:dns/promises';
import { hostname } from 'node:os';
import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, test } from 'vitest';
import { AppError } from '../http/errors.js';
import {
  assertPublicUrl,
  blockedAddressReason,
  OutboundLimitError,
  OutboundUrlError,
  safeFetch,
  type SafeFetchOptions,
} from './safe-fetch.js';

describe('address classification', () => {
  // [address, refused without ALLOW_PRIVATE_URLS, refused even with it]
  const table: [string, boolean, boolean][] = [
    ['8.8.8.8', false, false],
    ['157.240.22.35', false, false], // a Meta address
    ['1.1.1.1', false, false],
    ['127.0.0.1', true, false],
    ['127.255.255.254', true, false],
    ['10.0.0.1', true, false],
    ['10.255.255.255', true, false],
    ['172.16.0.1', true, false],
    ['172.31.255.255', true, false],
    ['172.32.0.1', false, false],
    ['172.15.255.255', false, false],
    ['192.168.1.10', true, false],
    ['100.64.0.1', true, false],
    ['100.127.255.255', true, false],
    ['100.128.0.1', false, false],
    ['169.254.169.254', true, true], // cloud metadata
    ['169.254.0.1', true, true],
    ['0.0.0.0', true, false],
    ['0.1.2.3', true, false],
    ['224.0.0.1', true, true], // multicast, documentation, reserved: never a service (#28.8)
    ['239.255.255.250', true, true],
    ['240.0.0.1', true, true],
    ['255.255.255.255', true, true],
    ['192.0.2.5', true, true],
    ['198.18.0.1', true, false],
    ['::1', true, false],
    ['::', true, false],
    ['fc00::1', true, false],
    ['fd12:3456:789a::1', true, false],
    ['fe80::1', true, true],
    ['fd00:ec2::254', true, true], // AWS metadata over IPv6
    ['ff02::1', true, true],
    ['2001:db8::1', true, true],
    ['2a03:2880:f12f:83:face:b00c:0:25de', false, false], // a Meta IPv6 address
    ['2606:4700:4700::1111', false, false],
    ['::ffff:127.0.0.1', true, false], // IPv4-mapped
    ['::ffff:7f00:1', true, false], // IPv4-mapped, hex form
    ['::ffff:169.254.169.254', true, true],
    ['::ffff:8.8.8.8', false, false],
    ['64:ff9b::a00:1', true, false], // NAT64 of 10.0.0.1
    ['64:ff9b::808:808', false, false], // NAT64 of 8.8.8.8
    ['2002:7f00:1::', true, false], // 6to4 of 127.0.0.1
    ['2002:c0a8:101::1', true, false], // 6to4 of 192.168.1.1
    ['::127.0.0.1', true, true], // IPv4-compatible (deprecated): refused whole
    ['::ffff:0:127.0.0.1', true, true], // IPv4-translated: refused whole (#28.8)
  ];
  test.each(table)('%s: refused=%s, refused with ALLOW_PRIVATE_URLS=%s', (ip, refused, alwaysRefused) => {
    expect(blockedAddressReason(ip) !== null).toBe(refused);
    expect(blockedAddressReason(ip, { allowPrivate: true }) !== null).toBe(alwaysRefused);
  });

  test('names the range it refuses', () => {
    expect(blockedAddressReason('169.254.169.254')).toMatch(/metadata/);
    expect(blockedAddressReason('127.0.0.1')).toBe('loopback');
    expect(blockedAddressReason('::ffff:10.1.2.3')).toMatch(/private, inside IPv6/);
  });
});

describe('assertPublicUrl (save time)', () => {
  const refused: [string, RegExp][] = [
    ['http://127.0.0.1:8080', /loopback/],
    ['http://127.1', /loopback/], // short form, normalised by the URL parser
    ['http://2130706433/', /loopback/], // decimal form of 127.0.0.1
    ['http://0x7f000001/', /loopback/],
    ['http://[::1]:9000/', /loopback/],
    ['http://[::ffff:127.0.0.1]/', /loopback/],
    ['http://10.0.0.5/', /private/],
    ['http://169.254.169.254/latest/meta-data/', /metadata/],
    ['http://localhost:3000', /local host name/],
    ['http://api.localhost/', /local host name/],
    ['http://metadata.google.internal/', /local host name/],
    ['https://graph.facebook.com?', /query string/],
    ['https://graph.facebook.com/?x=1', /query string/],
    ['https://graph.facebook.com/#frag', /query string/],
    ['https://user:pass@graph.facebook.com', /credentials/],
    ['ftp://graph.facebook.com', /only http and https/],
    ['file:///etc/passwd', /only http and https/],
    ['gopher://127.0.0.1:6379/_', /only http and https/],
    ['not a url', /not a valid URL/],
  ];
  test.each(refused)('%s is refused (%s)', (url, why) => {
    let err: unknown;
    try {
      assertPublicUrl(url, { field: 'graphBaseUrl' });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(AppError);
    expect(err).toMatchObject({ code: 'ERR_URL_NOT_ALLOWED', statusCode: 400 });
    expect((err as AppError).extra).toEqual({
      fields: [{ path: 'graphBaseUrl', message: expect.stringMatching(why) }],
    });
  });

  test('public URLs pass; ALLOW_PRIVATE_URLS lets private and loopback ones pass, never metadata', () => {
    expect(assertPublicUrl('https://graph.facebook.com').hostname).toBe('graph.facebook.com');
    expect(assertPublicUrl('https://example.com/hook?token=1', { allowQuery: true }).search).toBe('?token=1');
    expect(assertPublicUrl('http://127.0.0.1:8080', { allowPrivate: true }).port).toBe('8080');
    expect(assertPublicUrl('http://localhost:3000', { allowPrivate: true }).hostname).toBe('localhost');
    expect(() => assertPublicUrl('http://169.254.169.254/', { allowPrivate: true })).toThrow(AppError);
  });
});

const servers: Server[] = [];
afterAll(() => Promise.all(servers.map((s) => new Promise((r) => s.close(r)))));
async function serve(handler: RequestListener, host = '127.0.0.1'): Promise<string> {
  const server = createServer(handler);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return `http://${host}:${(server.address() as AddressInfo).port}`;
}
const secret = await serve((_req, res) => res.end('internal-secret'));
const hits: { path: string; auth?: string }[] = [];
const echo = await serve((req, res) => {
  hits.push({ path: req.url!, auth: req.headers.authorization });
  if (req.url === '/to-secret') {
    res.writeHead(302, { location: `${secret}/` });
    return res.end();
  }
  if (req.url?.startsWith('/loop')) {
    res.writeHead(302, { location: `/loop${Number(req.url.slice(5) || 0) + 1}` });
    return res.end();
  }
  if (req.url === '/big') {
    res.writeHead(200); // no content-length: the limit must hold while streaming
    const chunk = Buffer.alloc(64 * 1024, 1);
    let sent = 0;
    const pump = () => {
      while (sent < 50) {
        sent++;
        if (!res.write(chunk)) return void res.once('drain', pump);
      }
      res.end();
    };
    return pump();
  }
  if (req.url === '/slow') return; // never answers
  if (req.url === '/post') {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => res.end(`${req.method} ${req.headers['content-type']} ${body}`));
    return;
  }
  res.setHeader('content-type', 'application/json');
  res.end(JSON.stringify({ ok: true, path: req.url }));
});
// Two loopback addresses: the policy in these tests lets 127.0.0.1 through and refuses 127.0.0.2.
const other = await serve((_req, res) => res.end('reached 127.0.0.2'), '127.0.0.2');

describe('safeFetch (connect time)', () => {
  test('loopback is refused without ALLOW_PRIVATE_URLS, as a literal and through DNS, before any request', async () => {
    const before = hits.length;
    await expect(safeFetch(`${echo}/x`)).rejects.toBeInstanceOf(OutboundUrlError);
    await expect(safeFetch(`${echo.replace('127.0.0.1', 'localhost')}/x`)).rejects.toThrow(/localhost/);
    // A name nothing refuses by its spelling: the refusal comes from the socket's own address check
    // (this machine's name resolves to loopback in /etc/hosts).
    const name = hostname();
    const resolved = await lookup(name).catch(() => undefined);
    if (resolved && blockedAddressReason(resolved.address))
      await expect(safeFetch(`http://${name}:${new URL(echo).port}/x`)).rejects.toThrow(
        new RegExp(`${name} resolves to a`),
      );
    expect(hits.length).toBe(before);
  });

  test('with ALLOW_PRIVATE_URLS a local server answers as a standard Response', async () => {
    const res = await safeFetch(`${echo}/hello?x=1`, {}, { allowPrivate: true });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(await res.json()).toEqual({ ok: true, path: '/hello?x=1' });
  });

  test('a name that resolves to a public address at save time and to loopback at connect time is refused', async () => {
    let calls = 0;
    const rebinding: SafeFetchOptions['lookup'] = (_host, _opts, cb) => {
      calls++;
      cb(null, [{ address: '127.0.0.1', family: 4 }]);
    };
    const url = `http://rebind.example.com:${new URL(echo).port}/x`;
    expect(() => assertPublicUrl(url)).not.toThrow(); // nothing literal to refuse when it is saved
    const before = hits.length;
    await expect(safeFetch(url, {}, { lookup: rebinding })).rejects.toThrow(
      /rebind\.example\.com resolves to a loopback address/,
    );
    expect(calls).toBe(1);
    expect(hits.length).toBe(before);
    // A name with one private address among public ones is refused too.
    const mixed: SafeFetchOptions['lookup'] = (_h, _o, cb) =>
      cb(null, [
        { address: '93.184.216.34', family: 4 },
        { address: '10.0.0.7', family: 4 },
      ]);
    await expect(safeFetch(url, {}, { lookup: mixed })).rejects.toThrow(/private/);
  });

  test('each redirect hop is checked again, and the token does not follow to another origin', async () => {
    // The policy lets 127.0.0.1 through (ALLOW_PRIVATE_URLS) but a hop to cloud metadata never passes.
    const toMeta = await serve((_req, res) => {
      res.writeHead(307, { location: 'http://169.254.169.254/latest/meta-data/' });
      res.end();
    });
    await expect(safeFetch(toMeta, {}, { allowPrivate: true })).rejects.toThrow(/metadata/);
    // A hop to a host another rule refuses (checkUrl runs on every hop).
    const onlyFirst = (u: URL) => (u.hostname === '127.0.0.2' ? 'host not allowed' : null);
    const toOther = await serve((_req, res) => {
      res.writeHead(302, { location: `${other}/` });
      res.end();
    });
    await expect(safeFetch(toOther, {}, { allowPrivate: true, checkUrl: onlyFirst })).rejects.toThrow(
      /host not allowed/,
    );
    // Followed when allowed; the authorization header is dropped on the way to another origin.
    const res = await safeFetch(
      `${echo}/to-secret`,
      { headers: { Authorization: 'Bearer t0ken' } },
      { allowPrivate: true },
    );
    expect(await res.text()).toBe('internal-secret');
    expect(hits.at(-1)).toEqual({ path: '/to-secret', auth: 'Bearer t0ken' });
  });

  test('redirects are bounded', async () => {
    await expect(
      safeFetch(`${echo}/loop`, {}, { allowPrivate: true, maxRedirects: 3 }),
    ).rejects.toBeInstanceOf(OutboundLimitError);
    const res = await safeFetch(`${echo}/loop`, {}, { allowPrivate: true, maxRedirects: 0 }).catch((e) => e);
    expect(res).toMatchObject({ limit: 'redirects' });
  });

  test('the answer size is bounded while streaming, the total time is bounded', async () => {
    await expect(
      safeFetch(`${echo}/big`, {}, { allowPrivate: true, maxBytes: 100_000 }),
    ).rejects.toMatchObject({
      limit: 'size',
    });
    const ok = await safeFetch(`${echo}/big`, {}, { allowPrivate: true, maxBytes: 10_000_000 });
    expect((await ok.arrayBuffer()).byteLength).toBe(50 * 64 * 1024);
    await expect(safeFetch(`${echo}/slow`, {}, { allowPrivate: true, timeoutMs: 300 })).rejects.toMatchObject(
      {
        limit: 'time',
      },
    );
  });

  test('JSON and multipart bodies are sent as fetch would', async () => {
    const json = await safeFetch(
      `${echo}/post`,
      { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":1}' },
      { allowPrivate: true },
    );
    expect(await json.text()).toBe('POST application/json {"a":1}');
    const form = new FormData();
    form.append('field', 'value');
    const multipart = await (
      await safeFetch(`${echo}/post`, { method: 'POST', body: form }, { allowPrivate: true })
    ).text();
    expect(multipart).toMatch(/^POST multipart\/form-data; boundary=.+ .*name="field"/s);
  });

  test('only http and https, never credentials in the URL', async () => {
    await expect(safeFetch('file:///etc/passwd')).rejects.toThrow(/only http and https/);
    await expect(safeFetch(`http://u:p@${new URL(echo).host}/`, {}, { allowPrivate: true })).rejects.toThrow(
      /credentials/,
    );
  });
});
