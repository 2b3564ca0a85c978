import { Injectable } from '@nestjs/common';
import { parseScope } from '../../../oauth/scope.js';
import { resourcesOf } from '../../../oauth/token-request.js';
import { AccessDecisions } from '../../../tickets/access-decisions.js';
import { AccessTokenIssuer, type TokenResponse } from '../../access-token-issuer.js';
import { RefreshTokensService } from '../../refresh-tokens.service.js';
import { oauthErrorOf } from '../../refusal-error.js';
import type { GrantRequest, TokenGrant } from '../token-grant.js';

/**
 * The client credentials grant (RFC 6749 §4.4): the one access decision `explain` also shows
 * (docs/concepts/consent-tickets.md#when-a-resource-scope-is-granted, docs/concepts/audience.md);
 * its refusal is the error the endpoint answers. A client registered for refresh_token also gets
 * one.
 */
@Injectable()
export class ClientCredentialsGrant implements TokenGrant {
  readonly type = 'client_credentials';

  constructor(
    private readonly decisions: AccessDecisions,
    private readonly issuer: AccessTokenIssuer,
    private readonly refreshTokens: RefreshTokensService,
  ) {}

  async handle({ client, parameters, cnf, requestId }: GrantRequest): Promise<TokenResponse> {
    const resources = resourcesOf(parameters);
    // docs/reference/trust-communities.md#token-request: a UDAP request's purposes of use go into the decision, its hl7-b2b extension into the token and its disclosure.
    const hl7B2b = client.udap?.hl7B2b;
    const decision = await this.decisions.decide(client, {
      scopes: parseScope(parameters.scope),
      resources,
      ...(hl7B2b !== undefined ? { purposesOfUse: hl7B2b.purpose_of_use } : {}),
    });
    if (decision.refusal) throw oauthErrorOf(decision.refusal);
    // SMART wildcards are replaced by what they expand to (docs/guides/smart-backend-services.md).
    const response = await this.issuer.issue(
      client,
      { scopes: decision.scopes, decision, resources, ...(hl7B2b !== undefined ? { hl7B2b } : {}) },
      cnf,
      requestId,
    );
    if (client.grantTypes.has('refresh_token')) response.refresh_token = await this.refreshTokens.issue(client, response.scope);
    return response;
  }
}
