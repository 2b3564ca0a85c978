import { Index, Column, Entity, JoinColumn, ManyToOne, Unique, type Relation } from 'typeorm';
import { Client } from '../clients/client.entity.js';
import { RecordEntity } from '../database/record.entity.js';
import { Purpose } from './purpose.entity.js';

/** Links a purpose to a client. */
@Entity({ name: 'capability_ticket' })
// Indexes of the admin interface's filters (docs/reference/admin-filters.md), made by migration 1764500000000;
// some are expression or hash indexes TypeORM cannot describe, so the schema builder leaves them alone.
@Index('IDX_capability_ticket_ticket_name', { synchronize: false })
@Index('IDX_capability_ticket_purpose', { synchronize: false })
@Index('IDX_capability_ticket_search_ticket_id', { synchronize: false })
@Index('IDX_capability_ticket_search_ticket_name', { synchronize: false })
@Index('IDX_capability_ticket_client', ['umaClient'])
@Unique('UQ_capability_ticket_ticket_id', ['ticketId'])
export class CapabilityTicket extends RecordEntity {
  @Column({ name: 'ticket_id', type: 'varchar', length: 255 })
  ticketId!: string;

  @Column({ name: 'ticket_name', type: 'varchar', length: 255 })
  ticketName!: string;

  @ManyToOne(() => Purpose, { nullable: false, onDelete: 'RESTRICT' })
  @JoinColumn({ name: 'purpose_id' })
  purpose!: Relation<Purpose>;

  @ManyToOne(() => Client, { nullable: false, onDelete: 'RESTRICT' })
  @JoinColumn({ name: 'client_id' })
  umaClient!: Relation<Client>;
}
