import { Module } from '@nestjs/common';
import { TokensModule } from '../tokens/tokens.module.js';
import { PermissionController } from './permission.controller.js';
import { PermissionRequests } from './permission-requests.js';
import { ResourceRegistrations } from './resource-registrations.service.js';
import { ResourceSetController } from './resource-set.controller.js';
import { UmaDiscoveryController } from './uma-discovery.controller.js';
import { UmaGrantModule } from './uma-grant.module.js';

/**
 * UMA 2.0 for data sources (docs/guides/uma.md) on the public listener: discovery and the
 * protection API (resource registration, permission endpoint), authenticated by a PAT. The grant
 * itself runs at the token endpoint (UmaGrantModule, in TokensModule).
 */
@Module({
  imports: [TokensModule, UmaGrantModule],
  controllers: [UmaDiscoveryController, ResourceSetController, PermissionController],
  providers: [ResourceRegistrations, PermissionRequests],
})
export class UmaModule {}
