import { OAuthError } from './oauth-error.js';

/** What client assertions may be signed with (docs/reference/token-endpoint.md#keys-and-metadata). */
export const ASSERTION_ALGORITHMS = ['PS256', 'ES256', 'EdDSA', 'RS256', 'RS384', 'PS384', 'ES384'] as const;

export const CLIENT_ASSERTION_TYPE = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';
/** docs/reference/token-endpoint.md#client-assertions-private_key_jwt: an assertion lives at most 5 minutes. */
export const MAX_ASSERTION_LIFETIME_SECONDS = 300;
/** docs/reference/token-endpoint.md#client-assertions-private_key_jwt: iat and nbf may be at most 10 s ahead of our clock. */
export const MAX_CLOCK_AHEAD_SECONDS = 10;
const MAX_JTI_LENGTH = 256;

export type AssertionClaims = { jti: string; exp: number };

/**
 * The claim checks of a `private_key_jwt` assertion (RFC 7523 §3,
 * docs/reference/token-endpoint.md#client-assertions-private_key_jwt), once its signature has been
 * verified. Each refusal is invalid_client naming the check; nothing of the assertion is echoed.
 */
export function checkAssertionClaims(
  payload: Record<string, unknown>,
  expected: { clientId: string; issuer: string; now: number; tokenEndpoint?: string },
): AssertionClaims {
  const { clientId, issuer, now, tokenEndpoint } = expected;
  if (payload.iss !== clientId) throw refused('the assertion\'s "iss" must be the client_id');
  if (payload.sub !== clientId) throw refused('the assertion\'s "sub" must be the client_id');
  checkAudience(payload.aud, issuer, tokenEndpoint);
  const exp = payload.exp;
  if (exp === undefined) throw refused('the assertion has no "exp" claim');
  if (!isNumericDate(exp)) throw refused('the assertion\'s "exp" is not a NumericDate');
  if (exp <= now) throw refused('the assertion has expired ("exp" is past)');
  const iat = payload.iat;
  if (iat !== undefined && !isNumericDate(iat)) throw refused('the assertion\'s "iat" is not a NumericDate');
  if (payload.nbf !== undefined && !isNumericDate(payload.nbf)) throw refused('the assertion\'s "nbf" is not a NumericDate');
  if (iat !== undefined && iat > now + MAX_CLOCK_AHEAD_SECONDS) throw refused('the assertion\'s "iat" is in the future');
  if (payload.nbf !== undefined && payload.nbf > now + MAX_CLOCK_AHEAD_SECONDS) throw refused('the assertion is not valid yet ("nbf" is in the future)');
  const start = iat ?? now;
  if (exp - start > MAX_ASSERTION_LIFETIME_SECONDS) {
    throw refused(`the assertion lives too long: "exp" must be at most ${MAX_ASSERTION_LIFETIME_SECONDS} s after "iat" (or now)`);
  }
  const jti = payload.jti;
  if (jti === undefined) throw refused('the assertion has no "jti" claim');
  if (typeof jti !== 'string' || jti === '' || jti.length > MAX_JTI_LENGTH)
    throw refused(`the assertion's "jti" must be a string of 1 to ${MAX_JTI_LENGTH} characters`);
  if (jti.includes('\0')) throw refused('the assertion\'s "jti" contains a NUL character');
  return { jti, exp };
}

/**
 * `aud` is one string: the issuer identifier, or (when `tokenEndpoint` is given, as SMART
 * clients send it) the token endpoint URL. Arrays and other URLs are refused: an audience list
 * is how assertions meant for one server get replayed at another.
 */
function checkAudience(aud: unknown, issuer: string, tokenEndpoint: string | undefined): void {
  const accepted =
    tokenEndpoint === undefined ? `the issuer identifier ${issuer}` : `the issuer identifier ${issuer} or the token endpoint URL ${tokenEndpoint}`;
  if (Array.isArray(aud)) throw refused(`the assertion's "aud" must be ${accepted} as a string, not an array`);
  if (aud !== issuer && (tokenEndpoint === undefined || aud !== tokenEndpoint)) throw refused(`the assertion's "aud" must be ${accepted}`);
}

function isNumericDate(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value);
}

export function refused(description: string): OAuthError {
  return OAuthError.invalidClient(`private_key_jwt: ${description}`, false);
}
