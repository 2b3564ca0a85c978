import { Module } from '@nestjs/common';
import { ConsentDirectory } from './consent-directory.js';

/**
 * Consent tickets and data sources: their entities (database/typeorm-options.ts), their
 * consistency rules (consent-rules.ts, used by the admin transport's record handlers), and the
 * cached view of what each client's tickets cover, for the token endpoint.
 */
@Module({
  providers: [ConsentDirectory],
  exports: [ConsentDirectory],
})
export class TicketsModule {}
