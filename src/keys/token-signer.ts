import { constants, createPublicKey, sign, type KeyObject, type SignKeyObjectInput } from 'node:crypto';
import type { SigningAlgorithm } from '../config/app-config.js';

export type SigningMaterial = {
  kid: string;
  alg: SigningAlgorithm;
  /** Imported once: signing with a PEM string re-parses it every call (3x slower). */
  privateKey: KeyObject;
};

export type PublicJwk = Record<string, string>;

export type SignOptions = {
  /**
   * Sign an ES256 or EdDSA token on the calling thread (RSA stays on the pool): for a caller that
   * waits for something slower anyway (a disclosure's commit), which saves the pool's two thread
   * hand-offs.
   */
  inline?: boolean;
};

/**
 * Signs RFC 9068 access tokens (`typ: at+jwt`) as compact JWS. By default the signature is computed
 * by node:crypto on libuv's thread pool, off the event loop: jsonwebtoken signs synchronously, and
 * its RSA signature (or even ECDSA with its stream-based jws layer) would cost the event loop
 * more than the rest of a token request. jsonwebtoken remains the reference: unit tests hold
 * RS256 output byte-identical to `jsonwebtoken.sign` and verify ES256 output with it.
 */
export async function signAccessToken(claims: object, key: SigningMaterial, { inline = false }: SignOptions = {}): Promise<string> {
  const { encodedHeader, options } = preparedOf(key);
  const input = `${encodedHeader}.${base64url(claims)}`;
  const data = Buffer.from(input);
  // Ed25519 hashes internally: no digest name (RFC 8037 §3.1).
  const digest = key.alg === 'EdDSA' ? null : 'sha256';
  const signature =
    inline && FAST.has(key.alg)
      ? sign(digest, data, options)
      : await new Promise<Buffer>((resolve, reject) => sign(digest, data, options, (error, result) => (error ? reject(error) : resolve(result))));
  return `${input}.${signature.toString('base64url')}`;
}

// About 20 µs each on this project's benchmark machine; an RSA-2048 signature takes about 1 ms.
const FAST: ReadonlySet<SigningAlgorithm> = new Set(['ES256', 'EdDSA']);

type Prepared = { encodedHeader: string; options: KeyObject | SignKeyObjectInput };

// What every token of one key shares, built once per key rather than once per token.
const prepared = new WeakMap<SigningMaterial, Prepared>();

function preparedOf(key: SigningMaterial): Prepared {
  let entry = prepared.get(key);
  if (!entry) {
    entry = { encodedHeader: base64url({ alg: key.alg, typ: 'at+jwt', kid: key.kid }), options: signingOptions(key) };
    prepared.set(key, entry);
  }
  return entry;
}

function signingOptions(key: SigningMaterial): KeyObject | SignKeyObjectInput {
  switch (key.alg) {
    // JWS ES256 wants the raw r||s form (RFC 7518 §3.4), not DER.
    case 'ES256':
      return { key: key.privateKey, dsaEncoding: 'ieee-p1363' };
    // RFC 7518 §3.5: RSASSA-PSS with SHA-256, MGF1 with SHA-256, a 32-byte salt.
    case 'PS256':
      return { key: key.privateKey, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: 32 };
    default:
      return key.privateKey;
  }
}

function base64url(value: object): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

/** The public half as a JWK with `kid`, `alg` and `use`, for the JWKS. */
export function publicJwkOf(privateKey: KeyObject, kid: string, alg: SigningAlgorithm): PublicJwk {
  const jwk = createPublicKey(privateKey).export({ format: 'jwk' }) as PublicJwk;
  return { ...jwk, kid, alg, use: 'sig' };
}

/**
 * A JWT of another type (a status list token, `statuslist+jwt`) with the same key and options,
 * signed on the thread pool.
 */
export async function signJwt(typ: string, claims: object, key: SigningMaterial): Promise<string> {
  const input = `${base64url({ alg: key.alg, kid: key.kid, typ })}.${base64url(claims)}`;
  const digest = key.alg === 'EdDSA' ? null : 'sha256';
  const signature = await new Promise<Buffer>((resolve, reject) =>
    sign(digest, Buffer.from(input), signingOptions(key), (error, result) => (error ? reject(error) : resolve(result))),
  );
  return `${input}.${signature.toString('base64url')}`;
}
