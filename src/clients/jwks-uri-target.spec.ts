import { embeddedIpv4, forbiddenTarget, isForbiddenAddress } from './jwks-uri-target.js';

describe('addresses a jwks_uri may not reach', () => {
  it.each([
    '127.0.0.1',
    '127.8.9.10',
    '10.1.2.3',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '169.254.169.254',
    '0.0.0.0',
    '::1',
    '::',
    'fc00::1',
    'fd12::1',
    'fe80::1',
    '::ffff:127.0.0.1',
    '::ffff:169.254.169.254',
    '::ffff:7f00:1',
    'fec0::1',
    'feff::1',
    '2001::1',
    '2001:0:4136:e378:8000:63bf:3fff:fdd2',
    '2001:2::1',
    '2001:10::1',
    '2001:db8::1',
    '3fff::1',
    '5f00::1',
    '100::1',
    '100:0:0:1::1',
    '192.0.0.170',
    '192.0.2.1',
    '198.51.100.1',
    '203.0.113.1',
    '192.88.99.1',
    '255.255.255.255',
  ])('refuses %s', (address) => expect(isForbiddenAddress(address)).toBe(true));

  it.each(['8.8.8.8', '172.32.0.1', '192.169.0.1', '192.0.3.1', '2001:4860:4860::8888', '2001:200::1', '2a00:1450::1', 'example.com'])(
    'allows %s',
    (address) => {
      expect(isForbiddenAddress(address)).toBe(false);
    },
  );
});

describe('jwks_uri targets judged as written', () => {
  it.each([
    'http://127.0.0.1:3001/admin/uma-client',
    'https://169.254.169.254/latest/meta-data',
    'https://[::1]/jwks',
    'https://localhost/jwks',
    'https://2130706433/jwks',
    'https://0x7f.1/jwks',
    'https://10.0.0.8/jwks',
    'https://[fe80::1]/jwks',
    'https://[::ffff:127.0.0.1]/jwks',
    'https://[::ffff:a9fe:a9fe]/latest',
  ])('refuses the host of %s', (uri) => {
    expect(forbiddenTarget(new URL(uri))).toMatch(/loopback, private, link-local or unspecified/);
  });

  it('refuses userinfo', () => {
    expect(forbiddenTarget(new URL('https://user:pass@keys.example/jwks'))).toMatch(/userinfo/);
    expect(forbiddenTarget(new URL('https://user@keys.example/jwks'))).toMatch(/userinfo/);
  });

  it('accepts a public host and a name that may or may not resolve', () => {
    expect(forbiddenTarget(new URL('https://keys.example/jwks'))).toBeUndefined();
    expect(forbiddenTarget(new URL('https://no-such-host.invalid/jwks'))).toBeUndefined();
    expect(forbiddenTarget(new URL('https://93.184.216.34/jwks'))).toBeUndefined();
  });
});

describe('ranges and IPv6 forms of refused IPv4 addresses', () => {
  it.each([
    ['shared address space (cloud metadata)', '100.100.100.200'],
    ['the start of shared address space', '100.64.0.1'],
    ['the end of shared address space', '100.127.255.255'],
    ['benchmarking', '198.18.0.1'],
    ['the end of benchmarking', '198.19.255.255'],
    ['multicast', '224.0.0.1'],
    ['reserved', '240.0.0.1'],
    ['broadcast', '255.255.255.255'],
    ['NAT64 of the metadata address', '64:ff9b::a9fe:a9fe'],
    ['NAT64 written with a dotted quad', '64:ff9b::169.254.169.254'],
    ['NAT64 of a public address (the whole prefix)', '64:ff9b::808:808'],
    ['local-use NAT64', '64:ff9b:1::a00:1'],
    ['IPv4-compatible loopback', '::7f00:1'],
    ['IPv4-compatible loopback, dotted', '::127.0.0.1'],
    ['IPv4-compatible shared address space', '::6464:64c8'],
    ['IPv4-mapped loopback', '::ffff:7f00:1'],
    ['IPv4-mapped benchmarking', '::ffff:198.18.0.1'],
    ['IPv4-mapped shared address space', '::ffff:6464:64c8'],
    ['IPv4-translated loopback', '::ffff:0:7f00:1'],
    ['IPv4-translated metadata address, dotted', '::ffff:0:169.254.169.254'],
    ['IPv4-translated, written out', '0:0:0:0:ffff:0:a00:1'],
    ['6to4 of a private address', '2002:a00:1::1'],
    ['IPv6 multicast', 'ff02::1'],
    ['a link-local address with a zone', 'fe80::1%eth0'],
  ])('refuses %s: %s', (_name, address) => expect(isForbiddenAddress(address)).toBe(true));

  it.each([
    ['a public address next to shared address space', '100.128.0.1'],
    ['a public address before shared address space', '100.63.255.255'],
    ['a public address next to benchmarking', '198.20.0.1'],
    ['an IPv4-mapped public address', '::ffff:808:808'],
    ['an IPv4-translated public address', '::ffff:0:808:808'],
    ['a 6to4 public address', '2002:808:808::1'],
    ['a global IPv6 address', '2606:4700::1111'],
  ])('allows %s: %s', (_name, address) => expect(isForbiddenAddress(address)).toBe(false));

  it.each([
    'https://100.100.100.200/latest/meta-data',
    'https://198.18.0.1/jwks',
    'https://[64:ff9b::a9fe:a9fe]/latest',
    'https://[64:ff9b::169.254.169.254]/latest',
    'https://[::7f00:1]/jwks',
    'https://[::127.0.0.1]/jwks',
    'https://[::ffff:0:7f00:1]/jwks',
    'https://[::ffff:0:127.0.0.1]/jwks',
    'https://[0:0:0:0:0:ffff:7f00:1]/jwks',
  ])('refuses the host of %s as written', (uri) => {
    expect(forbiddenTarget(new URL(uri))).toMatch(/loopback, private, link-local or unspecified/);
  });
});

describe('embeddedIpv4', () => {
  it.each([
    ['::ffff:7f00:1', '127.0.0.1'],
    ['::7f00:1', '127.0.0.1'],
    ['::ffff:0:a9fe:a9fe', '169.254.169.254'],
    ['64:ff9b::100.100.100.200', '100.100.100.200'],
    ['2002:c612:1::', '198.18.0.1'],
  ])('reads %s as %s', (address, ipv4) => expect(embeddedIpv4(address)).toBe(ipv4));

  it.each(['2001:db8::1', 'fe80::1', '1:2:3:4:5:6:7:8'])('finds none in %s', (address) => expect(embeddedIpv4(address)).toBeUndefined());
});
