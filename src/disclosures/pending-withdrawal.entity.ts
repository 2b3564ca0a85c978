import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * An administrative change whose withdrawals are not yet done (docs/guides/consent-withdrawal.md):
 * written in the change's own transaction, deleted once its last sweep ran. A row older than a few
 * seconds belongs to an instance that stopped before finishing, and any instance sweeps for it.
 */
@Entity({ name: 'pending_withdrawal' })
export class PendingWithdrawal {
  @PrimaryColumn({ name: 'audit_event_id', type: 'integer' })
  auditEventId!: number;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt!: Date;
}
