import { isIP, isIPv4 } from 'node:net';

export type AddressClass =
  | 'public'
  | 'loopback'
  | 'private'
  | 'link-local'
  | 'metadata'
  | 'cgnat'
  | 'unspecified'
  | 'multicast'
  | 'broadcast'
  /** Documentation, benchmarking, IETF-reserved, deprecated tunnels: nothing a webhook should reach. */
  | 'reserved';

export interface SsrfPolicy {
  /** development lets loopback through (local receivers); production refuses every non-public class. */
  mode: 'development' | 'production';
  /** Host names (as in the URL, case-insensitive) exempt from the address check, except metadata. */
  allowHosts: readonly string[];
}

/** First match wins, so the single metadata addresses come before the ranges that contain them. */
const V4_RANGES: ReadonlyArray<readonly [string, number, AddressClass]> = [
  ['169.254.169.254', 32, 'metadata'], // AWS, GCP, Azure, OCI, DigitalOcean
  ['100.100.100.200', 32, 'metadata'], // Alibaba Cloud
  ['168.63.129.16', 32, 'metadata'], // Azure WireServer
  ['0.0.0.0', 8, 'unspecified'],
  ['127.0.0.0', 8, 'loopback'],
  ['10.0.0.0', 8, 'private'],
  ['172.16.0.0', 12, 'private'],
  ['192.168.0.0', 16, 'private'],
  ['169.254.0.0', 16, 'link-local'],
  ['100.64.0.0', 10, 'cgnat'],
  ['255.255.255.255', 32, 'broadcast'],
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved'],
  ['192.0.0.0', 24, 'reserved'],
  ['192.0.2.0', 24, 'reserved'],
  ['192.88.99.0', 24, 'reserved'],
  ['198.18.0.0', 15, 'reserved'],
  ['198.51.100.0', 24, 'reserved'],
  ['203.0.113.0', 24, 'reserved'],
];

const V4_TABLE = V4_RANGES.map(([ip, bits, cls]) => {
  const mask = bits === 0 ? 0 : (~0 << (32 - bits)) >>> 0;
  return { base: (v4ToInt(ip) & mask) >>> 0, mask, cls };
});

/** Class of an IP literal (v4 or v6, zone ids ignored); null when the string is not an IP. */
export function classifyAddress(ip: string): AddressClass | null {
  const bare = ip.startsWith('[') && ip.endsWith(']') ? ip.slice(1, -1) : ip;
  if (isIPv4(bare)) return classifyV4(v4ToInt(bare));
  const groups = parseV6(bare);
  return groups === null ? null : classifyV6(groups);
}

function classifyV4(n: number): AddressClass {
  for (const { base, mask, cls } of V4_TABLE) if ((n & mask) >>> 0 === base) return cls;
  return 'public';
}

function classifyV6(g: readonly number[]): AddressClass {
  const at = (i: number): number => g[i] ?? 0;
  const zero = (from: number, to: number): boolean => g.slice(from, to).every((x) => x === 0);
  const v4 = (hi: number, lo: number): AddressClass => classifyV4(((hi << 16) | lo) >>> 0);

  if (zero(0, 8)) return 'unspecified';
  if (zero(0, 7) && at(7) === 1) return 'loopback';
  // Forms that carry an IPv4 address: judged by that address, or `::ffff:127.0.0.1` walks past.
  if (zero(0, 5) && at(5) === 0xffff) return v4(at(6), at(7)); // IPv4-mapped ::ffff:0:0/96
  if (zero(0, 4) && at(4) === 0xffff && at(5) === 0) return v4(at(6), at(7)); // SIIT ::ffff:0:0:0/96
  if (zero(0, 6)) return v4(at(6), at(7)); // IPv4-compatible ::/96 (deprecated)
  if (at(0) === 0x64 && at(1) === 0xff9b && zero(2, 6)) return v4(at(6), at(7)); // NAT64 64:ff9b::/96
  if (at(0) === 0x64 && at(1) === 0xff9b && at(2) === 1) return 'private'; // local-use NAT64 64:ff9b:1::/48
  if (at(0) === 0x2002) return v4(at(1), at(2)); // 6to4 2002::/16
  if (at(0) === 0x2001 && at(1) === 0) return 'reserved'; // Teredo: the embedded client is obfuscated; refuse outright
  if (at(0) === 0x2001 && at(1) === 0x0db8) return 'reserved'; // documentation
  if (at(0) === 0xfd00 && at(1) === 0x0ec2 && zero(2, 7) && at(7) === 0x254) return 'metadata'; // AWS IMDS over IPv6
  if ((at(0) & 0xfe00) === 0xfc00) return 'private'; // unique local fc00::/7
  if ((at(0) & 0xffc0) === 0xfe80) return 'link-local';
  if ((at(0) & 0xffc0) === 0xfec0) return 'private'; // deprecated site-local
  if ((at(0) & 0xff00) === 0xff00) return 'multicast';
  if ((at(0) & 0xe000) === 0x2000) return 'public'; // global unicast 2000::/3
  return 'reserved'; // everything else is unassigned or special-purpose (100::/64 discard etc.)
}

