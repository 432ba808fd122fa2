import { describe, expect, test } from 'vitest';
import { AppError } from '../http/errors.js';
import {
  assertPublicUrl,
  blockedAddressReason,
  OutboundUrlError,
  safeFetch,
  type SafeFetchOptions,
} from './safe-fetch.js';

/**
 * #28.8: every block of IANA's IPv4 and IPv6 Special-Purpose Address Registries (and the addresses cloud
 * metadata services answer on) against the guard, in every textual form a URL or a resolver can carry it.
 * `private`: refused, let through by ALLOW_PRIVATE_URLS (a self-hosted service may live there); `never`:
 * refused even then (docs/outbound-urls.md decides each). The table is written from the registries, not
 * read from the guard's own list.
 */
type Policy = 'private' | 'never';
const V4: [cidr: string, policy: Policy][] = [
  ['0.0.0.0/8', 'private'], // "this network" (0.0.0.0 reaches the local host on Linux)
  ['10.0.0.0/8', 'private'],
  ['100.64.0.0/10', 'private'], // shared address space (CGNAT)
  ['100.100.100.200/32', 'never'], // Alibaba Cloud metadata, inside CGNAT
  ['127.0.0.0/8', 'private'],
  ['168.63.129.16/32', 'never'], // Azure's host endpoint (WireServer)
  ['169.254.0.0/16', 'never'], // link-local: AWS/GCP/Azure/OCI metadata at 169.254.169.254
  ['172.16.0.0/12', 'private'],
  ['192.0.0.0/24', 'never'], // IETF protocol assignments (OCI metadata 192.0.0.192, DS-Lite, NAT64 discovery)
  ['192.0.2.0/24', 'never'], // TEST-NET-1
  ['192.31.196.0/24', 'never'], // AS112-v4
  ['192.52.193.0/24', 'never'], // AMT
  ['192.88.99.0/24', 'never'], // deprecated 6to4 relay anycast
  ['192.168.0.0/16', 'private'],
  ['192.175.48.0/24', 'never'], // direct delegation AS112
  ['198.18.0.0/15', 'private'], // benchmarking (labs, fake-IP DNS set-ups)
  ['198.51.100.0/24', 'never'], // TEST-NET-2
  ['203.0.113.0/24', 'never'], // TEST-NET-3
  ['224.0.0.0/4', 'never'], // multicast
  ['240.0.0.0/4', 'never'], // reserved
  ['255.255.255.255/32', 'never'], // limited broadcast
];
const V6: [cidr: string, policy: Policy][] = [
  ['::/128', 'private'],
  ['::1/128', 'private'],
  ['::/96', 'never'], // IPv4-compatible (deprecated)
  ['::ffff:0:0:0/96', 'never'], // IPv4-translated (SIIT): refused whole, whatever IPv4 it carries
  ['64:ff9b:1::/48', 'never'], // local-use NAT64
  ['100::/64', 'never'], // discard-only
  ['100:0:0:1::/64', 'never'], // dummy prefix
  ['2001::/23', 'never'], // IETF protocol assignments, with its sub-blocks:
  ['2001::/32', 'never'], // Teredo (an obfuscated IPv4 inside)
  ['2001:1::1/128', 'never'], // PCP anycast
  ['2001:1::2/128', 'never'], // TURN anycast
  ['2001:1::3/128', 'never'], // DNS-SD SRP anycast
  ['2001:2::/48', 'never'], // benchmarking
  ['2001:3::/32', 'never'], // AMT
  ['2001:4:112::/48', 'never'], // AS112-v6
  ['2001:10::/28', 'never'], // ORCHID (deprecated)
  ['2001:20::/28', 'never'], // ORCHIDv2
  ['2001:30::/28', 'never'], // drone remote ID
  ['2001:db8::/32', 'never'], // documentation
  ['2620:4f:8000::/48', 'never'], // direct delegation AS112
  ['3fff::/20', 'never'], // documentation
  ['5f00::/16', 'never'], // SRv6 SIDs
  ['fc00::/7', 'private'], // unique local
  ['fd00:ec2::/64', 'never'], // AWS metadata over IPv6, inside fc00::/7
  ['fe80::/10', 'never'], // link-local
  ['fec0::/10', 'private'], // site-local (deprecated; private like fc00::/7)
  ['ff00::/8', 'never'], // multicast
];

