import { Column, Entity, Index, JoinColumn, ManyToOne, Unique, type Relation } from 'typeorm';
import { Client } from '../clients/client.entity.js';
import { RecordEntity } from '../database/record.entity.js';

/** One permission of a ticket: a registered resource (`_id`), the scopes asked for on it, and the definition its `type` named then. */
export type TicketPermission = { resource_id: string; resource_scopes: string[]; resource_type: string };

/**
 * A UMA permission ticket (docs/guides/uma.md): stored only as the SHA-256 of its random value,
 * with the client that asked for it, its permissions and its expiry. Redeeming it deletes the
 * row, so it is single use on every instance.
 */
@Entity({ name: 'permission_ticket' })
@Unique('UQ_permission_ticket_hash', ['ticketHash'])
@Index('IDX_permission_ticket_client', ['client'])
@Index('IDX_permission_ticket_expires_at', ['expiresAt'])
export class PermissionTicket extends RecordEntity {
  @Column({ name: 'ticket_hash', type: 'varchar', length: 64 })
  ticketHash!: string;

  @ManyToOne(() => Client, { nullable: false, onDelete: 'CASCADE' })
  @JoinColumn({ name: 'client_id' })
  client!: Relation<Client>;

  @Column({ type: 'jsonb' })
  permissions!: TicketPermission[];

  @Column({ name: 'expires_at', type: 'timestamptz' })
  expiresAt!: Date;
}