function v4ToInt(ip: string): number {
  return ip.split('.').reduce((acc, part) => ((acc << 8) | Number(part)) >>> 0, 0);
}

/** Eight 16-bit groups, or null. Validation is left to net.isIPv6; this only expands `::` and a dotted tail. */
function parseV6(input: string): number[] | null {
  const ip = input.split('%')[0] ?? '';
  if (isIP(ip) !== 6) return null;
  let text = ip;
  const tail = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (tail?.[1] !== undefined) {
    const n = v4ToInt(tail[1]);
    text = `${text.slice(0, -tail[1].length)}${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}`;
  }
  const [head = '', rest] = text.split('::');
  const parse = (s: string): number[] => (s === '' ? [] : s.split(':').map((h) => parseInt(h, 16)));
  const left = parse(head);
  if (rest === undefined) return left;
  const right = parse(rest);
  return [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right];
}

/** Raised (as a connect error) when the guard refuses an address. */
export class SsrfRefusedError extends Error {
  readonly code = 'ERR_SSRF_REFUSED';
  constructor(readonly addressClass: AddressClass | 'invalid') {
    super(`refused by SSRF guard: ${addressClass} address`);
    this.name = 'SsrfRefusedError';
  }
}

const normaliseHost = (host: string): string =>
  host
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '')
    .toLowerCase();

function isAllowedHost(hostname: string, policy: SsrfPolicy): boolean {
  const host = normaliseHost(hostname);
  return policy.allowHosts.some((h) => normaliseHost(h) === host);
}

/**
 * The refusal for connecting to `address` on behalf of `hostname`, or null when allowed.
 * allowHosts lifts every class except metadata: naming an internal host is a deliberate choice,
 * reaching instance credentials never is.
 */
export function refusalFor(address: string, hostname: string, policy: SsrfPolicy): SsrfRefusedError | null {
  const cls = classifyAddress(address);
  if (cls === null) return new SsrfRefusedError('invalid');
  if (cls === 'public') return null;
  if (cls !== 'metadata' && isAllowedHost(hostname, policy)) return null;
  if (cls === 'loopback' && policy.mode === 'development') return null;
  return new SsrfRefusedError(cls);
}

export type WebhookUrlCheck = { ok: true; url: URL } | { ok: false; error: string };

/**
 * Up-front check of an endpoint URL (config load and before each delivery). Names are only
 * resolved at connect time, so with a policy this catches IP literals only; the agent from
 * `createGuardedAgent` enforces the rest.
 */
export function validateWebhookUrl(raw: string, policy?: SsrfPolicy): WebhookUrlCheck {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, error: 'invalid url' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return { ok: false, error: `unsupported url scheme (${url.protocol.slice(0, -1)}); use http or https` };
  }
  if (url.username !== '' || url.password !== '') {
    return { ok: false, error: 'credentials in the url are not allowed; use the signing secret' };
  }
  if (url.hostname === '') return { ok: false, error: 'invalid url' };
  if (policy !== undefined && classifyAddress(url.hostname) !== null) {
    const refusal = refusalFor(url.hostname, url.hostname, policy);
    if (refusal !== null) return { ok: false, error: refusal.message };
  }
  return { ok: true, url };
}

/** The SSRF policy of a server: its environment, plus `webhooks.allowHosts` from the config file. */
export const webhookPolicy = (settings: { env: SsrfPolicy['mode']; config: { webhooks?: { allowHosts?: readonly string[] } | undefined } }): SsrfPolicy => ({
  mode: settings.env,
  allowHosts: settings.config.webhooks?.allowHosts ?? [],
});
