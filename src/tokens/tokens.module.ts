import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module.js';
import { ClientsModule } from '../clients/clients.module.js';
import { TicketsModule } from '../tickets/tickets.module.js';
import { DisclosuresModule } from '../disclosures/disclosures.module.js';
import { DiscoveryController } from './discovery.controller.js';
import { SigningKeysService } from './signing-keys.service.js';
import { TokensController } from './tokens.controller.js';
import { TokensService } from './tokens.service.js';
import { AccessTokenVerifier } from './access-token-verifier.js';
import { RefreshTokensService } from './refresh-tokens.service.js';
import { TokenLifecycleService } from './token-lifecycle.service.js';
import { StatusListsModule } from '../status-lists/status-lists.module.js';
import { UmaGrantModule } from '../uma/uma-grant.module.js';
import { PatAuthenticator } from '../uma/pat-authenticator.js';
import { IntrospectionCallerGuard } from '../uma/introspection-caller.guard.js';

@Module({
  imports: [AuthModule, ClientsModule, TicketsModule, UmaGrantModule, DisclosuresModule, StatusListsModule],
  controllers: [TokensController, DiscoveryController],
  providers: [
    TokensService,
    SigningKeysService,
    AccessTokenVerifier,
    RefreshTokensService,
    TokenLifecycleService,
    // UMA (docs/guides/uma.md): PATs at the protection API and at introspection.
    PatAuthenticator,
    IntrospectionCallerGuard,
  ],
  exports: [SigningKeysService, PatAuthenticator],
})
export class TokensModule {}
