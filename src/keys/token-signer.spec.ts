import { generateKeyPairSync } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { jwtVerify } from 'jose';
import { publicJwkOf, signAccessToken } from './token-signer.js';

const claims = {
  iss: 'https://as.example',
  sub: 'c',
  aud: 'https://as.example',
  exp: 2_000_000_000,
  iat: 1_999_996_400,
  jti: 'j',
  client_id: 'c',
  scope: 'read',
};

describe('signAccessToken', () => {
  it('signs RS256 off the event loop, byte-identical to jsonwebtoken', async () => {
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const token = await signAccessToken(claims, { kid: 'k1', alg: 'RS256', privateKey });
    const reference = jwt.sign(claims, privateKey, { algorithm: 'RS256', header: { alg: 'RS256', typ: 'at+jwt', kid: 'k1' } });
    expect(token).toBe(reference);
  });

  it.each([['RS256' as const], ['ES256' as const]])('writes an at+jwt header with the kid (%s)', async (alg) => {
    const { privateKey, publicKey } =
      alg === 'RS256' ? generateKeyPairSync('rsa', { modulusLength: 2048 }) : generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const token = await signAccessToken(claims, { kid: 'k2', alg, privateKey });
    const decoded = jwt.verify(token, publicKey, { complete: true, algorithms: [alg] });
    expect(decoded.header).toEqual({ alg, typ: 'at+jwt', kid: 'k2' });
    expect(decoded.payload).toEqual(claims);
  });
});

describe('signAccessToken inline', () => {
  /** Whether the promise settles within a few microtasks, without a turn of the event loop (the pool needs one). */
  const settlesAtOnce = async (promise: Promise<string>) => {
    let settled = false;
    void promise.then(() => (settled = true));
    for (let tick = 0; tick < 10; tick += 1) await Promise.resolve();
    return settled;
  };

  it.each([['ES256' as const], ['EdDSA' as const]])('signs %s on the calling thread, verifiably', async (alg) => {
    const { privateKey, publicKey } = alg === 'ES256' ? generateKeyPairSync('ec', { namedCurve: 'P-256' }) : generateKeyPairSync('ed25519');
    const signing = signAccessToken(claims, { kid: 'k5', alg, privateKey }, { inline: true });
    expect(await settlesAtOnce(signing)).toBe(true);
    const { payload, protectedHeader } = await jwtVerify(await signing, publicKey, { algorithms: [alg], currentDate: new Date(1_999_999_000_000) });
    expect(protectedHeader).toEqual({ alg, typ: 'at+jwt', kid: 'k5' });
    expect(payload).toEqual(claims);
  });

  it('keeps RS256 on the thread pool, byte-identical to jsonwebtoken', async () => {
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const signing = signAccessToken(claims, { kid: 'k6', alg: 'RS256', privateKey }, { inline: true });
    expect(await settlesAtOnce(signing)).toBe(false);
    expect(await signing).toBe(jwt.sign(claims, privateKey, { algorithm: 'RS256', header: { alg: 'RS256', typ: 'at+jwt', kid: 'k6' } }));
  });

  it('signs ES256 on the thread pool unless asked', async () => {
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    expect(await settlesAtOnce(signAccessToken(claims, { kid: 'k7', alg: 'ES256', privateKey }))).toBe(false);
  });
});

describe('signAccessToken with the FAPI 2.0 algorithms', () => {
  it('signs PS256 that jsonwebtoken verifies as RSASSA-PSS', async () => {
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const token = await signAccessToken(claims, { kid: 'k3', alg: 'PS256', privateKey });
    const decoded = jwt.verify(token, publicKey, { complete: true, algorithms: ['PS256'], ignoreExpiration: true });
    expect(decoded.header).toEqual({ alg: 'PS256', typ: 'at+jwt', kid: 'k3' });
    expect(() => jwt.verify(token, publicKey, { algorithms: ['RS256'], ignoreExpiration: true })).toThrow();
  });

  // jsonwebtoken 9 does not implement EdDSA: jose is the reference for Ed25519 (RFC 8037).
  it('signs EdDSA (Ed25519) that jose verifies', async () => {
    const { privateKey, publicKey } = generateKeyPairSync('ed25519');
    const token = await signAccessToken(claims, { kid: 'k4', alg: 'EdDSA', privateKey });
    const { payload, protectedHeader } = await jwtVerify(token, publicKey, { algorithms: ['EdDSA'], currentDate: new Date(1_999_999_000_000) });
    expect(protectedHeader).toEqual({ alg: 'EdDSA', typ: 'at+jwt', kid: 'k4' });
    expect(payload).toEqual(claims);
  });
});

describe('publicJwkOf', () => {
  it('exports only the public members', () => {
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const jwk = publicJwkOf(privateKey, 'k', 'ES256');
    expect(Object.keys(jwk).sort()).toEqual(['alg', 'crv', 'kid', 'kty', 'use', 'x', 'y']);
  });
});
