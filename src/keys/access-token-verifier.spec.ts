import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import type { AppConfig } from '../config/app-config.js';
import { AccessTokenVerifier } from './access-token-verifier.js';
import type { SigningKeysService } from './signing-keys.service.js';
import { signAccessToken } from './token-signer.js';

const ISSUER = 'https://as.example';
const now = () => Math.floor(Date.now() / 1000);
const claims = (exp: number) => ({ iss: ISSUER, sub: 'c', aud: ISSUER, exp, iat: exp - 60, jti: `j-${exp}`, client_id: 'c', scope: 'read' });

/** A verifier over one ES256 key that the test can withdraw. */
function setUp() {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const state = { published: true, keyLookups: 0 };
  const keys = {
    verificationKey: (kid: string): Promise<{ key: KeyObject; alg: 'ES256' } | undefined> => {
      state.keyLookups += 1;
      return Promise.resolve(kid === 'k1' && state.published ? { key: publicKey, alg: 'ES256' } : undefined);
    },
  } as unknown as SigningKeysService;
  const verifier = new AccessTokenVerifier({ issuer: ISSUER } as AppConfig, keys);
  const sign = (exp: number) => signAccessToken(claims(exp), { kid: 'k1', alg: 'ES256', privateKey });
  return { verifier, sign, state };
}

describe('AccessTokenVerifier', () => {
  it('answers a token verified before with the same claims', async () => {
    const { verifier, sign } = setUp();
    const token = await sign(now() + 300);
    const first = await verifier.verify(token);
    expect(first?.client_id).toBe('c');
    expect(await verifier.verify(token)).toEqual(first);
  });

  it('checks the signature of a new token asked about by many requests at once only once', async () => {
    const { verifier, sign, state } = setUp();
    const token = await sign(now() + 300);
    const answers = await Promise.all(Array.from({ length: 10 }, () => verifier.verify(token)));
    expect(answers.every((answer) => answer?.client_id === 'c')).toBe(true);
    expect(state.keyLookups).toBe(1);
  });

  it('refuses a remembered token once its key is no longer published', async () => {
    const { verifier, sign, state } = setUp();
    const token = await sign(now() + 300);
    expect(await verifier.verify(token)).toBeDefined();
    state.published = false;
    expect(await verifier.verify(token)).toBeUndefined();
  });

  it('refuses an expired token, first seen or remembered, unless told to ignore the expiry', async () => {
    const { verifier, sign } = setUp();
    const expired = await sign(now() - 1);
    expect(await verifier.verify(expired)).toBeUndefined();
    expect(await verifier.verify(expired)).toBeUndefined();
    expect((await verifier.verify(expired, { ignoreExpiration: true }))?.client_id).toBe('c');
  });

  it('verifies a token that differs by one character afresh, and refuses it', async () => {
    const { verifier, sign } = setUp();
    const token = await sign(now() + 300);
    expect(await verifier.verify(token)).toBeDefined();
    const tampered = token.slice(0, -2) + (token.endsWith('AA') ? 'AB' : 'AA');
    expect(await verifier.verify(tampered)).toBeUndefined();
  });

  it('refuses a token of another issuer and remembers nothing of it', async () => {
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const { verifier } = setUp();
    const foreign = await signAccessToken({ ...claims(now() + 300), iss: 'https://other.example' }, { kid: 'k1', alg: 'ES256', privateKey });
    expect(await verifier.verify(foreign)).toBeUndefined();
    expect(await verifier.verify(foreign, { ignoreExpiration: true })).toBeUndefined();
  });
});