// ---- address arithmetic of the test's own (BigInt), so the samples do not come from the guard -------------
const v4Int = (s: string) => s.split('.').reduce((n, o) => (n << 8n) | BigInt(o), 0n);
const v4Text = (n: bigint) => [24n, 16n, 8n, 0n].map((sh) => String((n >> sh) & 255n)).join('.');
function v6Int(s: string): bigint {
  const [head, tail] = s.split('::') as [string, string | undefined];
  const words = (p: string | undefined) => (p ? p.split(':').map((w) => BigInt(`0x${w}`)) : []);
  const a = words(head);
  const b = words(tail);
  const all = tail === undefined ? a : [...a, ...new Array<bigint>(8 - a.length - b.length).fill(0n), ...b];
  return all.reduce((n, w) => (n << 16n) | w, 0n);
}
const v6Words = (n: bigint) => [...Array(8).keys()].map((i) => (n >> BigInt(112 - 16 * i)) & 0xffffn);
const v6Expanded = (n: bigint) =>
  v6Words(n)
    .map((w) => w.toString(16).padStart(4, '0'))
    .join(':');
/** The WHATWG URL serializer's compressed form. */
const v6Compressed = (n: bigint) => new URL(`http://[${v6Expanded(n)}]/`).hostname.slice(1, -1);
/** The last 32 bits as a dotted IPv4 tail: `fe80::0.0.0.1`. */
const v6Dotted = (n: bigint) =>
  `${v6Words(n)
    .slice(0, 6)
    .map((w) => w.toString(16))
    .join(':')}:${v4Text(n & 0xffffffffn)}`;

interface Block {
  cidr: string;
  policy: Policy;
  family: 4 | 6;
  first: bigint;
  last: bigint;
  bits: number;
}
const blocks: Block[] = [...V4.map((b) => [...b, 4] as const), ...V6.map((b) => [...b, 6] as const)].map(
  ([cidr, policy, family]) => {
    const [net, len] = cidr.split('/') as [string, string];
    const width = family === 4 ? 32 : 128;
    const bits = Number(len);
    const first = family === 4 ? v4Int(net) : v6Int(net);
    const last = first | ((1n << BigInt(width - bits)) - 1n);
    return { cidr, policy, family, first, last, bits };
  },
);
/** The most specific block holding an address decides. */
const decidingBlock = (family: 4 | 6, n: bigint) =>
  blocks
    .filter((b) => b.family === family && n >= b.first && n <= b.last)
    .sort((a, b) => b.bits - a.bits)[0]!;
/** First, middle and last address of a block, each judged by the block that decides it. */
const samples = blocks.flatMap((b) =>
  [...new Set([b.first, b.first + (b.last - b.first) / 2n, b.last])].map((n) => ({
    n,
    family: b.family,
    block: decidingBlock(b.family, n),
  })),
);

/** Every textual form of an address: as the resolver or a literal, and inside a URL. */
function forms(family: 4 | 6, n: bigint): { addresses: string[]; urls: string[] } {
  if (family === 4) {
    const dotted = v4Text(n);
    const octets = dotted.split('.').map(Number);
    return {
      addresses: [dotted],
      urls: [
        `http://${dotted}/`,
        `http://${n}/`, // decimal integer
        `http://0x${n.toString(16)}/`, // hex integer
        `http://${octets.map((o) => `0${o.toString(8)}`).join('.')}/`, // octal octets
        `http://${octets.map((o) => `0x${o.toString(16)}`).join('.')}/`, // hex octets
        `http://${octets[0]}.${(octets[1]! << 16) | (octets[2]! << 8) | octets[3]!}/`, // a.b-style short form
        `https://${dotted}:8443/hook?x=1`,
      ],
    };
  }
  const compressed = v6Compressed(n);
  const addresses = [
    compressed,
    v6Expanded(n),
    v6Expanded(n).toUpperCase(),
    v6Dotted(n),
    `${compressed}%eth0`,
  ];
  return { addresses, urls: addresses.slice(0, 4).map((a) => `http://[${a}]/`) };
}

const refusedAtSave = (url: string, allowPrivate: boolean) => {
  try {
    assertPublicUrl(url, { allowPrivate, allowQuery: true, field: 'url' });
    return false;
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    expect(err).toMatchObject({ code: 'ERR_URL_NOT_ALLOWED', statusCode: 400 });
    return true;
  }
};

