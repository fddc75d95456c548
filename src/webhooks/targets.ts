/**
 * Where a webhook may be delivered. A subscription URL is chosen by a
 * customer, and the service POSTs to it from inside our network: without
 * these rules a subscription to http://169.254.169.254/ or http://10.0.0.5/
 * would make the service call its own cloud metadata or internal hosts for
 * whoever subscribed (server-side request forgery).
 *
 * Two checks. `checkUrl`, when a subscription is created or changed: the URL's
 * own text (https only, no credentials, no fragment, no literal non-public
 * IP). `resolveTarget`, at each delivery: the host's name resolved, refused
 * when any of its addresses is not public, and the address to connect to
 * returned, so the attempt connects to exactly that address and a second
 * lookup cannot answer otherwise (DNS rebinding). Both answer results, never
 * throw. MDS_WEBHOOK_ALLOW_HTTP and MDS_WEBHOOK_ALLOW_PRIVATE relax them for
 * tests and private deployments.
 */
import { promises as dns } from 'node:dns';
import { BlockList, isIP, isIPv4, isIPv6 } from 'node:net';

export interface TargetPolicy {
  /** Accept http:// (tests, a receiver on the same host). */
  allowHttp: boolean;
  /** Accept private, loopback and other non-public addresses. */
  allowPrivate: boolean;
}

export type UrlCheck = { ok: true; url: URL } | { ok: false; problem: string };
export type ResolvedTarget = { ok: true; address: string; family: 4 | 6 } | { ok: false; problem: string };
/** `dns.promises.lookup` with `{ all: true }`; tests pass their own. */
export type Lookup = (
  hostname: string,
  options: { all: true },
) => Promise<readonly { address: string; family: number }[]>;

const ALLOW_HTTP = 'set MDS_WEBHOOK_ALLOW_HTTP=1 to allow http:// for testing';
const ALLOW_PRIVATE = 'set MDS_WEBHOOK_ALLOW_PRIVATE=1 to allow non-public addresses for testing';

/** IANA's special-purpose ranges that are not globally reachable (RFC 6890 and later), by what they are. */
const IPV4_RANGES: Record<string, string[]> = {
  'unspecified ("this network")': ['0.0.0.0/8'],
  private: ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16'],
  'shared (carrier-grade NAT)': ['100.64.0.0/10'],
  loopback: ['127.0.0.0/8'],
  'link-local': ['169.254.0.0/16'],
  documentation: ['192.0.2.0/24', '198.51.100.0/24', '203.0.113.0/24'],
  multicast: ['224.0.0.0/4'],
  'reserved or broadcast': ['192.0.0.0/24', '192.88.99.0/24', '198.18.0.0/15', '240.0.0.0/4'],
};
/** Within global unicast (2000::/3) or before it; anything else outside 2000::/3 is refused too. */
const IPV6_RANGES: Record<string, string[]> = {
  unspecified: ['::/128'],
  loopback: ['::1/128'],
  'unique local (private)': ['fc00::/7'],
  'link-local': ['fe80::/10'],
  'site-local': ['fec0::/10'],
  multicast: ['ff00::/8'],
  documentation: ['2001:db8::/32', '3fff::/20'],
  // IETF protocol assignments (Teredo among them), 6to4 and local-use NAT64 reach IPv4 hosts we cannot check.
  reserved: ['2001::/23', '2002::/16', '64:ff9b:1::/48', '100::/64'],
};

function blockLists(ranges: Record<string, string[]>, type: 'ipv4' | 'ipv6'): [string, BlockList][] {
  return Object.entries(ranges).map(([kind, cidrs]) => {
    const list = new BlockList();
    for (const cidr of cidrs) {
      const [network, prefix] = cidr.split('/') as [string, string];
      list.addSubnet(network, Number(prefix), type);
    }
    return [kind, list];
  });
}

const IPV4_LISTS = blockLists(IPV4_RANGES, 'ipv4');
const IPV6_LISTS = blockLists(IPV6_RANGES, 'ipv6');
const GLOBAL_UNICAST = blockLists({ global: ['2000::/3'] }, 'ipv6')[0]![1];

