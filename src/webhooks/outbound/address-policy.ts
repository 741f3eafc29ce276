import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import { BoundedLookup, LookupTimeoutError, systemLookup } from './bounded-lookup.js';

/**
 * Cloud metadata services outside link-local, where the others (169.254.169.254) live: AWS's
 * IPv6 address, Alibaba Cloud's (inside the carrier-grade NAT range `allowPrivate` opens), and
 * Azure's wire server, a public address reachable only from inside Azure.
 */
const METADATA_ADDRESSES = [
  ipaddr.parse('fd00:ec2::254'),
  ipaddr.parse('100.100.100.200'),
  ipaddr.parse('168.63.129.16'),
];

const IPV4_COMPATIBLE = ipaddr.parseCIDR('::/96');
/** `::` and `::1`, inside `::/96` but IPv6's own unspecified and loopback addresses. */
const IPV6_UNSPECIFIED_AND_LOOPBACK = ipaddr.parseCIDR('::/127');

/** How long a subscription waits for its host to resolve. */
const SUBSCRIPTION_LOOKUP_TIMEOUT_MS = 5_000;

/** Ranges a deployment may open to webhooks (tests, local development); ipaddr.js's names. */
const PRIVATE_RANGES: Record<string, string> = {
  loopback: 'a loopback address',
  private: 'a private address',
  uniqueLocal: 'a unique-local address',
  carrierGradeNat: 'a carrier-grade NAT address',
};

const ALWAYS_REFUSED_RANGES: Record<string, string> = {
  unspecified: 'an unspecified address',
  broadcast: 'the broadcast address',
  multicast: 'a multicast address',
  linkLocal: 'a link-local address',
  reserved: 'a reserved or documentation address',
  benchmarking: 'a benchmarking address',
};

/**
 * The kind of address `ip` is when a webhook may not be sent to it ("a loopback address"), or
 * undefined when it may. Reasons name the kind, never the address: what a name resolved to is
 * the service's network, which the admins reading a refusal or a delivery log need not learn.
 * Link-local (where cloud metadata services live) and the metadata addresses are refused
 * before `allowPrivate` is looked at; besides the private ranges it opens, only what ipaddr.js
 * calls `unicast` is allowed.
 */
export function refusedKind(ip: string, allowPrivate: boolean): string | undefined {
  if (!ipaddr.isValid(ip)) return 'not an IP address';
  const address = embeddedIpv4(ipaddr.process(ip));
  if (METADATA_ADDRESSES.some((metadata) => isSameAddress(address, metadata))) {
    return 'a cloud metadata address';
  }
  const range = address.range();
  if (range === 'linkLocal') return ALWAYS_REFUSED_RANGES.linkLocal;
  if (range === 'unicast') return undefined;
  const privateKind = PRIVATE_RANGES[range];
  if (privateKind !== undefined) return allowPrivate ? undefined : privateKind;
  return ALWAYS_REFUSED_RANGES[range] ?? `a special-purpose address (${range})`;
}

/**
 * The IPv4 address inside an IPv4-compatible IPv6 one (`::7f00:1` is 127.0.0.1), which
 * ipaddr.js would call plain unicast. ipaddr.process has already turned IPv4-mapped ones
 * (`::ffff:0:0/96`) into IPv4.
 */
function embeddedIpv4(address: ipaddr.IPv4 | ipaddr.IPv6): ipaddr.IPv4 | ipaddr.IPv6 {
  if (
    address instanceof ipaddr.IPv6 &&
    address.match(IPV4_COMPATIBLE) &&
    !address.match(IPV6_UNSPECIFIED_AND_LOOPBACK)
  ) {
    return ipaddr.fromByteArray(address.toByteArray().slice(12));
  }
  return address;
}

/** Equality ignoring an IPv6 zone (`%eth0`). */
function isSameAddress(a: ipaddr.IPv4 | ipaddr.IPv6, b: ipaddr.IPv4 | ipaddr.IPv6): boolean {
  return a.kind() === b.kind() && a.toNormalizedString().split('%')[0] === b.toNormalizedString();
}

/** Why `host` is refused, judging the addresses it resolved to; they are not named. */
export function resolvedAddressesRefusal(
  host: string,
  addresses: readonly string[],
  allowPrivate: boolean,
): string | undefined {
  for (const address of addresses) {
    const kind = refusedKind(address, allowPrivate);
    if (kind !== undefined) return `${host} resolves to ${kind}`;
  }
  return undefined;
}

/** The reason given when `host` has no address at all. */
export function dnsFailure(host: string, code: string | undefined): string {
  return code === 'ENOTFOUND' || code === 'ENODATA' || code === undefined
    ? `${host} could not be resolved (DNS failure)`
    : `${host} could not be resolved (DNS failure: ${code})`;
}

/**
 * Why a webhook may not be sent to `url`, or undefined when it may: http or https only, no
 * credentials, and every address the host resolves to allowed by `refusedKind` (an IP
 * literal is judged without DNS) within 5 s. The sender checks the connected address again,
 * since DNS may answer differently by then. `lookup` is the process's bounded one but in tests.
 */
export async function urlRefusal(
  url: string,
  allowPrivate: boolean,
  lookup: BoundedLookup = systemLookup,
): Promise<string | undefined> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'is not a valid absolute URL';
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    return 'must use the http or https scheme';
  }
  if (parsed.username !== '' || parsed.password !== '') {
    return 'must not contain a username or password';
  }
  // WHATWG URL has already turned forms like 2130706433 or 0x7f000001 into 127.0.0.1.
  const host = parsed.hostname.replace(/^\[(.*)\]$/, '$1');
  if (isIP(host) !== 0) {
    const kind = refusedKind(host, allowPrivate);
    return kind === undefined ? undefined : `the host is ${kind}`;
  }
  let addresses: string[];
  try {
    const found = await lookup.lookupAll(host, SUBSCRIPTION_LOOKUP_TIMEOUT_MS);
    addresses = found.map((entry) => entry.address);
  } catch (error) {
    if (error instanceof LookupTimeoutError) return error.message;
    return dnsFailure(host, (error as NodeJS.ErrnoException).code);
  }
  if (addresses.length === 0) return dnsFailure(host, undefined);
  return resolvedAddressesRefusal(host, addresses, allowPrivate);
}
