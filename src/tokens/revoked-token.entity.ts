import { Column, CreateDateColumn, Entity, Index, PrimaryColumn } from 'typeorm';

/** A revoked access token, by `jti`, kept until the token would have expired anyway. */
@Entity({ name: 'revoked_token' })
@Index('IDX_revoked_token_expires', ['expiresAt'])
export class RevokedToken {
  @PrimaryColumn({ type: 'varchar', length: 64 })
  jti!: string;

  @Column({ name: 'client_id', type: 'varchar', length: 255 })
  clientId!: string;

  @Column({ name: 'expires_at', type: 'timestamptz' })
  expiresAt!: Date;

  @CreateDateColumn({ name: 'revoked_at', type: 'timestamptz' })
  revokedAt!: Date;
}
