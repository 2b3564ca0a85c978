import { Module } from '@nestjs/common';
import { TicketsModule } from '../../../tickets/tickets.module.js';
import { UmaModule } from '../../../uma/uma.module.js';
import { TokenIssuanceModule } from '../../token-issuance.module.js';
import { UmaTicketGrant } from './uma-ticket.grant.js';

/** The UMA grant redeems the permission tickets that the protection API (UmaModule) issues. */
@Module({
  imports: [TicketsModule, UmaModule, TokenIssuanceModule],
  providers: [UmaTicketGrant],
  exports: [UmaTicketGrant],
})
export class UmaTicketGrantModule {}
