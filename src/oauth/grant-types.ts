/** The UMA grant's type (UMA 2.0 Grant §3.3.1). */
export const UMA_TICKET_GRANT = 'urn:ietf:params:oauth:grant-type:uma-ticket';

/** The token exchange grant's type (RFC 8693 §2.1), and its one token type (§3). */
export const TOKEN_EXCHANGE_GRANT = 'urn:ietf:params:oauth:grant-type:token-exchange';
export const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token';

/**
 * Every grant type this server issues tokens for, written once: the token endpoint dispatches on
 * it (src/tokens/grants/), clients register for a subset of it, and the metadata and the OpenAPI
 * document publish it.
 */
export const GRANT_TYPES = ['client_credentials', 'refresh_token', UMA_TICKET_GRANT, TOKEN_EXCHANGE_GRANT] as const;

export type GrantType = (typeof GRANT_TYPES)[number];

export function isGrantType(value: string): value is GrantType {
  return (GRANT_TYPES as readonly string[]).includes(value);
}

/**
 * docs/concepts/consent-tickets.md#the-records: every client holds the client credentials grant;
 * refresh tokens and the UMA grant come only beside it. Said once for the admin interface, the
 * CLI, initial access tokens and dynamic registration (each names the member in its own words).
 */
export const BASE_GRANT_TYPE = 'client_credentials';
export const BASE_GRANT_RULE = `must include ${BASE_GRANT_TYPE}`;

export function holdsBaseGrant(grantTypes: readonly string[]): boolean {
  return grantTypes.includes(BASE_GRANT_TYPE);
}
