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

type Range = readonly [network: string, prefix: number, why: string];

const V4: Range[] = [
  ['0.0.0.0', 8, 'this network'],
  ['10.0.0.0', 8, 'private'],
  ['100.64.0.0', 10, 'carrier-grade NAT'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link-local (cloud metadata)'],
  ['172.16.0.0', 12, 'private'],
  ['192.0.0.0', 24, 'IETF protocol assignments'],
  ['192.0.2.0', 24, 'documentation'],
  ['192.88.99.0', 24, '6to4 relay'],
  ['192.168.0.0', 16, 'private'],
  ['198.18.0.0', 15, 'benchmarking'],
  ['198.51.100.0', 24, 'documentation'],
  ['203.0.113.0', 24, 'documentation'],
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved'],
];
const V6: Range[] = [
  ['::', 128, 'unspecified'],
  ['::1', 128, 'loopback'],
  ['::', 96, 'IPv4-compatible (deprecated)'],
  ['64:ff9b:1::', 48, 'local NAT64'],
  ['100::', 64, 'discard'],
  ['2001::', 32, 'Teredo'],
  ['2001:db8::', 32, 'documentation'],
  ['fc00::', 7, 'unique local (private)'],
  ['fe80::', 10, 'link-local'],
  ['fec0::', 10, 'site-local'],
  ['ff00::', 8, 'multicast'],
];
/** Where cloud metadata services answer: refused even when ALLOW_PRIVATE_URLS is on. */
const METADATA: Range[] = [
  ['169.254.0.0', 16, 'link-local (cloud metadata)'],
  ['fe80::', 10, 'link-local'],
  ['fd00:ec2::', 64, 'cloud metadata'],
];

const blockListOf = (ranges: Range[], family: 'ipv4' | 'ipv6') =>
  ranges.map(([net, prefix, why]) => {
    const list = new BlockList();
    list.addSubnet(net, prefix, family);
    return { list, why };
  });
const V4_LISTS = blockListOf(V4, 'ipv4');
const V6_LISTS = blockListOf(V6, 'ipv6');
const META_V4 = blockListOf(METADATA.slice(0, 1), 'ipv4');
const META_V6 = blockListOf(METADATA.slice(1), 'ipv6');

/** The IPv4 address carried inside an IPv6 one (mapped ::ffff:a.b.c.d, NAT64 64:ff9b::/96, 6to4 2002::/16). */
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
 * With `allowPrivate` (ALLOW_PRIVATE_URLS) only the cloud metadata ranges are still refused.
 */
export function blockedAddressReason(ip: string, opts: { allowPrivate?: boolean } = {}): string | null {
  const family = isIP(ip);
  if (family === 0) return 'not an IP address';
  if (family === 6) {
    const inner = embeddedV4(ip);
    if (inner) {
      const why = blockedAddressReason(inner, opts);
      return why ? `${why}, inside IPv6` : null;
    }
  }
  const lists = opts.allowPrivate ? (family === 4 ? META_V4 : META_V6) : family === 4 ? V4_LISTS : V6_LISTS;
  const type = family === 4 ? 'ipv4' : 'ipv6';
  return lists.find((l) => l.list.check(ip, type))?.why ?? null;
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