describe('every special-purpose block against the guard (#28.8)', () => {
  test.each(samples.map((s) => [s.family === 4 ? v4Text(s.n) : v6Compressed(s.n), s] as const))(
    '%s',
    (_name, { n, family, block }) => {
      const { addresses, urls } = forms(family, n);
      const never = block.policy === 'never';
      for (const a of addresses) {
        expect([a, blockedAddressReason(a) !== null]).toEqual([a, true]);
        expect([a, blockedAddressReason(a, { allowPrivate: true }) !== null]).toEqual([a, never]);
      }
      for (const url of urls) {
        expect([url, refusedAtSave(url, false)]).toEqual([url, true]);
        expect([url, refusedAtSave(url, true)]).toEqual([url, never]);
      }
    },
  );

  test('an IPv4 block inside IPv6 (mapped, NAT64, 6to4) is judged by its IPv4 address; IPv4-translated and -compatible never pass', () => {
    for (const s of samples.filter((x) => x.family === 4)) {
      const dotted = v4Text(s.n);
      const hi = ((s.n >> 16n) & 0xffffn).toString(16);
      const lo = (s.n & 0xffffn).toString(16);
      const never = s.block.policy === 'never';
      for (const url of [
        `http://[::ffff:${dotted}]/`,
        `http://[::ffff:${hi}:${lo}]/`,
        `http://[0:0:0:0:0:FFFF:${dotted}]/`,
        `http://[64:ff9b::${dotted}]/`,
        `http://[64:ff9b::${hi}:${lo}]/`,
        `http://[2002:${hi}:${lo}::1]/`,
      ]) {
        expect([url, refusedAtSave(url, false)]).toEqual([url, true]);
        expect([url, refusedAtSave(url, true)]).toEqual([url, never]);
      }
      // The form of the report: refused whole, even with ALLOW_PRIVATE_URLS.
      for (const url of [`http://[::ffff:0:${dotted}]/`, `http://[::${dotted}]/`])
        if (s.n > 1n) expect([url, refusedAtSave(url, true)]).toEqual([url, true]);
    }
    for (const url of [
      'http://[::ffff:0:127.0.0.1]/',
      'http://[::ffff:0:8.8.8.8]/',
      'http://[::ffff:0:7f00:1]/',
    ])
      expect([url, refusedAtSave(url, true)]).toEqual([url, true]);
  });

  test('zone ids: refused in a URL (not a valid URL), judged without them from a resolver', () => {
    expect(refusedAtSave('http://[fe80::1%25eth0]/', true)).toBe(true);
    expect(refusedAtSave('http://[fd12::1%25eth0]/', true)).toBe(true);
    expect(blockedAddressReason('fe80::1%eth0', { allowPrivate: true })).toMatch(/link-local/);
    expect(blockedAddressReason('fd00:ec2::254%2', { allowPrivate: true })).toMatch(/metadata/);
  });

  test('IPv6 outside global unicast (2000::/3) that no block names is refused; public neighbours pass', () => {
    for (const a of ['::2:0:0:1', '::ffff:0:0:7f00:1', '1::1', '4000::1', 'e000::1', 'fb00::1'])
      expect([a, blockedAddressReason(a, { allowPrivate: true }) !== null]).toEqual([a, true]);
    for (const a of [
      '8.8.8.8',
      '1.1.1.1',
      '100.63.255.255',
      '100.128.0.0',
      '168.63.129.15',
      '168.63.129.17',
      '172.15.255.255',
      '172.32.0.0',
      '192.0.1.255',
      '192.0.3.0',
      '192.31.195.255',
      '192.31.197.0',
      '192.52.194.0',
      '192.88.100.0',
      '192.175.49.0',
      '198.17.255.255',
      '198.20.0.0',
      '223.255.255.255',
      '::ffff:8.8.8.8',
      '64:ff9b::808:808',
      '2002:808:808::1',
      '2001:200::1',
      '2001:db9::1',
      '2606:4700:4700::1111',
      '2620:4f:8001::1',
      '3fff:1000::1',
      '2a03:2880:f12f:83:face:b00c:0:25de',
    ]) {
      expect([a, blockedAddressReason(a)]).toEqual([a, null]);
      const url = a.includes(':') ? `http://[${a}]/` : `http://${a}/`;
      expect([url, refusedAtSave(url, false)]).toEqual([url, false]);
    }
  });

  test('a name resolving to any of them is refused at connect time, before a request', async () => {
    const refusals: string[] = [];
    for (const s of samples) {
      const { addresses } = forms(s.family, s.n);
      for (const address of [addresses[0]!, addresses.at(-1)!]) {
        const lookup: SafeFetchOptions['lookup'] = (_h, _o, cb) =>
          cb(null, [
            { address: '93.184.216.34', family: 4 },
            { address, family: s.family },
          ]);
        for (const allowPrivate of s.block.policy === 'never' ? [false, true] : [false]) {
          const err = await safeFetch(
            'http://hook.example.com/x',
            {},
            { lookup, allowPrivate, timeoutMs: 5000 },
          ).then(
            () => null,
            (e: unknown) => e,
          );
          expect([address, allowPrivate, err instanceof OutboundUrlError]).toEqual([
            address,
            allowPrivate,
            true,
          ]);
          refusals.push(address);
        }
      }
    }
    expect(refusals.length).toBeGreaterThan(100);
  });
});
