import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/**
 * An access token with a resource scope, as it left the server (docs/guides/consent-withdrawal.md).
 * No foreign keys: the row keeps what it said at issue time, and never blocks removing a record.
 * Never a token, a secret, a proof or an assertion.
 */
@Entity({ name: 'disclosure' })
// Two indexes besides the primary key, each paid by every token's write: `issued_at` for the
// newest-first reads and retention; `basis` for withdrawal and the filters by client, ticket or
// requested resource (found through the basis tags).
@Index('IDX_disclosure_issued', ['issuedAt', 'id'])
@Index('IDX_disclosure_basis', ['basis', 'expiresAt'])
// The filters of a UDAP token's `hl7-b2b` (docs/guides/consent-withdrawal.md#purpose-of-use-in-the-accounting): partial, so other tokens pay nothing for them.
@Index('IDX_disclosure_organization', ['organizationId', 'issuedAt'], { where: '"organization_id" IS NOT NULL' })
@Index('IDX_disclosure_purpose_of_use', { synchronize: false })
@Index('IDX_disclosure_parent_jti', ['parentJti'])
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

  /** The key of its `disclosure_basis` row: the chains that covered it, and what they rest on. */
  @Column({ type: 'uuid' })
  basis!: string;

  /** The token's status list (its row id) and index, or null: copied to `revoked_token` on withdrawal; never shown. */
  @Column({ name: 'status_list_id', type: 'integer', nullable: true })
  statusListId!: number | null;

  @Column({ name: 'status_idx', type: 'integer', nullable: true })
  statusIdx!: number | null;

  /** A UDAP token's `hl7-b2b` extension as asserted (src/oauth/hl7-b2b.ts); each null for other tokens. */
  @Column({ name: 'organization_id', type: 'varchar', length: 2048, nullable: true })
  organizationId!: string | null;

  @Column({ name: 'organization_name', type: 'text', nullable: true })
  organizationName!: string | null;

  @Column({ name: 'purpose_of_use', type: 'text', array: true, nullable: true })
  purposeOfUse!: string[] | null;

  @Column({ name: 'subject_name', type: 'text', nullable: true })
  subjectName!: string | null;

  @Column({ name: 'subject_id', type: 'text', nullable: true })
  subjectId!: string | null;

  @Column({ name: 'subject_role', type: 'text', nullable: true })
  subjectRole!: string | null;

  @Column({ name: 'consent_reference', type: 'text', array: true, nullable: true })
  consentReference!: string[] | null;

  @Column({ name: 'withdrawn_at', type: 'timestamptz', nullable: true })
  withdrawnAt!: Date | null;

  /** The audit event of the change that withdrew it. */
  @Column({ name: 'withdrawn_by', type: 'integer', nullable: true })
  withdrawnBy!: number | null;

  /** docs/guides/token-exchange.md: an exchanged token's actors' client_ids, outermost first; null when not exchanged. */
  @Column({ type: 'json', nullable: true })
  actor!: string[] | null;

  /** docs/guides/token-exchange.md: the jti of the token it was exchanged from. */
  @Column({ name: 'parent_jti', type: 'varchar', length: 64, nullable: true })
  parentJti!: string | null;
}
