import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import type { ClientRecord } from '../clients/client-record.js';
import { ConsentDirectory } from '../tickets/consent-directory.js';
import { decideCoverage, permissionsOf, type CoveredResource, type ResourceScopeRequest } from '../tickets/consent-coverage.js';
import { OAuthError } from '../oauth/oauth-error.js';
import { RefreshTokensService } from './refresh-tokens.service.js';
import { asResourceScope, parseScope } from '../oauth/scope.js';
import { SigningKeysService } from './signing-keys.service.js';
import { signAccessToken } from './token-signer.js';
import type { TokenParameters } from '../oauth/token-request.js';

export type TokenResponse = {
  access_token: string;
  token_type: 'Bearer' | 'DPoP';
  expires_in: number;
  scope: string;
  refresh_token?: string;
};

/** What a token request may be granted: its scopes, and the consent tickets behind its resource scopes. */
type Grant = { scopes: string[]; resourceScopes: ResourceScopeRequest[]; covering: CoveredResource[] };

const SUPPORTED_GRANTS = new Set(['client_credentials', 'refresh_token']);

@Injectable()
export class TokensService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly keys: SigningKeysService,
    private readonly consents: ConsentDirectory,
    private readonly refreshTokens: RefreshTokensService,
  ) {}

  /**
   * Answers an authenticated token request (API.md §4), or throws the OAuthError it earns.
   * `jkt`: the thumbprint of a valid DPoP proof's key, which the access token is bound to (§10).
   */
  async issue(client: ClientRecord, parameters: TokenParameters, jkt?: string): Promise<TokenResponse> {
    if (client.dpopBound && jkt === undefined) {
      throw new OAuthError('invalid_dpop_proof', 'DPoP: this client must send a DPoP proof with every token request');
    }
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
    if (grantType === 'refresh_token') return this.refresh(client, parameters, jkt);
    const response = await this.accessToken(client, await this.grant(client, parseScope(parameters.scope)), jkt);
    if (client.grantTypes.has('refresh_token')) response.refresh_token = await this.refreshTokens.issue(client, response.scope);
    return response;
  }

  /**
   * grant_type=refresh_token: the token is used up and rotated within its family; the scope (the
   * original one, or a subset of it) is checked again against the client's current allowed
   * scopes and consent tickets.
   */
  private async refresh(client: ClientRecord, parameters: TokenParameters, jkt: string | undefined): Promise<TokenResponse> {
    if (parameters.refresh_token === undefined) throw new OAuthError('invalid_request', 'the refresh_token parameter is required');
    const used = await this.refreshTokens.consume(client, parameters.refresh_token);
    const original = used.scope.split(' ');
    const scopes = parameters.scope === undefined ? original : parseScope(parameters.scope);
    const wider = scopes.filter((name) => !original.includes(name));
    if (wider.length > 0) throw new OAuthError('invalid_scope', `scope not granted with this refresh token: ${wider.join(' ')}`);
    let grant: Grant;
    try {
      grant = await this.grant(client, scopes);
    } catch (error) {
      // The client is no longer entitled: the family ends here.
      await this.refreshTokens.revokeFamily(used.family_id);
      throw error;
    }
    // RFC 9449 §5: the refresh token of a confidential client is not bound; this access token is.
    const response = await this.accessToken(client, grant, jkt);
    response.refresh_token = await this.refreshTokens.issue(client, response.scope, used.family_id);
    return response;
  }

  /** API.md §4 rules 1 and 2: allowed scopes, and consent tickets for resource scopes. */
  private async grant(client: ClientRecord, scopes: string[]): Promise<Grant> {
    const refused = scopes.filter((name) => !client.allowedScopes.has(name));
    if (refused.length > 0) {
      throw new OAuthError('invalid_scope', `scope not allowed for this client: ${refused.join(' ')}`);
    }
    const resourceScopes = scopes.map(asResourceScope).filter((resource) => resource !== undefined);
    const covering = resourceScopes.length > 0 ? await this.covering(client, resourceScopes) : [];
    return { scopes, resourceScopes, covering };
  }

  /** API.md §4 rule 2: the consent tickets of the client must cover every resource scope. */
  private async covering(client: ClientRecord, requested: ResourceScopeRequest[]): Promise<CoveredResource[]> {
    const decision = decideCoverage(requested, await this.consents.coveredFor(client.id));
    if (!decision.granted) throw new OAuthError('invalid_scope', decision.missing);
    return decision.covering;
  }

  private async accessToken(client: ClientRecord, { scopes, resourceScopes, covering }: Grant, jkt?: string): Promise<TokenResponse> {
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
      ...(jkt !== undefined ? { cnf: { jkt } } : {}),
    };
    const token = await signAccessToken(claims, await this.keys.signingKey());
    return { access_token: token, token_type: jkt !== undefined ? 'DPoP' : 'Bearer', expires_in: lifetime, scope };
  }
}
