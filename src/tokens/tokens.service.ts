import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import type { ClientRecord } from '../clients/client-record.js';
import { AccessDecisions } from '../tickets/access-decisions.js';
import type { Decision } from '../tickets/access-decision.js';
import { permissionsOf } from '../tickets/consent-coverage.js';
import { OAuthError } from '../oauth/oauth-error.js';
import { RefreshTokensService } from './refresh-tokens.service.js';
import { parseScope } from '../oauth/scope.js';
import { SigningKeysService } from './signing-keys.service.js';
import { signAccessToken } from './token-signer.js';
import { oauthErrorOf } from './refusal-error.js';
import { resourcesOf, type TokenParameters } from '../oauth/token-request.js';
import { UmaGrant } from '../uma/uma-grant.js';
import type { RptClaims } from '../uma/rpt.js';
import { UMA_TICKET_GRANT } from './server-metadata.js';
import { DisclosuresService } from '../disclosures/disclosures.service.js';
import { StatusIndexAllocator, type StatusEntry } from '../status-lists/status-index-allocator.js';

export type TokenResponse = {
  access_token: string;
  token_type: 'Bearer' | 'DPoP';
  expires_in: number;
  scope: string;
  refresh_token?: string;
};

/**
 * A granted decision: its scopes, lifetime, audience and the consent tickets behind its resource
 * scopes; the `resource` parameters asked for (kept in the disclosure); for the UMA grant also the
 * RPT's audience and permissions (docs/guides/uma.md).
 */
type Grant = { scopes: string[]; decision: Decision; resources: string[]; rpt?: RptClaims };

const SUPPORTED_GRANTS = new Set(['client_credentials', 'refresh_token', UMA_TICKET_GRANT]);

