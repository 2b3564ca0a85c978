import type { ClientRecord } from '../../clients/client-record.js';
import type { GrantType } from '../../oauth/grant-types.js';
import type { TokenParameters } from '../../oauth/token-request.js';
import type { Confirmation, TokenResponse } from '../access-token-issuer.js';

/**
 * A token request the endpoint has authenticated and checked against the client's registration:
 * `cnf` is what the access token is bound to (a valid DPoP proof's key, or the certificate of a
 * certificate-bound client), and
 * `requestId` the response's X-Request-Id, kept in the token's disclosure.
 */
export type GrantRequest = { client: ClientRecord; parameters: TokenParameters; cnf?: Confirmation; requestId?: string };

/**
 * One grant type of the token endpoint (src/tokens/grants/<type>/): TokensService dispatches a
 * request to the grant whose `type` is its `grant_type`, as node-oidc-provider's
 * lib/actions/grants/ does.
 */
export interface TokenGrant {
  readonly type: GrantType;
  handle(request: GrantRequest): Promise<TokenResponse | Omit<TokenResponse, 'scope'>>;
}
