import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import type { CoveringChain } from '../tickets/access-decision.js';

/**
 * An access token with a resource scope, as it left the server (docs/guides/consent-withdrawal.md).
 * No foreign keys: the row keeps what it said at issue time, and never blocks removing a record.
 * Never a token, a secret, a proof or an assertion.
 */
@Entity({ name: 'disclosure' })
// The only index besides the primary key: every index costs each token's write. Filters by client,
// ticket or requested resource go through the basis tags; retention through `issued_at`.
@Index('IDX_disclosure_issued', ['issuedAt', 'id'])
export class Disclosure {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id!: string;

  @Column({ type: 'varchar', length: 64 })
  jti!: string;

  /** The client's row id at issue time: what withdrawal looks the client up by. */
  @Column({ name: 'client_key', type: 'integer' })
  clientKey!: number;

  @Column({ name: 'client_id', type: 'varchar', length: 255 })
  clientId!: string;

  @Column({ type: 'text' })
  scope!: string;

  /** A string or an array of strings, as in the token. */
  @Column({ type: 'json' })
  aud!: string | string[];

  /** The `resource` parameters of the token request (empty: the audience was derived). */
  @Column({ type: 'json' })
  resources!: string[];

  @Column({ name: 'issued_at', type: 'timestamptz' })
  issuedAt!: Date;

  @Column({ name: 'expires_at', type: 'timestamptz' })
  expiresAt!: Date;

  @Column({ name: 'token_type', type: 'varchar', length: 8 })
  tokenType!: string;

  @Column({ type: 'varchar', length: 64, nullable: true })
  jkt!: string | null;

  @Column({ name: 'request_id', type: 'varchar', length: 128, nullable: true })
  requestId!: string | null;

  @Column({ type: 'json' })
  chains!: CoveringChain[];

  @Column({ name: 'withdrawn_at', type: 'timestamptz', nullable: true })
  withdrawnAt!: Date | null;

  /** The audit event of the change that withdrew it. */
  @Column({ name: 'withdrawn_by', type: 'integer', nullable: true })
  withdrawnBy!: number | null;
}
