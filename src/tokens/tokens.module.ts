import { RevocationModule } from '../revocation/revocation.module.js';
import { Module } from '@nestjs/common';
import { DisclosuresModule } from '../disclosures/disclosures.module.js';
import { AuthModule } from '../auth/auth.module.js';
import { ClientsModule } from '../clients/clients.module.js';
import { KeysModule } from '../keys/keys.module.js';
import { TicketsModule } from '../tickets/tickets.module.js';
import { StatusListsModule } from '../status-lists/status-lists.module.js';
import { UmaModule } from '../uma/uma.module.js';
import { DiscoveryController } from './discovery.controller.js';
import { ClientCredentialsGrantModule } from './grants/client-credentials/client-credentials-grant.module.js';
import { RefreshTokenGrantModule } from './grants/refresh-token/refresh-token-grant.module.js';
import { UmaTicketGrantModule } from './grants/uma-ticket/uma-ticket-grant.module.js';
import { TokenExchangeGrantModule } from './grants/token-exchange/token-exchange-grant.module.js';
import { TokenIssuanceModule } from './token-issuance.module.js';
import { TokenLifecycleService } from './token-lifecycle.service.js';
import { TokensController } from './tokens.controller.js';
import { TokensService } from './tokens.service.js';

/**
 * The token endpoint with its grants (src/tokens/grants/), introspection and revocation
 * (TokenLifecycleService), the JWKS and the RFC 8414 metadata.
 */
@Module({
  imports: [
    RevocationModule,
    AuthModule,
    ClientsModule,
    KeysModule,
    TicketsModule,
    UmaModule,
    StatusListsModule,
    TokenIssuanceModule,
    DisclosuresModule,
    ClientCredentialsGrantModule,
    RefreshTokenGrantModule,
    UmaTicketGrantModule,
    TokenExchangeGrantModule,
  ],
  controllers: [TokensController, DiscoveryController],
  providers: [TokensService, TokenLifecycleService],
})
export class TokensModule {}
