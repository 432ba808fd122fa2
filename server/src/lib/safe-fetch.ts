import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import { BlockList, isIP } from 'node:net';
import { AppError } from '../http/errors.js';

/**
 * The one way the server reaches a URL a tenant chose (Cloud API base URL and media, prompt base URLs,
 * and the webhook, Typebot and n8n URLs). See docs/outbound-urls.md.
 *
 * - `assertPublicUrl` is the save-time check: http(s) only, no credentials, no query/fragment tricks on base
 *   URLs, no literal private or loopback host. It answers 400 ERR_URL_NOT_ALLOWED.
 * - `safeFetch` is the connect-time guard: every address a host name resolves to is checked inside the
 *   socket's own DNS lookup (so a name that resolves to a public address at save time and to 127.0.0.1 later
 *   is refused), redirects are followed by hand and each hop is checked again, the answer's size and the
 *   total time are bounded.
 */

/**
 * A special-purpose block (IANA's IPv4 and IPv6 Special-Purpose Address Registries, plus the addresses cloud
 * metadata services answer on) and what ALLOW_PRIVATE_URLS does to it: `private` blocks are where a
 * self-hosted service may live, so the flag lets them through; `never` blocks stay refused with it (metadata,
 * documentation, multicast, reserved, protocol anycast and translation prefixes: nothing a tenant's URL may
 * name). The most specific block decides (169.254.169.254 is `never` inside nothing broader; fd00:ec2::254 is
 * `never` inside the private fc00::/7). docs/outbound-urls.md has the table.
 */
type Range = readonly [network: string, prefix: number, why: string, policy: 'private' | 'never'];

const V4_RANGES: readonly Range[] = [
  ['0.0.0.0', 8, 'this network', 'private'],
  ['10.0.0.0', 8, 'private', 'private'],
  ['100.64.0.0', 10, 'carrier-grade NAT', 'private'],
  ['100.100.100.200', 32, 'cloud metadata (Alibaba)', 'never'],
  ['127.0.0.0', 8, 'loopback', 'private'],
  ['168.63.129.16', 32, 'cloud metadata (Azure host)', 'never'],
  ['169.254.0.0', 16, 'link-local (cloud metadata)', 'never'],
  ['172.16.0.0', 12, 'private', 'private'],
  ['192.0.0.0', 24, 'IETF protocol assignments (cloud metadata at 192.0.0.192)', 'never'],
  ['192.0.2.0', 24, 'documentation', 'never'],
  ['192.31.196.0', 24, 'AS112 anycast', 'never'],
  ['192.52.193.0', 24, 'AMT anycast', 'never'],
  ['192.88.99.0', 24, '6to4 relay anycast', 'never'],
  ['192.168.0.0', 16, 'private', 'private'],
  ['192.175.48.0', 24, 'AS112 direct delegation', 'never'],
  ['198.18.0.0', 15, 'benchmarking', 'private'],
  ['198.51.100.0', 24, 'documentation', 'never'],
  ['203.0.113.0', 24, 'documentation', 'never'],
  ['224.0.0.0', 4, 'multicast', 'never'],
  ['240.0.0.0', 4, 'reserved', 'never'],
  ['255.255.255.255', 32, 'broadcast', 'never'],
];
const V6_RANGES: readonly Range[] = [
  ['::', 128, 'unspecified', 'private'],
  ['::1', 128, 'loopback', 'private'],
  ['::', 96, 'IPv4-compatible (deprecated)', 'never'],
  ['::ffff:0:0:0', 96, 'IPv4-translated', 'never'],
  ['64:ff9b:1::', 48, 'local NAT64', 'never'],
  ['100::', 64, 'discard', 'never'],
  ['100:0:0:1::', 64, 'dummy prefix', 'never'],
  ['2001::', 23, 'IETF protocol assignments (Teredo, benchmarking, ORCHID, anycast)', 'never'],
  ['2001:db8::', 32, 'documentation', 'never'],
  ['2620:4f:8000::', 48, 'AS112 direct delegation', 'never'],
  ['3fff::', 20, 'documentation', 'never'],
  ['5f00::', 16, 'segment routing (SRv6 SIDs)', 'never'],
  ['fc00::', 7, 'unique local (private)', 'private'],
  ['fd00:ec2::', 64, 'cloud metadata', 'never'],
  ['fe80::', 10, 'link-local', 'never'],
  ['fec0::', 10, 'site-local (deprecated, private)', 'private'],
  ['ff00::', 8, 'multicast', 'never'],
];

