import { RevocationModule } from '../revocation/revocation.module.js';
import { Module } from '@nestjs/common';
import { TicketsModule } from '../tickets/tickets.module.js';
import { DisclosureReads } from './disclosure-reads.js';
import { DisclosureRetention } from './disclosure-retention.js';
import { DisclosureWithdrawals } from './disclosure-withdrawals.js';
import { DisclosuresService } from './disclosures.service.js';

/**
 * The accounting of disclosures and consent withdrawal (docs/guides/consent-withdrawal.md):
 * recording (for every token-issuing path), re-deciding after administrative changes, reads for
 * the admin interface, and retention.
 */
@Module({
  imports: [TicketsModule, RevocationModule],
  providers: [DisclosuresService, DisclosureWithdrawals, DisclosureReads, DisclosureRetention],
  exports: [DisclosuresService, DisclosureWithdrawals, DisclosureReads],
})
export class DisclosuresModule {}