/** An IPv6 address's eight 16-bit groups (a dotted IPv4 tail included), or undefined when it is not one. */
function ipv6Groups(ip: string): number[] | undefined {
  if (!isIPv6(ip)) return undefined;
  let text = ip;
  if (text.includes('.')) {
    const cut = text.lastIndexOf(':') + 1;
    const b = text.slice(cut).split('.').map(Number) as [number, number, number, number];
    text = `${text.slice(0, cut)}${((b[0] << 8) | b[1]).toString(16)}:${((b[2] << 8) | b[3]).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((g) => Number.parseInt(g, 16)));
  const before = parse(head);
  const after = tail === undefined ? [] : parse(tail);
  return [...before, ...new Array<number>(8 - before.length - after.length).fill(0), ...after];
}

/** What kind of non-public address `ip` is, or undefined when it is public. */
function refusedKind(ip: string): string | undefined {
  if (isIPv4(ip)) return IPV4_LISTS.find(([, list]) => list.check(ip, 'ipv4'))?.[0];
  // A zone (fe80::1%eth0) only exists on link-scoped addresses.
  if (ip.includes('%')) return 'link-local (scoped)';
  const g = ipv6Groups(ip);
  if (g === undefined) return 'not an IP address';
  const v4 = () => `${g[6]! >> 8}.${g[6]! & 255}.${g[7]! >> 8}.${g[7]! & 255}`;
  const zeros = (from: number, to: number) => g.slice(from, to).every((x) => x === 0);
  // IPv4-mapped (::ffff:a.b.c.d) and NAT64 (64:ff9b::a.b.c.d) reach the IPv4 address inside.
  if (zeros(0, 5) && g[5] === 0xffff) return refusedKind(v4());
  if (g[0] === 0x64 && g[1] === 0xff9b && zeros(2, 6)) return refusedKind(v4());
  const full = g.map((x) => x.toString(16)).join(':');
  const kind = IPV6_LISTS.find(([, list]) => list.check(full, 'ipv6'))?.[0];
  if (kind !== undefined) return kind;
  return GLOBAL_UNICAST.check(full, 'ipv6') ? undefined : 'reserved (outside global unicast 2000::/3)';
}

/**
 * Whether webhooks are refused to `ip`: private, loopback, link-local,
 * unspecified, shared (100.64/10), multicast, broadcast, documentation and
 * reserved ranges, in IPv4 and IPv6, and IPv4-mapped or NAT64 IPv6 forms of
 * those. Text that is not an IP address is refused too.
 */
export function isRefusedAddress(ip: string): boolean {
  return refusedKind(ip) !== undefined;
}

/** A URL as shown in a problem: without credentials, and not endless. */
function shown(value: string): string {
  return value.length > 200 ? `${value.slice(0, 200)}…` : value;
}

/** The host without IPv6 brackets, as the resolver and the address checks take it. */
function bareHost(url: URL): string {
  return url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
}

/** Names that always mean this host (RFC 6761), whatever a resolver says. */
const isLocalhostName = (host: string) => /(^|\.)localhost\.?$/i.test(host);

/** The subscription-time check of a webhook URL's text: `{ ok: true, url }` or the problem to show. */
export function checkUrl(url: string, policy: TargetPolicy): UrlCheck {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return {
      ok: false,
      problem: `${shown(url)} is not a URL: write an absolute https:// URL, such as https://example.com/webhooks`,
    };
  }
  if (parsed.username !== '' || parsed.password !== '') {
    const redacted = `${parsed.protocol}//***@${parsed.host}${parsed.pathname}`;
    return {
      ok: false,
      problem: `${shown(redacted)} holds credentials before the host: remove them, since URLs are stored and logged; the webhook signature authenticates deliveries`,
    };
  }
  if (parsed.protocol === 'http:' && !policy.allowHttp) {
    return {
      ok: false,
      problem: `${shown(url)} is plain HTTP: webhooks are delivered over https:// only (${ALLOW_HTTP})`,
    };
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') {
    return {
      ok: false,
      problem: `${shown(url)} uses the ${parsed.protocol.slice(0, -1)} scheme: webhooks are delivered over https:// only`,
    };
  }
  if (parsed.href.includes('#')) {
    return {
      ok: false,
      problem: `${shown(url)} has a fragment (#…), which is never sent to the server: remove it`,
    };
  }
  if (!policy.allowPrivate) {
    const host = bareHost(parsed);
    const kind = isLocalhostName(host) ? 'loopback' : isIP(host) ? refusedKind(host) : undefined;
    if (kind !== undefined) {
      return {
        ok: false,
        problem: `${shown(url)} points to ${host}, a ${kind} address: webhooks are delivered to public addresses only (${ALLOW_PRIVATE})`,
      };
    }
  }
  return { ok: true, url: parsed };
}

/**
 * The delivery-time check: the URL checked again (the policy may have
 * tightened since it was stored), its host resolved, refused when any address
 * is not public (a name answering one public and one private address could
 * otherwise be steered to the private one), and the first address returned,
 * the one the attempt connects to.
 */
export async function resolveTarget(
  url: URL,
  policy: TargetPolicy,
  lookup: Lookup = (hostname, options) => dns.lookup(hostname, options),
): Promise<ResolvedTarget> {
  const checked = checkUrl(url.href, policy);
  if (!checked.ok) return checked;
  const host = bareHost(url);
  const literal = isIP(host);
  if (literal === 4 || literal === 6) return { ok: true, address: host, family: literal };
  let addresses: readonly { address: string; family: number }[];
  try {
    addresses = await lookup(host, { all: true });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
    return { ok: false, problem: `${host} could not be resolved (${code}): check the subscription's URL` };
  }
  if (!policy.allowPrivate) {
    for (const { address } of addresses) {
      const kind = refusedKind(address);
      if (kind !== undefined) {
        return {
          ok: false,
          problem: `${host} resolves to ${address}, a ${kind} address: webhooks are delivered to public addresses only (${ALLOW_PRIVATE})`,
        };
      }
    }
  }
  const first = addresses[0];
  const family = first === undefined ? 0 : isIP(first.address);
  if (first === undefined || (family !== 4 && family !== 6)) {
    return { ok: false, problem: `${host} resolved to no IP address: check the subscription's URL` };
  }
  return { ok: true, address: first.address, family };
}
