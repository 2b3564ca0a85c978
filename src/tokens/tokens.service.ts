import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import type { ClientRecord } from '../clients/client-record.js';
import { ConsentDirectory } from '../tickets/consent-directory.js';
import { decideCoverage, permissionsOf, type CoveredResource, type ResourceScopeRequest } from '../tickets/consent-coverage.js';
import { OAuthError } from './oauth-error.js';
import { asResourceScope, parseScope } from './scope.js';
import { SigningKeysService } from './signing-keys.service.js';
import { signAccessToken } from './token-signer.js';
import type { TokenParameters } from './token-request.js';

export type TokenResponse = {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  scope: string;
};

const SUPPORTED_GRANTS = new Set(['client_credentials']);

@Injectable()
export class TokensService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly keys: SigningKeysService,
    private readonly consents: ConsentDirectory,
  ) {}

  /** Answers an authenticated token request (API.md §4), or throws the OAuthError it earns. */
  async issue(client: ClientRecord, parameters: TokenParameters): Promise<TokenResponse> {
    const grantType = parameters.grant_type;
    if (grantType === undefined) throw new OAuthError('invalid_request', 'the grant_type parameter is required');
    if (!SUPPORTED_GRANTS.has(grantType)) {
      throw new OAuthError('unsupported_grant_type', `grant type "${grantType}" is not supported by this server`);
    }
    if (client.clientType !== 'CONFIDENTIAL') {
      throw new OAuthError('unauthorized_client', 'only confidential clients may use this grant');
    }
    if (!client.grantTypes.has(grantType)) {
      throw new OAuthError('unauthorized_client', `the client is not registered for the ${grantType} grant`);
    }
    const scopes = parseScope(parameters.scope);
    const refused = scopes.filter((name) => !client.allowedScopes.has(name));
    if (refused.length > 0) {
      throw new OAuthError('invalid_scope', `scope not allowed for this client: ${refused.join(' ')}`);
    }
    const resourceScopes = scopes.map(asResourceScope).filter((resource) => resource !== undefined);
    const covering = resourceScopes.length > 0 ? await this.covering(client, resourceScopes) : [];
    return this.accessToken(client, scopes, resourceScopes, covering);
  }

  /** API.md §4 rule 2: the consent tickets of the client must cover every resource scope. */
  private async covering(client: ClientRecord, requested: ResourceScopeRequest[]): Promise<CoveredResource[]> {
    const decision = decideCoverage(requested, await this.consents.coveredFor(client.id));
    if (!decision.granted) throw new OAuthError('invalid_scope', decision.missing);
    return decision.covering;
  }

  private async accessToken(
    client: ClientRecord,
    scopes: string[],
    resourceScopes: ResourceScopeRequest[],
    covering: CoveredResource[],
  ): Promise<TokenResponse> {
    // API.md §4 rule 3: no longer than any covering requested resource allows.
    const lifetime = Math.min(this.config.accessTokenTtl, ...covering.map((resource) => resource.maxPermissionDuration));
    const issuedAt = Math.floor(Date.now() / 1000);
    const scope = scopes.join(' ');
    const claims = {
      iss: this.config.issuer,
      sub: client.clientId,
      aud: this.config.audience,
      exp: issuedAt + lifetime,
      iat: issuedAt,
      jti: randomUUID(),
      client_id: client.clientId,
      scope,
      ...(covering.length > 0 ? { permissions: permissionsOf(resourceScopes, covering, issuedAt + lifetime) } : {}),
    };
    const token = await signAccessToken(claims, await this.keys.signingKey());
    return { access_token: token, token_type: 'Bearer', expires_in: lifetime, scope };
  }
}
