import { generateKeyPairSync, randomBytes, type KeyObject } from 'node:crypto';
import fc from 'fast-check';
import { JwksError, validateJwks } from './client-jwks.js';

const publicJwk = (type: 'ec' | 'ed25519' | 'rsa', options: object = {}) =>
  (generateKeyPairSync(type as never, options as never) as unknown as { publicKey: KeyObject }).publicKey.export({ format: 'jwk' }) as Record<string, unknown>;
const ec = { ...publicJwk('ec', { namedCurve: 'P-256' }), kid: 'ec' };
const ed = { ...publicJwk('ed25519'), kid: 'ed' };
const rsa = { ...publicJwk('rsa', { modulusLength: 2048 }), kid: 'rsa', alg: 'PS256' };
// A hand-made modulus of `bits` bits: refused before it is parsed, so it need not be a real key.
const modulus = (bits: number) => {
  const bytes = randomBytes(bits / 8);
  bytes[0] |= 0x80;
  return bytes.toString('base64url');
};

describe('validateJwks', () => {
  it('accepts EC P-384 keys, with or without alg ES384', () => {
    const p384 = publicJwk('ec', { namedCurve: 'P-384' });
    expect(validateJwks({ keys: [p384, { ...p384, kid: 'es384', alg: 'ES384' }] }).keys).toHaveLength(2);
  });

  it('accepts RSA keys declared for RS384 and PS384', () => {
    expect(
      validateJwks({
        keys: [
          { ...rsa, alg: 'RS384' },
          { ...rsa, kid: 'ps384', alg: 'PS384' },
        ],
      }).keys,
    ).toHaveLength(2);
  });

  it('accepts RSA keys of 3072 and 4096 bits', () => {
    const keys = [3072, 4096].map((modulusLength) => publicJwk('rsa', { modulusLength }));
    expect(validateJwks({ keys }).keys).toHaveLength(2);
  });

  it('accepts ten keys', () => {
    expect(validateJwks({ keys: Array.from({ length: 10 }, (_, index) => ({ ...ec, kid: `k${index}` })) }).keys).toHaveLength(10);
  });

  it('accepts EC P-256, Ed25519 and RSA 2048 public keys, as text or object', () => {
    expect(validateJwks(JSON.stringify({ keys: [ec, ed, rsa] })).keys).toHaveLength(3);
    expect(validateJwks({ keys: [ec] }).keys).toEqual([ec]);
  });

  it.each([
    ['a private member', { keys: [{ ...ec, d: 'AAAA' }] }, /private member "d"/],
    ['a symmetric key', { keys: [{ kty: 'oct', k: 'c2VjcmV0' }] }, /private member "k"/],
    ['an RSA key of 1024 bits', { keys: [{ ...publicJwk('rsa', { modulusLength: 1024 }) }] }, /at least 2048 bits/],
    ['an RSA key of 16384 bits', { keys: [ec, { kty: 'RSA', n: modulus(16384), e: 'AQAB' }] }, /key 1: .*at most 4096 bits/],
    ['an RSA key of 4104 bits', { keys: [{ kty: 'RSA', n: modulus(4104), e: 'AQAB' }] }, /at most 4096 bits/],
    ['an RSA key with a 3072-bit exponent', { keys: [{ ...rsa, e: modulus(3072) }] }, /exponent 65537/],
    ['an RSA key with the exponent 3', { keys: [{ ...rsa, e: 'Aw' }] }, /exponent 65537/],
    ['a P-521 key', { keys: [{ ...publicJwk('ec', { namedCurve: 'P-521' }) }] }, /P-256 or P-384/],
    ['a P-384 key with alg ES256', { keys: [{ ...publicJwk('ec', { namedCurve: 'P-384' }), alg: 'ES256' }] }, /use ES384/],
    ['an Ed448 key', { keys: [{ ...publicJwk('ed448' as never) }] }, /Ed25519/],
    ['an alg that does not fit the key', { keys: [{ ...ec, alg: 'RS256' }] }, /does not fit/],
    ['use enc', { keys: [{ ...ec, use: 'enc' }] }, /"use"/],
    ['a repeated kid', { keys: [ec, { ...ed, kid: 'ec' }] }, /used twice/],
    ['eleven keys', { keys: Array.from({ length: 11 }, (_, index) => ({ ...ec, kid: `k${index}` })) }, /1 to 10/],
    ['no keys', { keys: [] }, /1 to 10/],
    ['broken coordinates', { keys: [{ ...ec, x: 'AA' }] }, /not a valid EC public key/],
    ['no keys member', { other: [] }, /"keys" array/],
    ['a kty naming an Object member', { keys: [{ kty: 'constructor' }] }, /"kty" must be/],
    ['a kty that is an object', { keys: [{ kty: { toString: 0 } }] }, /"kty" must be/],
    ['an alg that is not a string', { keys: [{ ...ec, alg: { toString: 0 } }] }, /does not fit/],
  ])('refuses %s', (_name, jwks, message) => {
    expect(() => validateJwks(jwks)).toThrow(message);
  });

  it('refuses anything that is not a JWKS with a JwksError, never another exception', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.jsonValue(),
          fc.record({
            keys: fc.array(fc.dictionary(fc.constantFrom('kty', 'crv', 'x', 'y', 'n', 'e', 'kid', 'alg', 'use'), fc.jsonValue()), { maxLength: 3 }),
          }),
        ),
        (value) => {
          try {
            validateJwks(value);
          } catch (error) {
            expect(error).toBeInstanceOf(JwksError);
          }
        },
      ),
      { numRuns: 1000 },
    );
  });
});
