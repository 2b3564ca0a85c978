import { Controller, Get, Header, Inject } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { UMA_TICKET_GRANT } from '../oauth/grant-types.js';
import { serverMetadata } from '../oauth/server-metadata.js';

/** UMA 2.0 discovery (Grant §2, FedAuthz §2, docs/guides/uma.md): the RFC 8414 document plus UMA's members. */
@ApiTags('uma')
@Controller()
export class UmaDiscoveryController {
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  @Get('.well-known/uma2-configuration')
  @ApiOperation({ summary: 'UMA 2.0 authorization server metadata' })
  @ApiOkResponse({ description: 'the RFC 8414 members, resource_registration_endpoint, permission_endpoint, uma_profiles_supported' })
  @Header('Cache-Control', 'public, max-age=300')
  configuration(): Record<string, unknown> {
    const metadata = serverMetadata(this.config);
    const grants = metadata.grant_types_supported as string[];
    return {
      ...metadata,
      grant_types_supported: grants.includes(UMA_TICKET_GRANT) ? grants : [...grants, UMA_TICKET_GRANT],
      resource_registration_endpoint: `${this.config.issuer}/uma/resource_set`,
      permission_endpoint: `${this.config.issuer}/uma/permission`,
      introspection_endpoint: `${this.config.issuer}/oauth2/introspect`,
      uma_profiles_supported: [],
    };
  }
}
