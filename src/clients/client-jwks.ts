import { createPublicKey } from 'node:crypto';
import { exceedsJsonDepth, TOO_DEEP } from '../common/json-depth.js';
import { rsaOutOfBounds } from '../oauth/key-bounds.js';

/** A client's public keys (RFC 7517 JWK Set), checked by validateJwks. */
export type ClientJwks = { keys: Record<string, unknown>[] };

export const MAX_JWKS_KEYS = 10;

// RFC 7518 §6.2.2, §6.3.2, RFC 8037 §2: members that only private (or symmetric) keys carry.
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'];
const ALGORITHMS_BY_TYPE: Record<string, readonly string[]> = { RSA: ['RS256', 'PS256', 'RS384', 'PS384'], EC: ['ES256', 'ES384'], OKP: ['EdDSA', 'Ed25519'] };
// An EC key signs with the one algorithm of its curve (RFC 7518 §3.4).
const EC_ALGORITHM_BY_CURVE: Record<string, string> = { 'P-256': 'ES256', 'P-384': 'ES384' };

/**
 * Whether a key of the client's set can verify an assertion signed with `alg`: RSA keys for RS256,
 * RS384, PS256 and PS384, EC P-256 for ES256, EC P-384 for ES384, OKP Ed25519 for EdDSA
 * (docs/guides/smart-backend-services.md).
 */
export function keyFitsAlgorithm(jwk: Record<string, unknown>, alg: string): boolean {
  if (jwk.kty === 'RSA') return /^(RS|PS)(256|384)$/.test(alg);
  if (jwk.kty === 'EC') return typeof jwk.crv === 'string' && EC_ALGORITHM_BY_CURVE[jwk.crv] === alg;
  if (jwk.kty === 'OKP') return alg === 'EdDSA' || alg === 'Ed25519';
  return false;
}

/** A JWKS that cannot be used for client authentication; the message says why (docs/guides/clients-with-keys.md#registering-the-client). */
export class JwksError extends Error {}

/**
 * docs/guides/clients-with-keys.md#registering-the-client: public keys only, RSA with a modulus of
 * 2048 to 4096 bits and the exponent 65537, EC P-256 or P-384, OKP Ed25519, at most 10 keys,
 * unique `kid`s. The bounds (docs/operations/security.md#bounded-key-cost) are judged from the JWK
 * members before anything is parsed; the key material itself is then parsed by node:crypto
 * (createPublicKey), which refuses a malformed key.
 *
 * The one check of a client's key set wherever it comes from: the admin interface and the CLI
 * at registration (a refusal is a 422 naming the member), dynamic registration, a registered
 * `jwksRaw` before its keys are used, and every document fetched from a `jwks_uri` (a refused
 * document is a key set that cannot be used: no key of it is tried).
 */
export function validateJwks(value: unknown): ClientJwks {
  let document = value;
  if (typeof value === 'string') {
    if (exceedsJsonDepth(value)) throw new JwksError(`the JWKS is ${TOO_DEEP}`);
    try {
      document = JSON.parse(value);
    } catch {
      throw new JwksError('the JWKS is not valid JSON');
    }
  }
  if (typeof document !== 'object' || document === null || !Array.isArray((document as ClientJwks).keys)) {
    throw new JwksError('the JWKS must be a JSON object with a "keys" array');
  }
  const keys = (document as ClientJwks).keys;
  if (keys.length === 0 || keys.length > MAX_JWKS_KEYS) throw new JwksError(`the JWKS must hold 1 to ${MAX_JWKS_KEYS} keys`);
  const kids = new Set<string>();
  keys.forEach((key, index) => {
    checkKey(key, index);
    const kid = (key as { kid?: unknown }).kid;
    if (kid === undefined) return;
    if (typeof kid !== 'string' || kid === '') throw new JwksError(`key ${index}: "kid" must be a non-empty string`);
    if (kids.has(kid)) throw new JwksError(`key ${index}: "kid" ${JSON.stringify(kid)} is used twice`);
    kids.add(kid);
  });
  return { keys };
}

function checkKey(key: unknown, index: number): void {
  if (typeof key !== 'object' || key === null || Array.isArray(key)) throw new JwksError(`key ${index} is not a JSON object`);
  const jwk = key as Record<string, unknown>;
  const privateMember = PRIVATE_MEMBERS.find((member) => member in jwk);
  if (privateMember !== undefined) throw new JwksError(`key ${index} has the private member "${privateMember}": register public keys only`);
  // An own member only: "constructor" or an object with its own toString is no key type.
  const kty = jwk.kty;
  const allowed = typeof kty === 'string' && Object.hasOwn(ALGORITHMS_BY_TYPE, kty) ? ALGORITHMS_BY_TYPE[kty] : undefined;
  if (typeof kty !== 'string' || !allowed) throw new JwksError(`key ${index}: "kty" must be RSA, EC or OKP`);
  if (jwk.kty === 'EC' && (typeof jwk.crv !== 'string' || !Object.hasOwn(EC_ALGORITHM_BY_CURVE, jwk.crv)))
    throw new JwksError(`key ${index}: EC keys must be on curve P-256 or P-384`);
  if (jwk.kty === 'OKP' && jwk.crv !== 'Ed25519') throw new JwksError(`key ${index}: OKP keys must be Ed25519`);
  if (jwk.alg !== undefined && (typeof jwk.alg !== 'string' || !allowed.includes(jwk.alg) || !keyFitsAlgorithm(jwk, jwk.alg))) {
    const fitting = jwk.kty === 'EC' ? [EC_ALGORITHM_BY_CURVE[jwk.crv as string]] : allowed;
    throw new JwksError(`key ${index}: "alg" does not fit a ${kty}${jwk.kty === 'EC' ? ` ${jwk.crv as string}` : ''} key (use ${fitting.join(' or ')})`);
  }
  if (jwk.use !== undefined && jwk.use !== 'sig') throw new JwksError(`key ${index}: "use" must be "sig"`);
  // Judged before the key is parsed: a 16384-bit modulus is never handed to node:crypto.
  const outOfBounds = jwk.kty === 'RSA' ? rsaOutOfBounds(jwk) : undefined;
  if (outOfBounds !== undefined) throw new JwksError(`key ${index}: ${outOfBounds}`);
  try {
    createPublicKey({ key: jwk as never, format: 'jwk' });
  } catch {
    throw new JwksError(`key ${index} is not a valid ${kty} public key`);
  }
}
