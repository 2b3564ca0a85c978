import { Module } from '@nestjs/common';
import { DisclosuresModule } from '../disclosures/disclosures.module.js';
import { KeysModule } from '../keys/keys.module.js';
import { StatusListsModule } from '../status-lists/status-lists.module.js';
import { AccessTokenIssuer } from './access-token-issuer.js';
import { RefreshTokensService } from './refresh-tokens.service.js';

/** What every grant ends with: a signed access token (with its disclosure), and refresh tokens. */
@Module({
  imports: [KeysModule, DisclosuresModule, StatusListsModule],
  providers: [AccessTokenIssuer, RefreshTokensService],
  exports: [AccessTokenIssuer, RefreshTokensService],
})
export class TokenIssuanceModule {}
