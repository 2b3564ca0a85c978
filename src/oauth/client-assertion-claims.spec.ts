import fc from 'fast-check';
import { checkAssertionClaims, MAX_ASSERTION_LIFETIME_SECONDS } from './client-assertion-claims.js';
import { OAuthError } from './oauth-error.js';

const NOW = 1_800_000_000;
const expected = { clientId: 'reader', issuer: 'https://as.example', now: NOW };
const valid = { iss: 'reader', sub: 'reader', aud: 'https://as.example', iat: NOW, exp: NOW + 60, jti: 'j-1' };

/** The check a refused assertion failed: logged, while the response says only 'client authentication failed'. */
function refusal(payload: Record<string, unknown>, against = expected): string {
  try {
    checkAssertionClaims(payload, against);
  } catch (error) {
    expect(error).toBeInstanceOf(OAuthError);
    expect((error as OAuthError).code).toBe('invalid_client');
    expect((error as OAuthError).description).toBe('client authentication failed');
    return (error as OAuthError).failedCheck ?? '';
  }
  throw new Error('accepted');
}

describe('checkAssertionClaims', () => {
  it('returns the jti and exp of a valid assertion', () => {
    expect(checkAssertionClaims(valid, expected)).toEqual({ jti: 'j-1', exp: NOW + 60 });
  });

  it('accepts the token endpoint URL as aud when it is given, and the claims Inferno sends (no iat, no nbf)', () => {
    const smart = { ...expected, tokenEndpoint: 'https://as.example/oauth2/token' };
    const inferno = { iss: 'reader', sub: 'reader', aud: 'https://as.example/oauth2/token', exp: NOW + 300, jti: 'j-2' };
    expect(checkAssertionClaims(inferno, smart)).toEqual({ jti: 'j-2', exp: NOW + 300 });
    expect(checkAssertionClaims({ ...inferno, aud: 'https://as.example' }, smart).jti).toBe('j-2');
  });

  it('refuses another URL and an array even when the token endpoint URL is accepted', () => {
    const smart = { ...expected, tokenEndpoint: 'https://as.example/oauth2/token' };
    for (const aud of ['https://as.example/oauth2/introspect', ['https://as.example/oauth2/token']]) {
      expect(refusal({ ...valid, aud }, smart)).toMatch(/or the token endpoint URL/);
    }
  });

  it('accepts exactly the maximum lifetime, and an iat 10 s ahead', () => {
    expect(() => checkAssertionClaims({ ...valid, exp: NOW + MAX_ASSERTION_LIFETIME_SECONDS }, expected)).not.toThrow();
    expect(() => checkAssertionClaims({ ...valid, iat: NOW + 10, exp: NOW + 70 }, expected)).not.toThrow();
  });

  it.each([
    ['an aud array', { aud: ['https://as.example'] }, /not an array/],
    ['another aud', { aud: 'https://as.example/oauth2/token' }, /must be the issuer/],
    ['another sub', { sub: 'writer' }, /"sub"/],
    ['no exp', { exp: undefined }, /no "exp"/],
    ['a string exp', { exp: String(NOW + 60) }, /NumericDate/],
    ['an exp now', { exp: NOW }, /expired/],
    ['one second too long', { exp: NOW + MAX_ASSERTION_LIFETIME_SECONDS + 1 }, /too long/],
    ['an iat 11 s ahead', { iat: NOW + 11, exp: NOW + 70 }, /"iat" is in the future/],
    ['an empty jti', { jti: '' }, /"jti"/],
    ['a numeric jti', { jti: 7 }, /"jti"/],
  ])('refuses %s', (_name, change, description) => {
    const payload: Record<string, unknown> = { ...valid, ...change };
    for (const [key, value] of Object.entries(change)) if (value === undefined) delete payload[key];
    expect(refusal(payload)).toMatch(description);
  });

  it('never throws anything but invalid_client, and never echoes the claims it got', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.constantFrom('iss', 'sub', 'aud', 'exp', 'iat', 'nbf', 'jti', 'x'), fc.jsonValue()), (payload) => {
        try {
          checkAssertionClaims({ ...payload }, expected);
        } catch (error) {
          expect(error).toBeInstanceOf(OAuthError);
          expect((error as OAuthError).status).toBe(401);
          for (const value of Object.values(payload)) {
            if (typeof value === 'string' && value.length > 8) expect((error as OAuthError).description).not.toContain(value);
          }
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('accepts any lifetime from 1 s to the maximum when everything else is right', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: MAX_ASSERTION_LIFETIME_SECONDS }), (lifetime) => {
        expect(checkAssertionClaims({ ...valid, exp: NOW + lifetime }, expected).exp).toBe(NOW + lifetime);
      }),
    );
  });
});
