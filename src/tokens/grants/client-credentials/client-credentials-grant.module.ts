import { Module } from '@nestjs/common';
import { TicketsModule } from '../../../tickets/tickets.module.js';
import { TokenIssuanceModule } from '../../token-issuance.module.js';
import { ClientCredentialsGrant } from './client-credentials.grant.js';

@Module({
  imports: [TicketsModule, TokenIssuanceModule],
  providers: [ClientCredentialsGrant],
  exports: [ClientCredentialsGrant],
})
export class ClientCredentialsGrantModule {}
