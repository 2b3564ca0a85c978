import { Column, CreateDateColumn, Entity, Index, PrimaryColumn } from 'typeorm';

/** A revoked access token, by `jti`, kept until the token would have expired anyway. */
@Entity({ name: 'revoked_token' })
@Index('IDX_revoked_token_expires', ['expiresAt'])
@Index('IDX_revoked_token_status_list', ['statusListId'])
@Index('IDX_revoked_token_txid', ['txid'])
export class RevokedToken {
  @PrimaryColumn({ type: 'varchar', length: 64 })
  jti!: string;

  @Column({ name: 'client_id', type: 'varchar', length: 255 })
  clientId!: string;

  @Column({ name: 'expires_at', type: 'timestamptz' })
  expiresAt!: Date;

  /** The token's status list (its row id) and index, when it named one: the entry that reads 1. */
  @Column({ name: 'status_list_id', type: 'integer', nullable: true })
  statusListId!: number | null;

  @Column({ name: 'status_idx', type: 'integer', nullable: true })
  statusIdx!: number | null;

  /**
   * The id of the transaction that revoked it (pg_current_xact_id()): what an instance reads the
   * revocations committed since its last read by (docs/reference/token-endpoint.md#revocations-from-memory).
   */
  @Column({ type: 'bigint' })
  txid!: string;

  @CreateDateColumn({ name: 'revoked_at', type: 'timestamptz' })
  revokedAt!: Date;
}