@Injectable()
export class TokensService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly keys: SigningKeysService,
    private readonly decisions: AccessDecisions,
    private readonly refreshTokens: RefreshTokensService,
    private readonly uma: UmaGrant,
    private readonly disclosures: DisclosuresService,
    private readonly statusIndices: StatusIndexAllocator,
  ) {}

  /**
   * Answers an authenticated token request (docs/reference/token-endpoint.md#post-oauth2token), or throws the OAuthError it earns.
   * `jkt`: the thumbprint of a valid DPoP proof's key, which the access token is bound to (docs/reference/token-endpoint.md#dpop-proofs);
   * ClientAuthGuard has already refused a DPoP-bound client without one. `requestId`: the
   * response's X-Request-Id, kept in the token's disclosure.
   */
  async issue(client: ClientRecord, parameters: TokenParameters, jkt?: string, requestId?: string): Promise<TokenResponse | Omit<TokenResponse, 'scope'>> {
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
    if (grantType === 'refresh_token') return this.refresh(client, parameters, jkt, requestId);
    if (grantType === UMA_TICKET_GRANT) return this.umaTicket(client, parameters, jkt, requestId);
    const response = await this.accessToken(client, await this.grant(client, parseScope(parameters.scope), resourcesOf(parameters)), jkt, requestId);
    if (client.grantTypes.has('refresh_token')) response.refresh_token = await this.refreshTokens.issue(client, response.scope);
    return response;
  }

  /**
   * grant_type=refresh_token: the token is used up and rotated within its family; the scope (the
   * original one, or a subset of it) is checked again against the client's current allowed
   * scopes and consent tickets. A request mistake (a wider scope, a bad resource) is refused
   * before the token is used up; a client no longer entitled loses the whole family.
   */
  private async refresh(client: ClientRecord, parameters: TokenParameters, jkt: string | undefined, requestId: string | undefined): Promise<TokenResponse> {
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
    const response = await this.accessToken(client, { scopes: decision.scopes, decision, resources }, jkt, requestId);
    response.refresh_token = await this.refreshTokens.issue(client, response.scope, used.family_id);
    return response;
  }

  /**
   * The UMA grant (docs/guides/uma.md): UmaGrant redeems the ticket and decides; the RPT is issued
   * by accessToken like every other access token. Grant §3.3.5: no scope and no refresh token.
   */
  private async umaTicket(
    client: ClientRecord,
    parameters: TokenParameters,
    jkt: string | undefined,
    requestId: string | undefined,
  ): Promise<Omit<TokenResponse, 'scope'>> {
    // An RPT is a disclosure too: accessToken records it (docs/guides/consent-withdrawal.md).
    const { access_token, token_type, expires_in } = await this.accessToken(client, await this.uma.grant(client, parameters), jkt, requestId);
    return { access_token, token_type, expires_in };
  }

  /**
   * docs/concepts/consent-tickets.md#when-a-resource-scope-is-granted and docs/concepts/audience.md
   * (resource): the one decision `explain` also shows; its
   * refusal is the error this endpoint answers.
   */
  private async grant(client: ClientRecord, scopes: string[], resources: string[]): Promise<Grant> {
    const decision = await this.decisions.decide(client, { scopes, resources });
    if (decision.refusal) throw oauthErrorOf(decision.refusal);
    // SMART wildcards are replaced by what they expand to (docs/guides/smart-backend-services.md).
    return { scopes: decision.scopes, decision, resources };
  }

  private async accessToken(client: ClientRecord, { scopes, decision, resources, rpt }: Grant, jkt?: string, requestId?: string): Promise<TokenResponse> {
    // docs/concepts/consent-tickets.md#when-a-resource-scope-is-granted and docs/concepts/audience.md: the lifetime and audience the decision gave (an RPT's audience: its ticket's data sources).
    const { lifetime } = decision.verdict as { lifetime: number };
    const aud = rpt?.aud ?? (decision.verdict.aud as string | string[]);
    const { resourceScopes, covered: covering } = decision;
    // docs/reference/status-lists.md: every access token names its status list entry (drawn only for a granted request).
    let status: StatusEntry | undefined;
    if (this.statusIndices.enabled) {
      const taken = this.statusIndices.take();
      status = taken instanceof Promise ? await taken : taken;
    }
    const issuedAt = Math.floor(Date.now() / 1000);
    const scope = scopes.join(' ');
    const claims = {
      iss: this.config.issuer,
      sub: client.clientId,
      aud,
      exp: issuedAt + lifetime,
      iat: issuedAt,
      jti: randomUUID(),
      client_id: client.clientId,
      scope,
      ...(rpt
        ? { permissions: rpt.permissions(issuedAt + lifetime) }
        : covering.length > 0
          ? { permissions: permissionsOf(resourceScopes, covering, issuedAt + lifetime) }
          : {}),
      ...(jkt !== undefined ? { cnf: { jkt } } : {}),
      ...(status !== undefined ? { status: { status_list: { idx: status.idx, uri: status.uri } } } : {}),
    };
    const tokenType = jkt !== undefined ? 'DPoP' : 'Bearer';
    // docs/guides/consent-withdrawal.md: no token with a resource scope leaves before its disclosure
    // is committed. The row is known before the signature, so it is sent first and the token is
    // signed while it commits (on this thread for ES256 and EdDSA: the commit takes longer, and
    // the pool's hand-offs cost more CPU than the signature); it is answered when both are done.
    const disclosed =
      decision.chains.length > 0
        ? this.disclosures.record({
            jti: claims.jti,
            clientKey: client.id,
            clientId: client.clientId,
            scope,
            aud,
            resources,
            issuedAt,
            expiresAt: claims.exp,
            tokenType,
            jkt,
            requestId,
            chains: decision.chains,
            statusListId: status?.listId,
            statusIdx: status?.idx,
            defaultAudience: this.config.audience,
          })
        : undefined;
    const signed = this.keys.signingKey().then((key) => signAccessToken(claims, key, { inline: disclosed !== undefined }));
    const [token] = await Promise.all([signed, disclosed]);
    return { access_token: token, token_type: tokenType, expires_in: lifetime, scope };
  }
}
