import { Module } from '@nestjs/common';
import { AccessTokenVerifier } from './access-token-verifier.js';
import { SigningKeysService } from './signing-keys.service.js';

/**
 * This server's signing keys (stored encrypted when KEY_ENCRYPTION_SECRET is set, rotated by the
 * CLI and the admin interface) and the verification of the access tokens they signed: below the
 * token endpoint, the UMA protection API and the admin interface, which all use them.
 */
@Module({
  providers: [SigningKeysService, AccessTokenVerifier],
  exports: [SigningKeysService, AccessTokenVerifier],
})
export class KeysModule {}
