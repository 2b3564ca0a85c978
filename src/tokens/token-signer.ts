import { createPublicKey, sign as signAsync, type KeyObject } from 'node:crypto';
import jwt from 'jsonwebtoken';
import type { SigningAlgorithm } from '../config/app-config.js';

export type SigningMaterial = {
  kid: string;
  alg: SigningAlgorithm;
  /** Imported once: signing with a PEM string re-parses it every call (3x slower). */
  privateKey: KeyObject;
};

export type PublicJwk = Record<string, string>;

/**
 * Signs RFC 9068 access tokens (`typ: at+jwt`). ES256 goes through jsonwebtoken (33,000/s on
 * the event loop). RS256 is ten times dearer, so its PKCS#1 v1.5 signature is computed by
 * node:crypto on libuv's thread pool; RS256 signatures are deterministic, and a unit test
 * holds this output byte-identical to jsonwebtoken's.
 */
export async function signAccessToken(claims: object, key: SigningMaterial): Promise<string> {
  if (key.alg === 'ES256') {
    return jwt.sign(claims, key.privateKey, {
      algorithm: 'ES256',
      keyid: key.kid,
      header: { alg: 'ES256', typ: 'at+jwt', kid: key.kid },
    });
  }
  const header = { alg: key.alg, typ: 'at+jwt', kid: key.kid };
  const input = `${base64url(header)}.${base64url(claims)}`;
  const signature = await new Promise<Buffer>((resolve, reject) =>
    signAsync('sha256', Buffer.from(input), key.privateKey, (error, result) =>
      error ? reject(error) : resolve(result),
    ),
  );
  return `${input}.${signature.toString('base64url')}`;
}

function base64url(value: object): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

/** The public half as a JWK with `kid`, `alg` and `use`, for the JWKS. */
export function publicJwkOf(privateKey: KeyObject, kid: string, alg: SigningAlgorithm): PublicJwk {
  const jwk = createPublicKey(privateKey).export({ format: 'jwk' }) as PublicJwk;
  return { ...jwk, kid, alg, use: 'sig' };
}
