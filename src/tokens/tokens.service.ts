import { Injectable } from '@nestjs/common';
import type { ClientRecord } from '../clients/client-record.js';
import { isGrantType, type GrantType } from '../oauth/grant-types.js';
import { OAuthError } from '../oauth/oauth-error.js';
import type { TokenParameters } from '../oauth/token-request.js';
import type { Confirmation, TokenResponse } from './access-token-issuer.js';
import { ClientCredentialsGrant } from './grants/client-credentials/client-credentials.grant.js';
import { RefreshTokenGrant } from './grants/refresh-token/refresh-token.grant.js';
import type { TokenGrant } from './grants/token-grant.js';
import { UmaTicketGrant } from './grants/uma-ticket/uma-ticket.grant.js';
import { TokenExchangeGrant } from './grants/token-exchange/token-exchange.grant.js';

/**
 * The token endpoint's dispatch (docs/reference/token-endpoint.md#post-oauth2token): the checks
 * every grant shares, then the grant of the request's `grant_type` (src/tokens/grants/), from one
 * map keyed by grant type.
 */
@Injectable()
export class TokensService {
  private readonly grants: ReadonlyMap<GrantType, TokenGrant>;

  constructor(clientCredentials: ClientCredentialsGrant, refreshToken: RefreshTokenGrant, umaTicket: UmaTicketGrant, tokenExchange: TokenExchangeGrant) {
    this.grants = new Map([clientCredentials, refreshToken, umaTicket, tokenExchange].map((grant) => [grant.type, grant]));
  }

  /**
   * Answers an authenticated token request, or throws the OAuthError it earns. `cnf`: what the
   * access token is bound to, the thumbprint of a valid DPoP proof's key
   * (docs/reference/token-endpoint.md#dpop-proofs) or of a certificate-bound client's certificate
   * (docs/guides/mtls.md#certificate-bound-tokens); the client authentication guard has already
   * refused a bound client without its proof or certificate. `requestId`: the response's X-Request-Id, kept in the
   * token's disclosure.
   */
  async issue(
    client: ClientRecord,
    parameters: TokenParameters,
    cnf?: Confirmation,
    requestId?: string,
  ): Promise<TokenResponse | Omit<TokenResponse, 'scope'>> {
    const grantType = parameters.grant_type;
    if (grantType === undefined) throw new OAuthError('invalid_request', 'the grant_type parameter is required');
    const grant = isGrantType(grantType) ? this.grants.get(grantType) : undefined;
    if (grant === undefined) throw new OAuthError('unsupported_grant_type', `grant type "${grantType}" is not supported by this server`);
    if (client.clientType !== 'CONFIDENTIAL') {
      throw new OAuthError('unauthorized_client', 'only confidential clients may use this grant');
    }
    if (!client.grantTypes.has(grantType)) {
      throw new OAuthError('unauthorized_client', `the client is not registered for the ${grantType} grant`);
    }
    return grant.handle({ client, parameters, cnf, requestId });
  }
}