/** Each family's blocks, most specific first: the first that holds an address decides. */
const listsOf = (ranges: readonly Range[], family: 'ipv4' | 'ipv6') =>
  [...ranges]
    .sort((a, b) => b[1] - a[1])
    .map(([net, prefix, why, policy]) => {
      const list = new BlockList();
      list.addSubnet(net, prefix, family);
      return { list, why, policy };
    });
const V4_LISTS = listsOf(V4_RANGES, 'ipv4');
const V6_LISTS = listsOf(V6_RANGES, 'ipv6');
/** IPv6 global unicast: anything outside it that no block above names is refused too (never allocated). */
const GLOBAL_UNICAST = new BlockList();
GLOBAL_UNICAST.addSubnet('2000::', 3, 'ipv6');

/**
 * The IPv4 address an IPv6 one stands for, where connecting to it reaches that IPv4 host: mapped
 * ::ffff:a.b.c.d (::ffff:0:0/96), NAT64 64:ff9b::/96 and 6to4 2002::/16 — judged by that IPv4 address.
 * (IPv4-translated ::ffff:0:a.b.c.d, IPv4-compatible ::a.b.c.d and Teredo are refused whole above.)
 */
function embeddedV4(ip6: string): string | undefined {
  const words = expandV6(ip6);
  if (!words) return undefined;
  const v4 = (hi: number, lo: number) => `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
  const zero = (from: number, to: number) => words.slice(from, to).every((w) => w === 0);
  if (zero(0, 5) && words[5] === 0xffff) return v4(words[6]!, words[7]!);
  if (words[0] === 0x64 && words[1] === 0xff9b && zero(2, 6)) return v4(words[6]!, words[7]!);
  if (words[0] === 0x2002) return v4(words[1]!, words[2]!);
  return undefined;
}

/** The eight 16-bit words of an IPv6 address (dotted IPv4 tail allowed), or undefined. */
function expandV6(ip: string): number[] | undefined {
  let s = ip.toLowerCase().split('%')[0]!;
  const tail = /(\d+\.\d+\.\d+\.\d+)$/.exec(s);
  if (tail) {
    const o = tail[1]!.split('.').map(Number);
    s =
      s.slice(0, -tail[1]!.length) +
      `${((o[0]! << 8) | o[1]!).toString(16)}:${((o[2]! << 8) | o[3]!).toString(16)}`;
  }
  const [head, rest] = s.split('::') as [string, string | undefined];
  const parse = (p: string) => (p ? p.split(':').map((w) => parseInt(w, 16)) : []);
  const a = parse(head);
  const b = rest === undefined ? [] : parse(rest);
  const fill = 8 - a.length - b.length;
  if (fill < 0 || (rest === undefined && fill !== 0)) return undefined;
  const words = [...a, ...new Array<number>(fill).fill(0), ...b];
  return words.every((w) => Number.isInteger(w) && w >= 0 && w <= 0xffff) ? words : undefined;
}

/**
 * Why an IP address must not be reached from the server, or null when it is an ordinary public address.
 * With `allowPrivate` (ALLOW_PRIVATE_URLS) only the `private` blocks pass; the `never` ones stay refused.
 * A zone id (`fe80::1%eth0`, as a resolver may answer) does not change the verdict.
 */
export function blockedAddressReason(raw: string, opts: { allowPrivate?: boolean } = {}): string | null {
  const ip = raw.split('%')[0]!;
  const family = isIP(ip);
  if (family === 0) return 'not an IP address';
  if (family === 6) {
    const inner = embeddedV4(ip);
    if (inner) {
      const why = blockedAddressReason(inner, opts);
      return why ? `${why}, inside IPv6` : null;
    }
  }
  const type = family === 4 ? 'ipv4' : 'ipv6';
  const hit = (family === 4 ? V4_LISTS : V6_LISTS).find((l) => l.list.check(ip, type));
  if (hit) return opts.allowPrivate && hit.policy === 'private' ? null : hit.why;
  if (family === 6 && !GLOBAL_UNICAST.check(ip, 'ipv6')) return 'reserved (not global unicast)';
  return null;
}

/** A URL the server may not call (refused before a byte is sent). */
export class OutboundUrlError extends Error {
  readonly code = 'ERR_URL_NOT_ALLOWED' as const;
  constructor(public readonly reason: string) {
    super(reason);
    this.name = 'OutboundUrlError';
  }
}

/** The call failed for a reason the guard enforces: too large, too many redirects, too slow. */
export class OutboundLimitError extends Error {
  constructor(
    public readonly limit: 'size' | 'redirects' | 'time',
    message: string,
  ) {
    super(message);
    this.name = 'OutboundLimitError';
  }
}

const LOCAL_NAMES = /(^|\.)localhost$|^metadata\.google\.internal$/i;

/** The hostname without IPv6 brackets and a trailing dot. */
const bareHost = (u: URL) => u.hostname.replace(/^\[|\]$/g, '').replace(/\.$/, '');

/** The shape rules every outbound URL keeps (throws OutboundUrlError). Returns the parsed URL. */
export function checkUrlShape(
  raw: string | URL,
  opts: { allowPrivate?: boolean; allowQuery?: boolean } = {},
): URL {
  let url: URL;
  try {
    url = new URL(String(raw));
  } catch {
    throw new OutboundUrlError('not a valid URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new OutboundUrlError(`only http and https URLs are allowed, not ${url.protocol}`);
  if (url.username || url.password) throw new OutboundUrlError('credentials inside the URL are not allowed');
  if (!opts.allowQuery && /[?#]/.test(String(raw)))
    throw new OutboundUrlError('a query string or fragment is not allowed in this URL');
  const host = bareHost(url);
  if (!host) throw new OutboundUrlError('the URL has no host');
  if (isIP(host)) {
    const why = blockedAddressReason(host, opts);
    if (why) throw new OutboundUrlError(`${host} is a ${why} address`);
  } else if (!opts.allowPrivate && LOCAL_NAMES.test(host)) {
    throw new OutboundUrlError(`${host} is a local host name`);
  }
  return url;
}

/**
 * Save-time check of a tenant-supplied URL: 400 ERR_URL_NOT_ALLOWED naming `field` when it cannot be used.
 * Host names are resolved and checked again at connect time by safeFetch (DNS may change in between).
 */
export function assertPublicUrl(
  raw: string,
  opts: { allowPrivate?: boolean; allowQuery?: boolean; field?: string } = {},
): URL {
  try {
    return checkUrlShape(raw, opts);
  } catch (err) {
    if (!(err instanceof OutboundUrlError)) throw err;
    throw new AppError('ERR_URL_NOT_ALLOWED', 400, `URL not allowed: ${err.reason}`, {
      fields: [{ path: opts.field ?? 'url', message: err.reason }],
    });
  }
}

type LookupFn = (
  hostname: string,
  options: LookupOptions & { all: true },
  callback: (err: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
) => void;

export interface SafeFetchOptions {
  /** ALLOW_PRIVATE_URLS: private and loopback addresses may be reached (cloud metadata never). */
  allowPrivate?: boolean;
  /** Total time for every hop and the whole body. */
  timeoutMs?: number;
  /** Largest body accepted; the download is aborted past it. */
  maxBytes?: number;
  maxRedirects?: number;
  /** Extra rule for every hop's URL (e.g. "Meta's media hosts only"); return a reason to refuse. */
  checkUrl?: (url: URL) => string | null;
  /** Allow a query string on the URL (and on redirects). Default true: base URLs check this at save time. */
  allowQuery?: boolean;
  signal?: AbortSignal;
  /** DNS resolver (tests stand in a rebinding one); dns.lookup by default. */
  lookup?: LookupFn;
}

export interface SafeRequestInit {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Buffer | Uint8Array | FormData;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const NULL_BODY = new Set([101, 204, 205, 304]);

/**
 * fetch() for tenant-supplied URLs. Answers a standard Response whose body is fully read (at most maxBytes).
 * Throws OutboundUrlError when a URL or an address it resolves to is refused, OutboundLimitError past a limit,
 * and the network's own errors otherwise.
 */
export async function safeFetch(
  input: string | URL,
  init: SafeRequestInit = {},
  opts: SafeFetchOptions = {},
): Promise<Response> {
  const timeoutMs = opts.timeoutMs ?? 30_000;
  const maxBytes = opts.maxBytes ?? 10 * 1024 * 1024;
  const maxRedirects = opts.maxRedirects ?? 5;
  const deadline = AbortSignal.timeout(timeoutMs);
  const signal = opts.signal ? AbortSignal.any([deadline, opts.signal]) : deadline;

  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(init.headers ?? {})) headers[k.toLowerCase()] = v;
  let body: Buffer | undefined;
  if (init.body instanceof FormData) {
    // Let the platform encode the multipart body and choose its boundary.
    const encoded = new Request('http://encode.invalid/', { method: 'POST', body: init.body });
    headers['content-type'] = encoded.headers.get('content-type')!;
    body = Buffer.from(await encoded.arrayBuffer());
  } else if (init.body !== undefined) {
    body = typeof init.body === 'string' ? Buffer.from(init.body, 'utf8') : Buffer.from(init.body);
  }
  let method = (init.method ?? 'GET').toUpperCase();
  let url = checkUrlShape(input, { allowPrivate: opts.allowPrivate, allowQuery: opts.allowQuery ?? true });

  for (let hop = 0; ; hop++) {
    const why = opts.checkUrl?.(url);
    if (why) throw new OutboundUrlError(why);
    const res = await once(url, method, headers, body, signal, opts);
    const location = res.headers.location;
    if (REDIRECTS.has(res.statusCode ?? 0) && location) {
      res.resume();
      if (hop >= maxRedirects)
        throw new OutboundLimitError('redirects', `more than ${maxRedirects} redirects`);
      let next: URL;
      try {
        next = new URL(location, url);
      } catch {
        throw new OutboundUrlError('redirect to an invalid URL');
      }
      next = checkUrlShape(next, { allowPrivate: opts.allowPrivate, allowQuery: true });
      // Credentials meant for one origin never follow a redirect to another.
      if (next.origin !== url.origin) {
        delete headers.authorization;
        delete headers.cookie;
      }
      const status = res.statusCode!;
      if (status === 303 || ((status === 301 || status === 302) && method === 'POST')) {
        method = 'GET';
        body = undefined;
        delete headers['content-type'];
      }
      url = next;
      continue;
    }
    const data = await readLimited(res, maxBytes, signal);
    const status = res.statusCode ?? 502;
    const out = new Headers();
    for (const [k, v] of Object.entries(res.headers))
      if (v !== undefined) for (const one of Array.isArray(v) ? v : [v]) out.append(k, one);
    return new Response(NULL_BODY.has(status) ? null : data, { status, headers: out });
  }
}

function guardedLookup(opts: SafeFetchOptions) {
  const resolve = opts.lookup ?? (dnsLookup as unknown as LookupFn);
  return (
    hostname: string,
    options: LookupOptions,
    callback: (err: Error | null, address: string | LookupAddress[], family?: number) => void,
  ) => {
    resolve(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, '');
      if (!addresses.length) return callback(new OutboundUrlError(`${hostname} has no address`), '');
      for (const a of addresses) {
        const why = blockedAddressReason(a.address, opts);
        if (why) return callback(new OutboundUrlError(`${hostname} resolves to a ${why} address`), '');
      }
      if (options.all) return callback(null, addresses);
      callback(null, addresses[0]!.address, addresses[0]!.family);
    });
  };
}

function once(
  url: URL,
  method: string,
  headers: Record<string, string>,
  body: Buffer | undefined,
  signal: AbortSignal,
  opts: SafeFetchOptions,
): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const lib = url.protocol === 'https:' ? https : http;
    const req = lib.request(
      url,
      {
        method,
        headers: { ...headers, ...(body ? { 'content-length': String(body.length) } : {}) },
        // A fresh connection each time: a pooled socket must never skip the address check.
        agent: false,
        lookup: guardedLookup(opts) as never,
        signal,
      },
      resolve,
    );
    req.on('error', (err) => reject(mapError(err, signal)));
    req.end(body);
  });
}

function mapError(err: Error, signal: AbortSignal): Error {
  if (err instanceof OutboundUrlError || err instanceof OutboundLimitError) return err;
  if (signal.aborted && (signal.reason as Error | undefined)?.name === 'TimeoutError')
    return new OutboundLimitError('time', 'the server took too long to answer');
  return err;
}

function readLimited(res: IncomingMessage, maxBytes: number, signal: AbortSignal): Promise<Buffer> {
  const declared = Number(res.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) {
    res.destroy();
    return Promise.reject(new OutboundLimitError('size', `answer larger than ${maxBytes} bytes`));
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const fail = (err: Error) => {
      if (settled) return;
      settled = true;
      reject(err);
      res.destroy();
    };
    res.on('data', (c: Buffer) => {
      size += c.length;
      if (size > maxBytes)
        return fail(new OutboundLimitError('size', `answer larger than ${maxBytes} bytes`));
      chunks.push(c);
    });
    res.on('end', () => {
      if (settled) return;
      settled = true;
      resolve(Buffer.concat(chunks));
    });
    res.on('error', (err) => fail(mapError(err, signal)));
    res.on('aborted', () => fail(mapError(new Error('connection closed mid-answer'), signal)));
  });
}
