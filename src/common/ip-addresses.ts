import { isIP } from 'node:net';

/** The eight 16-bit groups of an IPv6 address that isIP accepted (a trailing dotted quad allowed). */
export function ipv6Groups(address: string): number[] | undefined {
  let text = address;
  const dotted = /^(.*:)(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(2).map(Number);
    text = `${dotted[1]}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((group) => parseInt(group, 16)));
  const head = parse(halves[0]);
  const tail = halves.length === 2 ? parse(halves[1]) : [];
  const missing = 8 - head.length - tail.length;
  if (missing < 0 || (halves.length === 1 && missing !== 0)) return undefined;
  const groups = [...head, ...new Array<number>(missing).fill(0), ...tail];
  return groups.some((group) => !Number.isInteger(group) || group < 0 || group > 0xffff) ? undefined : groups;
}

/**
 * The source an address's failures are counted for (docs/operations/security.md, "Rotating
 * addresses"): an IPv4 address itself (also when written IPv4-mapped, `::ffff:a.b.c.d`), and an
 * IPv6 address's /64 prefix, written `x:x:x:x::/64`. One /64 is what a single host or link is given,
 * so counting per address would hand a single attacker 2^64 fresh counters. A zone (`%eth0`) is
 * ignored; anything that is not an IP address (a test's stand-in, `unknown`) is its own source.
 */
export function failureSourceOf(address: string): string {
  const bare = address.replace(/%.*$/, '');
  const family = isIP(bare);
  if (family !== 6) return bare;
  const groups = ipv6Groups(bare);
  if (groups === undefined) return bare;
  if (groups.slice(0, 5).every((group) => group === 0) && groups[5] === 0xffff) {
    return [groups[6] >> 8, groups[6] & 0xff, groups[7] >> 8, groups[7] & 0xff].join('.');
  }
  return `${groups
    .slice(0, 4)
    .map((group) => group.toString(16))
    .join(':')}::/64`;
}
