import { Module } from '@nestjs/common';
import { DataSourceDelegations } from './data-source-delegations.js';
import { AccessDecisions } from './access-decisions.js';
import { ConsentDirectory } from './consent-directory.js';
import { DataSourceDirectory } from './data-source-directory.js';

/**
 * Consent tickets and data sources: their entities (listed in src/entities.ts), their
 * consistency rules (consent-rules.ts, used by the admin transport's record handlers), and the
 * one access decision (access-decision.ts) over cached views of them, for the token endpoint,
 * introspection and `explain`.
 */
@Module({
  providers: [ConsentDirectory, DataSourceDirectory, AccessDecisions, DataSourceDelegations],
  exports: [AccessDecisions, DataSourceDirectory, DataSourceDelegations],
})
export class TicketsModule {}
