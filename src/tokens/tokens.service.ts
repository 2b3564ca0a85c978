import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import type { ClientRecord } from '../clients/client-record.js';
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
    const scopes = this.grantableScopes(client, parseScope(parameters.scope));
    return this.accessToken(client, scopes);
  }

  private grantableScopes(client: ClientRecord, requested: string[]): string[] {
    const refused = requested.filter((name) => !client.allowedScopes.has(name));
    if (refused.length > 0) {
      throw new OAuthError('invalid_scope', `scope not allowed for this client: ${refused.join(' ')}`);
    }
    for (const name of requested) {
      const resource = asResourceScope(name);
      // Consent tickets are the only way to cover a resource scope; none exists yet.
      if (resource) {
        throw new OAuthError(
          'invalid_scope',
          `no consent ticket of this client covers resource type "${resource.definition}" for scope "${resource.scope}"`,
        );
      }
    }
    return requested;
  }

  private async accessToken(client: ClientRecord, scopes: string[]): Promise<TokenResponse> {
    const lifetime = this.config.accessTokenTtl;
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
    };
    const token = await signAccessToken(claims, await this.keys.signingKey());
    return { access_token: token, token_type: 'Bearer', expires_in: lifetime, scope };
  }
}
