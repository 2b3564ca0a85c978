import { randomBytes } from 'node:crypto';
import { expect } from '@jest/globals';
import { calculateJwkThumbprint, exportJWK, generateKeyPair } from 'jose';
import { DpopKeys } from './dpop-keys.js';

describe('DpopKeys', () => {
  it('imports a proof key once and gives its RFC 7638 thumbprint', async () => {
    const { publicKey } = await generateKeyPair('ES256', { extractable: true });
    const jwk = { ...(await exportJWK(publicKey)) };
    const keys = new DpopKeys();
    const first = keys.resolve(jwk, 'ES256');
    expect(keys.resolve({ ...jwk }, 'ES256')).toBe(first);
    expect((await first).jkt).toBe(await calculateJwkThumbprint(jwk));
    expect((await first).key.type).toBe('public');
  });

  it.each([
    ['a use other than sig', { use: 'enc' }, 'ES256', /"use"/],
    ["an alg other than the proof's", { alg: 'ES384' }, 'ES256', /another "alg"/],
    ['a key of another type than the alg', {}, 'RS256', /refused: RS256 needs an RSA key/],
    ['a key on another curve than the alg', { crv: 'P-384' }, 'ES256', /refused: ES256 needs an EC key on curve P-256/],
  ])('refuses %s', async (_name, change, alg, message) => {
    const { publicKey } = await generateKeyPair('ES256', { extractable: true });
    await expect(new DpopKeys().resolve({ ...(await exportJWK(publicKey)), ...change }, alg)).rejects.toMatchObject({
      code: 'invalid_dpop_proof',
      description: expect.stringMatching(message),
    });
  });

  it('refuses a private key and does not keep the refusal', async () => {
    const { privateKey } = await generateKeyPair('ES256', { extractable: true });
    const keys = new DpopKeys();
    const jwk = await exportJWK(privateKey);
    await expect(keys.resolve(jwk, 'ES256')).rejects.toMatchObject({ code: 'invalid_dpop_proof' });
    await expect(keys.resolve(jwk, 'ES256')).rejects.toMatchObject({ code: 'invalid_dpop_proof' });
  });

  describe('keys whose verification would cost more than a normal key', () => {
    // Hand-made moduli: nothing is verified with them, so they need not be real keys.
    const modulus = (bits: number) => {
      const bytes = randomBytes(bits / 8);
      bytes[0] |= 0x80;
      return bytes.toString('base64url');
    };

    it.each([
      ['a 16384-bit modulus', { kty: 'RSA', n: modulus(16384), e: 'AQAB' }, /at most 4096 bits/],
      ['a 1024-bit modulus', { kty: 'RSA', n: modulus(1024), e: 'AQAB' }, /at most 4096 bits/],
      ['a 3072-bit exponent', { kty: 'RSA', n: modulus(2048), e: modulus(3072) }, /exponent 65537/],
    ])('refuses an RSA jwk with %s before importing it', async (_name, jwk, message) => {
      await expect(new DpopKeys().resolve(jwk, 'RS256')).rejects.toMatchObject({ code: 'invalid_dpop_proof', description: expect.stringMatching(message) });
    });
  });
});
