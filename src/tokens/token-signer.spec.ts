import { generateKeyPairSync } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { publicJwkOf, signAccessToken } from './token-signer.js';

const claims = { iss: 'https://as.example', sub: 'c', aud: 'https://as.example', exp: 2_000_000_000, iat: 1_999_996_400, jti: 'j', client_id: 'c', scope: 'read' };

describe('signAccessToken', () => {
  it('signs RS256 off the event loop, byte-identical to jsonwebtoken', async () => {
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const token = await signAccessToken(claims, { kid: 'k1', alg: 'RS256', privateKey });
    const reference = jwt.sign(claims, privateKey, { algorithm: 'RS256', header: { alg: 'RS256', typ: 'at+jwt', kid: 'k1' } });
    expect(token).toBe(reference);
  });

  it.each([['RS256' as const], ['ES256' as const]])('writes an at+jwt header with the kid (%s)', async (alg) => {
    const { privateKey, publicKey } = alg === 'RS256'
      ? generateKeyPairSync('rsa', { modulusLength: 2048 })
      : generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const token = await signAccessToken(claims, { kid: 'k2', alg, privateKey });
    const decoded = jwt.verify(token, publicKey, { complete: true, algorithms: [alg] });
    expect(decoded.header).toEqual({ alg, typ: 'at+jwt', kid: 'k2' });
    expect(decoded.payload).toEqual(claims);
  });
});

describe('publicJwkOf', () => {
  it('exports only the public members', () => {
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const jwk = publicJwkOf(privateKey, 'k', 'ES256');
    expect(Object.keys(jwk).sort()).toEqual(['alg', 'crv', 'kid', 'kty', 'use', 'x', 'y']);
  });
});
