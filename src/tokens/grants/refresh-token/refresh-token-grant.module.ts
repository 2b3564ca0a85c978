import { Module } from '@nestjs/common';
import { TicketsModule } from '../../../tickets/tickets.module.js';
import { TokenIssuanceModule } from '../../token-issuance.module.js';
import { RefreshTokenGrant } from './refresh-token.grant.js';

@Module({
  imports: [TicketsModule, TokenIssuanceModule],
  providers: [RefreshTokenGrant],
  exports: [RefreshTokenGrant],
})
export class RefreshTokenGrantModule {}
