import { Controller, Get, Header, Inject } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { SigningKeysService } from './signing-keys.service.js';
import type { PublicJwk } from './token-signer.js';
import { authorizationServerMetadata } from './authorization-server-metadata.js';

@ApiTags('oauth2')
@Controller()
export class DiscoveryController {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly keys: SigningKeysService,
  ) {}

  /** RFC 8414 authorization server metadata. */
  @Get('.well-known/oauth-authorization-server')
  @ApiOperation({ summary: 'RFC 8414 authorization server metadata' })
  @ApiOkResponse({ description: 'issuer, token_endpoint, jwks_uri, supported grants, methods and algorithms' })
  @Header('Cache-Control', 'public, max-age=300')
  metadata(): Record<string, unknown> {
    return authorizationServerMetadata(this.config);
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
