/**
 * Bounded key cost before authentication (docs/operations/security.md#bounded-key-cost): the
 * public keys the server verifies a signature with before it knows who is asking — a DPoP
 * proof's `jwk`, a client's registered or fetched keys tried for a client assertion — are judged
 * from their JWK members alone, without importing them and without any signature work. A
 * verification's cost grows with an RSA key's modulus and public exponent: a 16384-bit modulus
 * or a 3072-bit exponent costs a hundred times a normal key's verification.
 */

import { MAX_RSA_MODULUS_BITS, MIN_RSA_MODULUS_BITS, RSA_PUBLIC_EXPONENT } from '../common/rsa-bounds.js';

/** The key an algorithm names: its `kty` and, for EC and OKP, its curve (RFC 7518 §3.4, RFC 8037 §3.1). */
const KEY_OF_ALGORITHM: Readonly<Record<string, { kty: string; crv?: string }>> = {
  RS256: { kty: 'RSA' },
  RS384: { kty: 'RSA' },
  RS512: { kty: 'RSA' },
  PS256: { kty: 'RSA' },
  PS384: { kty: 'RSA' },
  PS512: { kty: 'RSA' },
  ES256: { kty: 'EC', crv: 'P-256' },
  ES384: { kty: 'EC', crv: 'P-384' },
  ES512: { kty: 'EC', crv: 'P-521' },
  EdDSA: { kty: 'OKP', crv: 'Ed25519' },
  Ed25519: { kty: 'OKP', crv: 'Ed25519' },
};

// 4096 bits are 683 base64url characters (684 with the one leading zero octet some libraries
// write): a longer `n` is refused without being decoded.
const MAX_MODULUS_CHARACTERS = 700;
const MAX_EXPONENT_CHARACTERS = 16;
const BASE64URL = /^[A-Za-z0-9_-]*$/;

/**
 * Why `jwk` may not be used to verify a signature made with `alg`, or undefined when it may: the
 * key type (and curve) `alg` names, and for RSA a modulus of 2048 to 4096 bits and the exponent
 * 65537. Judged on the JWK's members only; whether they make a valid key is left to the import.
 */
export function keyOutOfBounds(jwk: Readonly<Record<string, unknown>>, alg: string): string | undefined {
  const expected = Object.hasOwn(KEY_OF_ALGORITHM, alg) ? KEY_OF_ALGORITHM[alg] : undefined;
  if (expected === undefined) return `"alg" ${alg} is not an accepted signature algorithm`;
  const kty = jwk.kty;
  if (kty !== expected.kty) return `${alg} needs an ${expected.kty} key${expected.crv ? ` on curve ${expected.crv}` : ''}, not a key of type ${describe(kty)}`;
  if (expected.crv !== undefined && jwk.crv !== expected.crv)
    return `${alg} needs an ${expected.kty} key on curve ${expected.crv}, not on ${describe(jwk.crv)}`;
  if (kty === 'RSA') return rsaOutOfBounds(jwk);
  return undefined;
}

/** Whether `alg` signs with keys of `jwk`'s type and curve (bounds aside). */
export function algorithmNamesKey(jwk: Readonly<Record<string, unknown>>, alg: string): boolean {
  const expected = Object.hasOwn(KEY_OF_ALGORITHM, alg) ? KEY_OF_ALGORITHM[alg] : undefined;
  return expected !== undefined && jwk.kty === expected.kty && (expected.crv === undefined || jwk.crv === expected.crv);
}

/** Why an RSA JWK's modulus or exponent is out of bounds, or undefined. */
export function rsaOutOfBounds(jwk: Readonly<Record<string, unknown>>): string | undefined {
  const bits = rsaModulusBits(jwk.n);
  if (bits === undefined) return 'the RSA key\'s "n" is not a base64url-encoded modulus';
  if (bits < MIN_RSA_MODULUS_BITS || bits > MAX_RSA_MODULUS_BITS) {
    const actual = bits > MAX_RSA_MODULUS_BITS ? 'this one is larger' : `this one has ${bits}`;
    return `RSA keys must have a modulus of at least ${MIN_RSA_MODULUS_BITS} bits and at most ${MAX_RSA_MODULUS_BITS} bits (${actual})`;
  }
  if (!isExponent65537(jwk.e)) return `RSA keys must have the public exponent ${RSA_PUBLIC_EXPONENT} ("e": "AQAB")`;
  return undefined;
}

/**
 * The bit length of a base64url-encoded RSA modulus (leading zero octets ignored), or undefined
 * when `n` is not base64url. A value longer than any accepted modulus gives MAX + 1 undecoded.
 */
export function rsaModulusBits(n: unknown): number | undefined {
  if (typeof n !== 'string' || n === '' || !BASE64URL.test(n) || n.length % 4 === 1) return undefined;
  if (n.length > MAX_MODULUS_CHARACTERS) return MAX_RSA_MODULUS_BITS + 1;
  return bitLength(Buffer.from(n, 'base64url'));
}

/** Whether a base64url-encoded exponent is 65537 (leading zero octets ignored). */
export function isExponent65537(e: unknown): boolean {
  if (typeof e !== 'string' || e === '' || e.length > MAX_EXPONENT_CHARACTERS || !BASE64URL.test(e) || e.length % 4 === 1) return false;
  const bytes = stripLeadingZeros(Buffer.from(e, 'base64url'));
  return bytes.length === 3 && bytes[0] === 0x01 && bytes[1] === 0x00 && bytes[2] === 0x01;
}

function bitLength(bytes: Uint8Array): number {
  const significant = stripLeadingZeros(bytes);
  if (significant.length === 0) return 0;
  return (significant.length - 1) * 8 + (32 - Math.clz32(significant[0]));
}

function stripLeadingZeros(bytes: Uint8Array): Uint8Array {
  let start = 0;
  while (start < bytes.length && bytes[start] === 0) start += 1;
  return bytes.subarray(start);
}

function describe(value: unknown): string {
  return typeof value === 'string' ? JSON.stringify(value.slice(0, 20)) : value === undefined ? 'none' : 'a non-string';
}
