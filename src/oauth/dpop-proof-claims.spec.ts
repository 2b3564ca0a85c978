import { expect } from '@jest/globals';
import fc from 'fast-check';
import { checkProofClaims, checkProofHeader, withoutQuery } from './dpop-proof-claims.js';
import { OAuthError } from './oauth-error.js';

const NOW = 1_800_000_000;
const htu = 'https://as.example/oauth2/token';
const expected = { htm: 'POST', htu, now: NOW };
const valid = { htm: 'POST', htu, iat: NOW, jti: 'p-1' };
const jwk = { kty: 'EC', crv: 'P-256', x: 'x', y: 'y' };

describe('checkProofHeader', () => {
  it('accepts dpop+jwt with an accepted alg and a public jwk', () => {
    expect(() => checkProofHeader({ typ: 'dpop+jwt', alg: 'ES256', jwk })).not.toThrow();
  });

  it.each([
    ['another typ', { typ: 'JWT', alg: 'ES256', jwk }, /"typ"/],
    ['alg none', { typ: 'dpop+jwt', alg: 'none', jwk }, /"alg"/],
    ['alg HS256', { typ: 'dpop+jwt', alg: 'HS256', jwk }, /"alg"/],
    ['no jwk', { typ: 'dpop+jwt', alg: 'ES256' }, /"jwk"/],
    ['a private jwk', { typ: 'dpop+jwt', alg: 'ES256', jwk: { ...jwk, d: 'secret' } }, /private member "d"/],
  ])('refuses %s with invalid_dpop_proof', (_name, header, description) => {
    expect(() => checkProofHeader(header)).toThrow(expect.objectContaining({ code: 'invalid_dpop_proof', description: expect.stringMatching(description) }));
  });
});

describe('checkProofClaims', () => {
  it('returns jti, iat and nonce', () => {
    expect(checkProofClaims({ ...valid, nonce: 'n' }, expected)).toEqual({ jti: 'p-1', iat: NOW, nonce: 'n' });
  });

  it('ignores the query and fragment of htu, and normalises it', () => {
    expect(() => checkProofClaims({ ...valid, htu: 'HTTPS://AS.example:443/oauth2/token?a=b#c' }, expected)).not.toThrow();
  });

  it.each([
    ['GET', { htm: 'GET' }, /"htm"/],
    ['another path', { htu: 'https://as.example/oauth2/jwks' }, /"htu"/],
    ['not a URL', { htu: 'token' }, /"htu"/],
    ['61 s old', { iat: NOW - 61 }, /stale/],
    ['11 s ahead', { iat: NOW + 11 }, /future/],
    ['no jti', { jti: undefined }, /"jti"/],
    ['a numeric nonce', { nonce: 5 }, /"nonce"/],
  ])('refuses a proof with %s', (_name, change, description) => {
    const payload: Record<string, unknown> = { ...valid, ...change };
    if ('jti' in change && change.jti === undefined) delete payload.jti;
    expect(() => checkProofClaims(payload, expected)).toThrow(
      expect.objectContaining({ code: 'invalid_dpop_proof', description: expect.stringMatching(description) }),
    );
  });

  it('accepts any iat from 60 s old to 10 s ahead', () => {
    fc.assert(
      fc.property(fc.integer({ min: -60, max: 10 }), (offset) => {
        expect(checkProofClaims({ ...valid, iat: NOW + offset }, expected).iat).toBe(NOW + offset);
      }),
    );
  });

  it('never throws anything but a 400 invalid_dpop_proof, whatever the payload', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.constantFrom('htm', 'htu', 'iat', 'jti', 'nonce', 'ath'), fc.jsonValue()), (payload) => {
        try {
          checkProofClaims({ ...payload }, expected);
        } catch (error) {
          expect(error).toBeInstanceOf(OAuthError);
          expect((error as OAuthError).status).toBe(400);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('withoutQuery never throws, for any text', () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        expect(() => withoutQuery(text)).not.toThrow();
      }),
    );
  });
});
