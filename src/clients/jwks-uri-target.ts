import { BlockList, isIP } from 'node:net';

// Addresses a client's jwks_uri must never reach (docs/guides/smart-backend-services.md): the
// server's own loopback, private networks, link-local (cloud metadata services) and unspecified.
const FORBIDDEN = new BlockList();
FORBIDDEN.addSubnet('0.0.0.0', 8, 'ipv4');
FORBIDDEN.addSubnet('127.0.0.0', 8, 'ipv4');
FORBIDDEN.addSubnet('10.0.0.0', 8, 'ipv4');
FORBIDDEN.addSubnet('172.16.0.0', 12, 'ipv4');
FORBIDDEN.addSubnet('192.168.0.0', 16, 'ipv4');
FORBIDDEN.addSubnet('169.254.0.0', 16, 'ipv4');
FORBIDDEN.addAddress('::', 'ipv6');
FORBIDDEN.addAddress('::1', 'ipv6');
FORBIDDEN.addSubnet('fc00::', 7, 'ipv6');
FORBIDDEN.addSubnet('fe80::', 10, 'ipv6');

/** Whether an IP address is loopback, private, link-local or unspecified (IPv4-mapped IPv6 judged as IPv4). */
export function isForbiddenAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
  if (mapped !== undefined) return FORBIDDEN.check(mapped, 'ipv4');
  const family = isIP(address);
  if (family === 0) return false;
  return FORBIDDEN.check(address, family === 4 ? 'ipv4' : 'ipv6');
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
    return 'must not point at a loopback, private, link-local or unspecified address';
  }
  return undefined;
}
