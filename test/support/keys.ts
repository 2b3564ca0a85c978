import { randomUUID } from 'node:crypto';
import type { INestApplicationContext } from '@nestjs/common';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';
import { ClientsService } from '../../src/clients/clients.service.js';
import type { ClientRegistration } from '../../src/clients/client-registration.js';
import { FACTORY_ACTOR } from './factories.js';

export const ASSERTION_TYPE = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';

/** A client's key pair, as the client holds it, and its public JWK with a kid. */
export type ClientKey = { alg: string; privateKey: CryptoKey; publicKey: CryptoKey; jwk: JWK };

export async function clientKey(
  alg: 'ES256' | 'PS256' | 'RS256' | 'EdDSA' | 'RS384' | 'PS384' | 'ES384' = 'ES256',
  kid = `key-${randomUUID()}`,
): Promise<ClientKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true, ...(alg === 'EdDSA' ? { crv: 'Ed25519' } : {}) });
  return { alg, privateKey, publicKey, jwk: { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' } };
}

/** A registered private_key_jwt client holding `key` (its public half in jwks_raw). */
export async function createKeyClient(app: INestApplicationContext, key: ClientKey, overrides: Partial<ClientRegistration> = {}): Promise<string> {
  const issued = await app.get(ClientsService).create(
    {
      clientId: `key-client-${randomUUID().slice(0, 8)}`,
      clientName: 'Key-holding client',
      allowedScopes: 'uma_protection read write',
      authenticationType: 'private_key_jwt',
      jwksRaw: JSON.stringify({ keys: [key.jwk] }),
      ...overrides,
    },
    { actor: FACTORY_ACTOR },
  );
  return issued.clientId;
}

/**
 * A client assertion as RFC 7523 describes it: iss = sub = client id, aud = the issuer, 60 s of
 * life, a fresh jti. `claims` overrides or (with undefined) removes claims; `header` likewise.
 */
export async function assertion(
  key: ClientKey,
  clientId: string,
  audience: unknown,
  claims: Record<string, unknown> = {},
  header: Record<string, unknown> = {},
): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  const payload = withOverrides({ iss: clientId, sub: clientId, aud: audience, iat: now, exp: now + 60, jti: randomUUID() }, claims);
  return new SignJWT(payload).setProtectedHeader(withOverrides({ alg: key.alg, kid: key.jwk.kid }, header) as { alg: string }).sign(key.privateKey);
}

export function withOverrides(base: Record<string, unknown>, overrides: Record<string, unknown>): Record<string, unknown> {
  const merged: Record<string, unknown> = { ...base, ...overrides };
  for (const [name, value] of Object.entries(overrides)) if (value === undefined) delete merged[name];
  return merged;
}

/** The payload of a compact JWT, unverified (for tests that look inside a token). */
export function claimsOf(jwt: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(jwt.split('.')[1], 'base64url').toString('utf8')) as Record<string, unknown>;
}

/**
 * A DPoP proof (RFC 9449 §4.2) for POST to `htu`, its public key in the header. `claims` and
 * `header` override or (with undefined) remove members.
 */
export async function dpopProof(key: ClientKey, htu: string, claims: Record<string, unknown> = {}, header: Record<string, unknown> = {}): Promise<string> {
  const publicJwk = withOverrides({ ...key.jwk }, { kid: undefined, alg: undefined, use: undefined });
  const payload = withOverrides({ htm: 'POST', htu, iat: Math.floor(Date.now() / 1000), jti: randomUUID() }, claims);
  return new SignJWT(payload)
    .setProtectedHeader(withOverrides({ alg: key.alg, typ: 'dpop+jwt', jwk: publicJwk }, header) as { alg: string })
    .sign(key.privateKey);
}
