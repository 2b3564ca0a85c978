import { Index, Column, CreateDateColumn, Entity, PrimaryGeneratedColumn } from 'typeorm';

/** One administrative change: when, which record, which operation, attributes before and after. */
@Entity({ name: 'audit_event' })
// Indexes of the admin interface's filters (docs/reference/admin-filters.md), made by migration 1764500000000;
// some are expression or hash indexes TypeORM cannot describe, so the schema builder leaves them alone.
@Index('IDX_audit_event_actor', { synchronize: false })
@Index('IDX_audit_event_operation', { synchronize: false })
@Index('IDX_audit_event_record', { synchronize: false })
@Index('IDX_audit_event_record_id', { synchronize: false })
@Index('IDX_audit_event_occurred_at', { synchronize: false })
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
