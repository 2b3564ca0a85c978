import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn } from 'typeorm';

/** One administrative change: when, which record, which operation, attributes before and after. */
@Entity({ name: 'audit_event' })
export class AuditEvent {
  @PrimaryGeneratedColumn()
  id!: number;

  @CreateDateColumn({ name: 'occurred_at', type: 'timestamptz' })
  occurredAt!: Date;

  /** Who: the administrative credential (one static token today) and the source address. */
  @Column({ type: 'varchar', length: 255 })
  actor!: string;

  @Column({ type: 'varchar', length: 16 })
  operation!: string;

  @Column({ name: 'record_type', type: 'varchar', length: 64 })
  recordType!: string;

  @Column({ name: 'record_id', type: 'integer' })
  recordId!: number;

  @Column({ type: 'jsonb', nullable: true })
  before!: Record<string, unknown> | null;

  @Column({ type: 'jsonb', nullable: true })
  after!: Record<string, unknown> | null;

  /** Disclosures this change withdrew (docs/guides/consent-withdrawal.md). */
  @Column({ name: 'withdrawn_tokens', type: 'integer', default: 0 })
  withdrawnTokens!: number;
}
