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
    ['a key of another type than the alg', {}, 'RS256', /not a valid public key/],
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
});
