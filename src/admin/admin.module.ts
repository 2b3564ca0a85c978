import { Module } from '@nestjs/common';
import { ClientsModule } from '../clients/clients.module.js';
import { TicketsModule } from '../tickets/tickets.module.js';
import { KeysModule } from '../keys/keys.module.js';
import { DisclosuresModule } from '../disclosures/disclosures.module.js';
import { DisclosuresController } from './disclosures.controller.js';
import { AdminController } from './admin.controller.js';
import { AuthorizationServerController } from './authorization-server.controller.js';
import { AdminRecordsService } from './admin-records.service.js';
import { AdminTokenGuard } from './admin-token.guard.js';
import { ExplainController } from './explain.controller.js';
import { UmaResourcesController } from './uma-resources.controller.js';

/** The administrative interface; served only on ADMIN_PORT (see src/http/listener-routes.ts). */
@Module({
  imports: [ClientsModule, TicketsModule, KeysModule, DisclosuresModule],
  // Static paths first: they must win over AdminController's GET /admin/:type.
  controllers: [ExplainController, AuthorizationServerController, UmaResourcesController, DisclosuresController, AdminController],
  providers: [AdminRecordsService, AdminTokenGuard],
  // Dynamic registration's client management removes and replaces clients exactly as an administrator does.
  exports: [AdminRecordsService],
})
export class AdminModule {}
