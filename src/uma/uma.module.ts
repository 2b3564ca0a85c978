import { RevocationModule } from '../revocation/revocation.module.js';
import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module.js';
import { ClientsModule } from '../clients/clients.module.js';
import { KeysModule } from '../keys/keys.module.js';
import { TicketsModule } from '../tickets/tickets.module.js';
import { IntrospectionCallerGuard } from './introspection-caller.guard.js';
import { PatAuthenticator } from './pat-authenticator.js';
import { PermissionController } from './permission.controller.js';
import { PermissionRequests } from './permission-requests.js';
import { PermissionTickets } from './permission-tickets.js';
import { ResourceRegistrations } from './resource-registrations.service.js';
import { ResourceSetController } from './resource-set.controller.js';
import { UmaDiscoveryController } from './uma-discovery.controller.js';

/**
 * UMA 2.0 for data sources (docs/guides/uma.md) on the public listener: discovery and the
 * protection API (resource registration, permission endpoint), authenticated by a PAT
 * (PatAuthenticator, also for introspection: IntrospectionCallerGuard). The grant that redeems
 * its permission tickets runs at the token endpoint (src/tokens/grants/uma-ticket/).
 */
@Module({
  imports: [AuthModule, ClientsModule, KeysModule, TicketsModule, RevocationModule],
  controllers: [UmaDiscoveryController, ResourceSetController, PermissionController],
  providers: [ResourceRegistrations, PermissionRequests, PermissionTickets, PatAuthenticator, IntrospectionCallerGuard],
  exports: [PermissionTickets, PatAuthenticator, IntrospectionCallerGuard],
})
export class UmaModule {}
