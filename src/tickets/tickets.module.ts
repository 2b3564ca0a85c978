import { Module } from '@nestjs/common';
import { ConsentDirectory } from './consent-directory.js';
import { TICKET_RECORD_HANDLERS } from './ticket-records.js';

export const TICKET_RECORDS = Symbol('TICKET_RECORDS');

/**
 * Consent tickets: their entities (database/typeorm-options.ts), their admin record handlers, and
 * the cached view of what each client's tickets cover, for the token endpoint.
 */
@Module({
  providers: [{ provide: TICKET_RECORDS, useValue: TICKET_RECORD_HANDLERS }, ConsentDirectory],
  exports: [TICKET_RECORDS, ConsentDirectory],
})
export class TicketsModule {}
