import { Module } from '@nestjs/common';
import { TicketsModule } from '../tickets/tickets.module.js';
import { PermissionTickets } from './permission-tickets.js';
import { UmaGrant } from './uma-grant.js';

/**
 * The UMA grant and the permission tickets it redeems (docs/guides/uma.md), for the token
 * endpoint (TokensModule) and the protection API (UmaModule).
 */
@Module({
  imports: [TicketsModule],
  providers: [PermissionTickets, UmaGrant],
  exports: [PermissionTickets, UmaGrant],
})
export class UmaGrantModule {}
