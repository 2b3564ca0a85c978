import { generateKeyPairSync, randomBytes, type KeyObject } from 'node:crypto';
import { algorithmNamesKey, isExponent65537, keyOutOfBounds, rsaModulusBits } from './key-bounds.js';

const publicJwk = (type: 'ec' | 'ed25519' | 'ed448' | 'rsa', options: object = {}) =>
  (generateKeyPairSync(type as never, options as never) as unknown as { publicKey: KeyObject }).publicKey.export({ format: 'jwk' }) as Record<string, unknown>;

/** A modulus of exactly `bits` bits (top bit set), as base64url: no key is built, none is needed. */
function modulus(bits: number, leadingZero = false): string {
  const bytes = randomBytes(Math.ceil(bits / 8));
  const topBits = bits % 8 === 0 ? 8 : bits % 8;
  bytes[0] = (bytes[0] & ((1 << topBits) - 1)) | (1 << (topBits - 1));
  return Buffer.concat([leadingZero ? Buffer.from([0]) : Buffer.alloc(0), bytes]).toString('base64url');
}

const rsa2048 = publicJwk('rsa', { modulusLength: 2048 });
const p256 = publicJwk('ec', { namedCurve: 'P-256' });
const p384 = publicJwk('ec', { namedCurve: 'P-384' });
const p521 = publicJwk('ec', { namedCurve: 'P-521' });
const ed25519 = publicJwk('ed25519');
const ed448 = publicJwk('ed448');

describe('rsaModulusBits', () => {
  it.each([2047, 2048, 3072, 4096, 4097])('reads a %d-bit modulus', (bits) => expect(rsaModulusBits(modulus(bits))).toBe(bits));

  it('ignores a leading zero octet', () => expect(rsaModulusBits(modulus(2048, true))).toBe(2048));

  it('reads a real key', () => expect(rsaModulusBits(rsa2048.n)).toBe(2048));

  it('calls a 16384-bit modulus too large without decoding it', () => expect(rsaModulusBits(modulus(16384))).toBeGreaterThan(4096));

  it.each([undefined, 42, '', 'not base64!', 'A', { length: 1 }])('gives undefined for %p', (n) => expect(rsaModulusBits(n)).toBeUndefined());
});

describe('isExponent65537', () => {
  it.each(['AQAB', 'AAEAAQ', 'AAABAAE'])('accepts %s', (e) => expect(isExponent65537(e)).toBe(true));

  it.each([
    ['3', 'Aw'],
    ['a 3072-bit exponent', modulus(3072)],
    ['2^32 + 1', 'AQAAAAE'],
    ['not base64url', 'AQ+B'],
    ['a number', 65537],
    ['nothing', undefined],
  ])('refuses %s', (_name, e) => expect(isExponent65537(e)).toBe(false));
});

describe('keyOutOfBounds', () => {
  it.each([
    ['RS256', rsa2048],
    ['PS256', rsa2048],
    ['RS384', rsa2048],
    ['PS384', rsa2048],
    ['RS256', { kty: 'RSA', n: modulus(4096), e: 'AQAB' }],
    ['RS256', { kty: 'RSA', n: modulus(2048, true), e: 'AAEAAQ' }],
    ['ES256', p256],
    ['ES384', p384],
    ['ES512', p521],
    ['EdDSA', ed25519],
    ['Ed25519', ed25519],
  ])('accepts for %s a key it names', (alg, jwk) => expect(keyOutOfBounds(jwk, alg)).toBeUndefined());

  it.each([
    ['a 16384-bit modulus', { kty: 'RSA', n: modulus(16384), e: 'AQAB' }, /at least 2048 bits and at most 4096 bits \(this one is larger\)/],
    ['a 4097-bit modulus', { kty: 'RSA', n: modulus(4097), e: 'AQAB' }, /at most 4096 bits/],
    ['a 2047-bit modulus', { kty: 'RSA', n: modulus(2047), e: 'AQAB' }, /this one has 2047/],
    ['a 1024-bit key', publicJwk('rsa', { modulusLength: 1024 }), /this one has 1024/],
    ['a 3072-bit exponent', { ...rsa2048, e: modulus(3072) }, /exponent 65537/],
    ['the exponent 3', { ...rsa2048, e: 'Aw' }, /exponent 65537/],
    ['no exponent', { kty: 'RSA', n: rsa2048.n }, /exponent 65537/],
    ['no modulus', { kty: 'RSA', e: 'AQAB' }, /"n" is not/],
    ['an EC key', p256, /needs an RSA key, not a key of type "EC"/],
  ])('refuses for RS256 %s', (_name, jwk, message) => expect(keyOutOfBounds(jwk, 'RS256')).toMatch(message));

  it.each([
    ['ES256', p384, /ES256 needs an EC key on curve P-256, not on "P-384"/],
    ['ES256', p521, /curve P-256/],
    ['ES384', p256, /curve P-384/],
    ['ES256', { kty: 'EC', crv: 'secp256k1', x: 'AA', y: 'AA' }, /curve P-256/],
    ['ES256', rsa2048, /needs an EC key/],
    ['EdDSA', ed448, /curve Ed25519, not on "Ed448"/],
    ['EdDSA', p256, /needs an OKP key/],
    ['EdDSA', { kty: 'oct', k: 'c2VjcmV0' }, /needs an OKP key/],
    ['HS256', { kty: 'oct', k: 'c2VjcmV0' }, /not an accepted/],
    ['none', p256, /not an accepted/],
    ['constructor', p256, /not an accepted/],
  ])('refuses for %s a key it does not name', (alg, jwk, message) => expect(keyOutOfBounds(jwk, alg)).toMatch(message));
});

describe('algorithmNamesKey', () => {
  it('matches the type and, for EC, the curve', () => {
    expect(algorithmNamesKey(p256, 'ES256')).toBe(true);
    expect(algorithmNamesKey(p384, 'ES256')).toBe(false);
    expect(algorithmNamesKey(rsa2048, 'PS384')).toBe(true);
    expect(algorithmNamesKey(ed25519, 'RS256')).toBe(false);
    expect(algorithmNamesKey(ed25519, 'toString')).toBe(false);
  });
});
