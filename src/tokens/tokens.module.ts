import { Module } from '@nestjs/common';
import { PassportModule } from '@nestjs/passport';
import { AuthThrottle } from '../auth/auth-throttle.js';
import { ClientAuthenticator } from '../auth/client-authenticator.js';
import { ClientAssertionAuthenticator } from '../auth/client-assertion-authenticator.js';
import { ClientKeys } from '../auth/client-keys.js';
import { DpopNonces } from '../auth/dpop-nonces.js';
import { DpopProofs } from '../auth/dpop-proofs.js';
import { JwksUriFetcher } from '../auth/jwks-uri-fetcher.js';
import { ReplayStore } from '../auth/replay-store.js';
import { ClientAuthGuard } from '../auth/guards/client-auth.guard.js';
import { ClientBasicStrategy } from '../auth/strategies/client-basic.strategy.js';
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

@Module({
  imports: [PassportModule, ClientsModule, TicketsModule, DisclosuresModule],
  controllers: [TokensController, DiscoveryController],
  providers: [
    TokensService,
    SigningKeysService,
    AccessTokenVerifier,
    RefreshTokensService,
    TokenLifecycleService,
    ClientAuthenticator,
    AuthThrottle,
    ClientBasicStrategy,
    ClientAuthGuard,
    ClientAssertionAuthenticator,
    ClientKeys,
    JwksUriFetcher,
    ReplayStore,
    DpopNonces,
    DpopProofs,
  ],
  exports: [SigningKeysService],
})
export class TokensModule {}
