import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import { BoundedLookup, LookupTimeoutError, systemLookup } from './bounded-lookup.js';

/**
 * Cloud metadata services outside link-local, where the others (169.254.169.254) live: AWS's
 * IPv6 address, and Alibaba Cloud's, inside the carrier-grade NAT range `allowPrivate` opens.
 */
const METADATA_ADDRESSES = [ipaddr.parse('fd00:ec2::254'), ipaddr.parse('100.100.100.200')];

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
 * Why a webhook may not be sent to `ip`, or undefined when it may. IPv4-mapped IPv6 is judged
 * as its IPv4 address. Link-local (where cloud metadata services live) and the metadata
 * address itself are refused before `allowPrivate` is looked at; besides the private ranges
 * it opens, only what ipaddr.js calls `unicast` is allowed.
 */
export function addressRefusal(ip: string, allowPrivate: boolean): string | undefined {
  if (!ipaddr.isValid(ip)) return `${ip} is not an IP address`;
  const address = ipaddr.process(ip);
  const shown = address.toString();
  if (METADATA_ADDRESSES.some((metadata) => isSameAddress(address, metadata))) {
    return `${shown} is a cloud metadata address`;
  }
  const range = address.range();
  if (range === 'linkLocal') return `${shown} is ${ALWAYS_REFUSED_RANGES.linkLocal}`;
  if (range === 'unicast') return undefined;
  const privateKind = PRIVATE_RANGES[range];
  if (privateKind !== undefined) return allowPrivate ? undefined : `${shown} is ${privateKind}`;
  return `${shown} is ${ALWAYS_REFUSED_RANGES[range] ?? `a special-purpose address (${range})`}`;
}

/** Equality ignoring an IPv6 zone (`%eth0`). */
function isSameAddress(a: ipaddr.IPv4 | ipaddr.IPv6, b: ipaddr.IPv4 | ipaddr.IPv6): boolean {
  return a.kind() === b.kind() && a.toNormalizedString().split('%')[0] === b.toNormalizedString();
}

/** The first refusal among the addresses `host` resolved to. */
export function resolvedAddressesRefusal(
  host: string,
  addresses: readonly string[],
  allowPrivate: boolean,
): string | undefined {
  for (const address of addresses) {
    const refusal = addressRefusal(address, allowPrivate);
    if (refusal !== undefined) return `${host} resolves to a refused address: ${refusal}`;
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
 * credentials, and every address the host resolves to allowed by `addressRefusal` (an IP
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
  if (isIP(host) !== 0) return addressRefusal(host, allowPrivate);
  let addresses: string[];
  try {
    const found = await lookup.lookupAll(
      host,
      { order: 'verbatim' },
      SUBSCRIPTION_LOOKUP_TIMEOUT_MS,
    );
    addresses = found.map((entry) => entry.address);
  } catch (error) {
    if (error instanceof LookupTimeoutError) return error.message;
    return dnsFailure(host, (error as NodeJS.ErrnoException).code);
  }
  if (addresses.length === 0) return dnsFailure(host, undefined);
  return resolvedAddressesRefusal(host, addresses, allowPrivate);
}
