import { Controller, Get, Header, Inject } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { SigningKeysService } from '../keys/signing-keys.service.js';
import type { PublicJwk } from '../keys/token-signer.js';
import { AUTH_METHODS, serverMetadata } from '../oauth/server-metadata.js';
import { ASSERTION_ALGORITHMS } from '../oauth/client-assertion-claims.js';
import { smartScopeName } from '../oauth/smart-scope.js';
import { DataSourceDirectory } from '../tickets/data-source-directory.js';

@ApiTags('oauth2')
@Controller()
export class DiscoveryController {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly keys: SigningKeysService,
    private readonly definitions: DataSourceDirectory,
  ) {}

  /** RFC 8414 authorization server metadata. */
  @Get('.well-known/oauth-authorization-server')
  @ApiOperation({ summary: 'RFC 8414 authorization server metadata' })
  @ApiOkResponse({ description: 'issuer, token_endpoint, jwks_uri, supported grants, methods and algorithms' })
  @Header('Cache-Control', 'public, max-age=300')
  metadata(): Record<string, unknown> {
    return serverMetadata(this.config);
  }

  /**
   * SMART App Launch discovery for backend services (docs/guides/smart-backend-services.md): no
   * issuer, authorization endpoint or authorization_code, which belong to user-facing launches.
   * Read through the change-fed cache, so an admin change shows within a second.
   */
  @Get('.well-known/smart-configuration')
  @ApiOperation({ summary: 'SMART App Launch configuration (backend services)' })
  @ApiOkResponse({ description: 'token, JWKS, introspection and revocation endpoints, grants, authentication methods, SMART scopes and capabilities' })
  @Header('Cache-Control', 'no-cache')
  async smartConfiguration(): Promise<Record<string, unknown>> {
    const issuer = this.config.issuer;
    return {
      token_endpoint: `${issuer}/oauth2/token`,
      jwks_uri: `${issuer}/oauth2/jwks`,
      introspection_endpoint: `${issuer}/oauth2/introspect`,
      revocation_endpoint: `${issuer}/oauth2/revoke`,
      // SMART App Launch 2.2 §2.1 (optional member): where a backend service registers itself (docs/guides/dynamic-registration.md).
      ...(this.config.dynamicClientRegistration ? { registration_endpoint: `${issuer}/oauth2/register` } : {}),
      grant_types_supported: ['client_credentials', 'refresh_token'],
      token_endpoint_auth_methods_supported: AUTH_METHODS,
      token_endpoint_auth_signing_alg_values_supported: ASSERTION_ALGORITHMS,
      scopes_supported: await this.smartScopes(),
      capabilities: ['client-confidential-asymmetric', 'client-confidential-symmetric', 'permission-v1', 'permission-v2'],
      code_challenge_methods_supported: ['S256'],
      response_types_supported: [],
    };
  }

  /** `system/*.rs`, then the SMART scope of every scope record with permissions of a definition with a FHIR type. */
  private async smartScopes(): Promise<string[]> {
    const mapped = await this.definitions.mappedDefinitions();
    const names = mapped.flatMap((definition) =>
      definition.scopes.map((scope) => smartScopeName(definition.fhirResourceType, scope.smartPermissions, definition.fhirQuery)),
    );
    return [...new Set(['system/*.rs', ...names])];
  }

  /** Every key that can still verify a live token; a rotation shows here within a second. */
  @Get('oauth2/jwks')
  @ApiOperation({ summary: 'JSON Web Key Set: every key that can still verify a live token' })
  @ApiOkResponse({ description: '`{"keys": [...]}`' })
  @Header('Cache-Control', 'no-cache')
  async jwks(): Promise<{ keys: PublicJwk[] }> {
    return { keys: await this.keys.publicKeys() };
  }
}
