import { Module } from '@nestjs/common';
import { TICKET_RECORD_HANDLERS } from './ticket-records.js';

export const TICKET_RECORDS = Symbol('TICKET_RECORDS');

/** Consent tickets: their entities (database/typeorm-options.ts) and their admin record handlers. */
@Module({
  providers: [{ provide: TICKET_RECORDS, useValue: TICKET_RECORD_HANDLERS }],
  exports: [TICKET_RECORDS],
})
export class TicketsModule {}
