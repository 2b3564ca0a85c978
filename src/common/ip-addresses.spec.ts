import { failureSourceOf } from './ip-addresses.js';

describe('failureSourceOf', () => {
  it('keeps an IPv4 address as it is', () => {
    expect(failureSourceOf('192.0.2.7')).toBe('192.0.2.7');
  });

  it('counts an IPv4-mapped IPv6 address as its IPv4 address', () => {
    expect(failureSourceOf('::ffff:192.0.2.7')).toBe('192.0.2.7');
    expect(failureSourceOf('::ffff:c000:207')).toBe('192.0.2.7');
  });

  it('counts every IPv6 address of one /64 as that /64', () => {
    expect(failureSourceOf('2001:db8:0:1::1')).toBe('2001:db8:0:1::/64');
    expect(failureSourceOf('2001:db8:0:1:ffff:ffff:ffff:ffff')).toBe('2001:db8:0:1::/64');
    expect(failureSourceOf('2001:DB8:0:1:a:b:c:d%eth0')).toBe('2001:db8:0:1::/64');
  });

  it('tells apart addresses of neighbouring /64s', () => {
    expect(failureSourceOf('2001:db8:0:2::1')).not.toBe(failureSourceOf('2001:db8:0:1::1'));
  });

  it('leaves anything that is no address as it is', () => {
    expect(failureSourceOf('unknown')).toBe('unknown');
  });
});
