import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module.js';
import { ClientsModule } from '../clients/clients.module.js';
import { TicketsModule } from '../tickets/tickets.module.js';
import { DiscoveryController } from './discovery.controller.js';
import { SigningKeysService } from './signing-keys.service.js';
import { TokensController } from './tokens.controller.js';
import { TokensService } from './tokens.service.js';
import { AccessTokenVerifier } from './access-token-verifier.js';
import { RefreshTokensService } from './refresh-tokens.service.js';
import { TokenLifecycleService } from './token-lifecycle.service.js';

@Module({
  imports: [AuthModule, ClientsModule, TicketsModule],
  controllers: [TokensController, DiscoveryController],
  providers: [
    TokensService,
    SigningKeysService,
    AccessTokenVerifier,
    RefreshTokensService,
    TokenLifecycleService,
  ],
  exports: [SigningKeysService],
})
export class TokensModule {}
