/** The UMA grant's type (UMA 2.0 Grant §3.3.1). */
export const UMA_TICKET_GRANT = 'urn:ietf:params:oauth:grant-type:uma-ticket';

/**
 * Every grant type this server issues tokens for, written once: the token endpoint dispatches on
 * it (src/tokens/grants/), clients register for a subset of it, and the metadata and the OpenAPI
 * document publish it.
 */
export const GRANT_TYPES = ['client_credentials', 'refresh_token', UMA_TICKET_GRANT] as const;

export type GrantType = (typeof GRANT_TYPES)[number];

export function isGrantType(value: string): value is GrantType {
  return (GRANT_TYPES as readonly string[]).includes(value);
}
