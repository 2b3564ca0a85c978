import { forbiddenTarget, isForbiddenAddress } from './jwks-uri-target.js';

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
  ])('refuses %s', (address) => expect(isForbiddenAddress(address)).toBe(true));

  it.each(['8.8.8.8', '172.32.0.1', '192.169.0.1', '2001:4860:4860::8888', 'example.com'])('allows %s', (address) => {
    expect(isForbiddenAddress(address)).toBe(false);
  });
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
