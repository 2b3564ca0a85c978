import { Module } from '@nestjs/common';
import { RevocationState } from './revocation-state.js';

/** Revoked tokens (docs/reference/token-endpoint.md#revocations-from-memory): what introspection, PATs and withdrawals share. */
@Module({
  providers: [RevocationState],
  exports: [RevocationState],
})
export class RevocationModule {}
