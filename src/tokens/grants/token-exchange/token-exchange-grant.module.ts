import { Module } from '@nestjs/common';
import { ClientsModule } from '../../../clients/clients.module.js';
import { KeysModule } from '../../../keys/keys.module.js';
import { RevocationModule } from '../../../revocation/revocation.module.js';
import { TicketsModule } from '../../../tickets/tickets.module.js';
import { TokenIssuanceModule } from '../../token-issuance.module.js';
import { TokenExchangeGrant } from './token-exchange.grant.js';

/** Token exchange (RFC 8693) reads the subject token (keys, revocation), the delegations and the subject's consent (tickets). */
@Module({
  imports: [ClientsModule, KeysModule, RevocationModule, TicketsModule, TokenIssuanceModule],
  providers: [TokenExchangeGrant],
  exports: [TokenExchangeGrant],
})
export class TokenExchangeGrantModule {}
