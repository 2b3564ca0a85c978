import { BlockList, isIP } from 'node:net';
import { ipv6Groups } from '../common/ip-addresses.js';

// Addresses a client's jwks_uri must never reach (docs/guides/smart-backend-services.md,
// docs/operations/security.md#jwks_uri-targets): the server's own loopback, private networks,
// shared address space (100.64/10, where cloud providers put metadata services), link-local
// (cloud metadata services), benchmarking (198.18/15), multicast, reserved and unspecified.
const FORBIDDEN_IPV4 = new BlockList();
FORBIDDEN_IPV4.addSubnet('0.0.0.0', 8, 'ipv4');
FORBIDDEN_IPV4.addSubnet('127.0.0.0', 8, 'ipv4');
FORBIDDEN_IPV4.addSubnet('10.0.0.0', 8, 'ipv4');
FORBIDDEN_IPV4.addSubnet('100.64.0.0', 10, 'ipv4');
FORBIDDEN_IPV4.addSubnet('172.16.0.0', 12, 'ipv4');
FORBIDDEN_IPV4.addSubnet('192.168.0.0', 16, 'ipv4');
FORBIDDEN_IPV4.addSubnet('169.254.0.0', 16, 'ipv4');
FORBIDDEN_IPV4.addSubnet('198.18.0.0', 15, 'ipv4');
FORBIDDEN_IPV4.addSubnet('224.0.0.0', 4, 'ipv4');
FORBIDDEN_IPV4.addSubnet('240.0.0.0', 4, 'ipv4');
// The rest of IANA's IPv4 special-purpose registry that is not globally reachable: IETF protocol
// assignments (192.0.0.0/24), the three documentation networks, and the deprecated 6to4 relay anycast.
FORBIDDEN_IPV4.addSubnet('192.0.0.0', 24, 'ipv4');
FORBIDDEN_IPV4.addSubnet('192.0.2.0', 24, 'ipv4');
FORBIDDEN_IPV4.addSubnet('198.51.100.0', 24, 'ipv4');
FORBIDDEN_IPV4.addSubnet('203.0.113.0', 24, 'ipv4');
FORBIDDEN_IPV4.addSubnet('192.88.99.0', 24, 'ipv4');

// IPv6 ranges refused whatever they hold. The NAT64 prefixes (RFC 6052's well-known 64:ff9b::/96
// and RFC 8215's local-use 64:ff9b:1::/48) reach IPv4 hosts through a translator the operator
// runs, so none of their addresses is a client's public key server.
const FORBIDDEN_IPV6 = new BlockList();
FORBIDDEN_IPV6.addAddress('::', 'ipv6');
FORBIDDEN_IPV6.addAddress('::1', 'ipv6');
FORBIDDEN_IPV6.addSubnet('fc00::', 7, 'ipv6');
FORBIDDEN_IPV6.addSubnet('fe80::', 10, 'ipv6');
FORBIDDEN_IPV6.addSubnet('ff00::', 8, 'ipv6');
FORBIDDEN_IPV6.addSubnet('64:ff9b::', 96, 'ipv6');
FORBIDDEN_IPV6.addSubnet('64:ff9b:1::', 48, 'ipv6');
// The rest of IANA's IPv6 special-purpose registry that is not globally reachable, and the
// deprecated site-local range: discard-only (100::/64) and the dummy prefix (100:0:0:1::/64),
// Teredo (2001::/32, which tunnels to any IPv4 address), benchmarking (2001:2::/48), ORCHID
// (2001:10::/28), both documentation prefixes (2001:db8::/32, 3fff::/20), SRv6 SIDs (5f00::/16)
// and site-local fec0::/10.
FORBIDDEN_IPV6.addSubnet('100::', 64, 'ipv6');
FORBIDDEN_IPV6.addSubnet('100:0:0:1::', 64, 'ipv6');
FORBIDDEN_IPV6.addSubnet('2001::', 32, 'ipv6');
FORBIDDEN_IPV6.addSubnet('2001:2::', 48, 'ipv6');
FORBIDDEN_IPV6.addSubnet('2001:10::', 28, 'ipv6');
FORBIDDEN_IPV6.addSubnet('2001:db8::', 32, 'ipv6');
FORBIDDEN_IPV6.addSubnet('3fff::', 20, 'ipv6');
FORBIDDEN_IPV6.addSubnet('5f00::', 16, 'ipv6');
FORBIDDEN_IPV6.addSubnet('fec0::', 10, 'ipv6');

/**
 * Whether an IP address is one a jwks_uri may not reach. An IPv6 address that carries an IPv4
 * address is judged by that IPv4 address too: IPv4-mapped (`::ffff:a.b.c.d`), IPv4-compatible
 * (`::a.b.c.d`, deprecated but still routed by some stacks), IPv4-translated (`::ffff:0:a.b.c.d`,
 * SIIT), NAT64 (`64:ff9b::a.b.c.d`) and 6to4 (`2002:AABB:CCDD::`). A zone (`%eth0`) is ignored.
 */
export function isForbiddenAddress(address: string): boolean {
  const bare = address.replace(/%.*$/, '');
  const family = isIP(bare);
  if (family === 4) return FORBIDDEN_IPV4.check(bare, 'ipv4');
  if (family !== 6) return false;
  if (FORBIDDEN_IPV6.check(bare, 'ipv6')) return true;
  const embedded = embeddedIpv4(bare);
  return embedded !== undefined && FORBIDDEN_IPV4.check(embedded, 'ipv4');
}

/** The IPv4 address an IPv6 address carries in one of the forms above, as a dotted quad, or undefined. */
export function embeddedIpv4(address: string): string | undefined {
  const groups = ipv6Groups(address);
  if (groups === undefined) return undefined;
  const zeros = (from: number, to: number) => groups.slice(from, to).every((group) => group === 0);
  const last32 = () => quad(groups[6], groups[7]);
  if (zeros(0, 5) && (groups[5] === 0 || groups[5] === 0xffff)) return last32(); // ::a.b.c.d and ::ffff:a.b.c.d
  if (zeros(0, 4) && groups[4] === 0xffff && groups[5] === 0) return last32(); // ::ffff:0:a.b.c.d
  if (groups[0] === 0x64 && groups[1] === 0xff9b && zeros(2, 6)) return last32(); // 64:ff9b::a.b.c.d
  if (groups[0] === 0x2002) return quad(groups[1], groups[2]); // 2002:AABB:CCDD::/48
  return undefined;
}

function quad(high: number, low: number): string {
  return [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');
}

/** A URL's host without the brackets of an IPv6 literal. */
export function bareHost(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1');
}

/**
 * Why a jwks_uri may not be used as written, or undefined: userinfo, or a literal host that is
 * a forbidden address (or `localhost`, which always is). A name is judged only when it is
 * resolved, at fetch time.
 */
export function forbiddenTarget(url: URL): string | undefined {
  if (url.username !== '' || url.password !== '') return 'must not carry userinfo (user name or password)';
  const host = bareHost(url).toLowerCase().replace(/\.$/, '');
  if (host === 'localhost' || host.endsWith('.localhost') || isForbiddenAddress(host)) {
    return 'must not point at a loopback, private, link-local or unspecified address (nor shared, benchmarking, documentation, multicast, reserved, NAT64, Teredo, site-local or other special-purpose ranges)';
  }
  return undefined;
}
