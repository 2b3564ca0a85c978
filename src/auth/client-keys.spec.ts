import { generateKeyPairSync, randomBytes, type KeyObject, type webcrypto } from 'node:crypto';
import type { ClientRecord } from '../clients/client-record.js';
import { ClientKeys } from './client-keys.js';
import { JwksUnavailable, type JwksUriFetcher } from './jwks-uri-fetcher.js';

const publicJwk = (type: 'ec' | 'ed25519' | 'rsa', options: object = {}) =>
  (generateKeyPairSync(type as never, options as never) as unknown as { publicKey: KeyObject }).publicKey.export({ format: 'jwk' }) as Record<string, unknown>;

const rsa = [publicJwk('rsa', { modulusLength: 2048 }), publicJwk('rsa', { modulusLength: 2048 })];
const p256 = [publicJwk('ec', { namedCurve: 'P-256' }), publicJwk('ec', { namedCurve: 'P-256' })];
const p384 = publicJwk('ec', { namedCurve: 'P-384' });
const ed25519 = publicJwk('ed25519');

// Only jwksRaw clients here: the fetcher is never asked.
const keys = new ClientKeys({} as JwksUriFetcher);
let nextId = 1;

function clientWith(jwks: unknown): ClientRecord {
  return { id: nextId++, clientId: 'c', jwksRaw: JSON.stringify(jwks), jwksUri: null } as ClientRecord;
}

/** The keys a set offers for an assertion of `alg` without `kid`: the one, or each of several candidates. */
async function candidates(jwks: unknown, alg: string): Promise<webcrypto.CryptoKey[]> {
  const set = await keys.keysOf(clientWith(jwks));
  try {
    return [await set({ alg }, undefined)];
  } catch (error) {
    if ((error as { code?: string }).code !== 'ERR_JWKS_MULTIPLE_MATCHING_KEYS') throw error;
    const found: webcrypto.CryptoKey[] = [];
    for await (const key of error as AsyncIterable<webcrypto.CryptoKey>) found.push(key);
    return found;
  }
}

describe('ClientKeys: the keys an assertion without kid is tried against', () => {
  const mixed = { keys: [...rsa, ...p256, p384, ed25519] };

  it.each([
    ['ES256', 2, { name: 'ECDSA', namedCurve: 'P-256' }],
    ['ES384', 1, { name: 'ECDSA', namedCurve: 'P-384' }],
    ['RS256', 2, { name: 'RSASSA-PKCS1-v1_5' }],
    ['PS384', 2, { name: 'RSA-PSS' }],
    ['EdDSA', 1, { name: 'Ed25519' }],
  ])('offers for %s only the keys of the type and curve it names (%d)', async (alg, count, algorithm) => {
    const found = await candidates(mixed, alg);
    expect(found).toHaveLength(count);
    for (const key of found) expect(key.algorithm).toMatchObject(algorithm);
  });

  it('offers none when the set has no key of the type', async () => {
    await expect(candidates({ keys: p256 }, 'RS256')).rejects.toMatchObject({ code: 'ERR_JWKS_NO_MATCHING_KEY' });
  });
});

describe('ClientKeys: a registered set with a key out of bounds', () => {
  it('is not usable at all: no key of it is tried', async () => {
    const huge = { kty: 'RSA', n: Buffer.concat([Buffer.from([0x80]), randomBytes(2047)]).toString('base64url'), e: 'AQAB' };
    await expect(keys.keysOf(clientWith({ keys: [p256[0], huge] }))).rejects.toThrow(JwksUnavailable);
    await expect(keys.keysOf(clientWith({ keys: [p256[0], huge] }))).rejects.toThrow(
      /key 1: RSA keys must have a modulus of at least 2048 bits and at most 4096 bits/,
    );
  });

  it('is not usable with eleven keys', async () => {
    await expect(keys.keysOf(clientWith({ keys: Array.from({ length: 11 }, () => p256[0]) }))).rejects.toThrow(/1 to 10 keys/);
  });
});
