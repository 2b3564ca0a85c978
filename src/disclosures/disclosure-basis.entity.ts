import { Entity, Index, PrimaryColumn } from 'typeorm';

/**
 * What a disclosure's coverage rests on, one row per record: (`capability-ticket`, "12"),
 * (`uma-client`, "3"), (`data-source`, its resourceUri)... A change to a record finds the outstanding
 * disclosures it may withdraw through the primary key, by range on `expires_at`: never by scanning
 * every disclosure, nor the expired ones.
 */
@Entity({ name: 'disclosure_basis' })
@Index('IDX_disclosure_basis_expires', ['expiresAt'])
export class DisclosureBasis {
  @PrimaryColumn({ name: 'record_type', type: 'varchar', length: 64 })
  recordType!: string;

  @PrimaryColumn({ name: 'record_ref', type: 'varchar', length: 2048 })
  recordRef!: string;

  /** The disclosure's: an expired one needs no re-deciding, and retention removes it. */
  @PrimaryColumn({ name: 'expires_at', type: 'timestamptz' })
  expiresAt!: Date;

  @PrimaryColumn({ name: 'disclosure_id', type: 'bigint' })
  disclosureId!: string;
}
