import { Injectable } from '@nestjs/common';
import { OAuthError } from '../../../oauth/oauth-error.js';
import { parseScope } from '../../../oauth/scope.js';
import { resourcesOf } from '../../../oauth/token-request.js';
import { AccessDecisions } from '../../../tickets/access-decisions.js';
import { AccessTokenIssuer, type TokenResponse } from '../../access-token-issuer.js';
import { RefreshTokensService } from '../../refresh-tokens.service.js';
import { oauthErrorOf } from '../../refusal-error.js';
import type { GrantRequest, TokenGrant } from '../token-grant.js';

/**
 * grant_type=refresh_token: the token is used up and rotated within its family; the scope (the
 * original one, or a subset of it) is checked again against the client's current allowed
 * scopes and consent tickets. A request mistake (a wider scope, a bad resource) is refused
 * before the token is used up; a client no longer entitled loses the whole family.
 */
@Injectable()
export class RefreshTokenGrant implements TokenGrant {
  readonly type = 'refresh_token';

  constructor(
    private readonly decisions: AccessDecisions,
    private readonly issuer: AccessTokenIssuer,
    private readonly refreshTokens: RefreshTokensService,
  ) {}

  async handle({ client, parameters, cnf, requestId }: GrantRequest): Promise<TokenResponse> {
    if (parameters.refresh_token === undefined) throw new OAuthError('invalid_request', 'the refresh_token parameter is required');
    const presented = await this.refreshTokens.findUsable(client, parameters.refresh_token);
    if (presented === undefined) return this.refreshTokens.refuse(client, parameters.refresh_token);
    const original = presented.scope.split(' ');
    const scopes = parameters.scope === undefined ? original : parseScope(parameters.scope);
    const wider = scopes.filter((name) => !original.includes(name));
    if (wider.length > 0) throw new OAuthError('invalid_scope', `scope not granted with this refresh token: ${wider.join(' ')}`);
    const resources = resourcesOf(parameters);
    const decision = await this.decisions.decide(client, { scopes, resources });
    if (decision.refusal?.kind === 'unknown_target') throw oauthErrorOf(decision.refusal);
    const used = await this.refreshTokens.consume(client, parameters.refresh_token);
    if (decision.refusal) {
      // The client is no longer entitled: the family ends here.
      await this.refreshTokens.revokeFamily(used.family_id);
      throw oauthErrorOf(decision.refusal);
    }
    // RFC 9449 §5: the refresh token of a confidential client is not bound; this access token is.
    const response = await this.issuer.issue(client, { scopes: decision.scopes, decision, resources }, cnf, requestId);
    response.refresh_token = await this.refreshTokens.issue(client, response.scope, used.family_id);
    return response;
  }
}
