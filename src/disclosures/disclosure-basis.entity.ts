import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/**
 * What a disclosure's coverage rests on, one row per disclosure: the tags (src/disclosures/basis-tags.ts)
 * of its client, the records of its chains and the data sources its `aud` names. A change to a record
 * finds the disclosures it may re-decide through the GIN index on `tags`, never by scanning every
 * disclosure (docs/guides/consent-withdrawal.md).
 */
@Entity({ name: 'disclosure_basis' })
// GIN with fastupdate: a new row's tags go to the index's pending list, merged in bulk later.
// TypeORM cannot declare a GIN index; the migration creates it and the schema diff leaves it alone.
@Index('IDX_disclosure_basis_tags', { synchronize: false })
export class DisclosureBasis {
  @PrimaryColumn({ name: 'disclosure_id', type: 'bigint' })
  disclosureId!: string;

  /** The disclosure's: an expired one needs no re-deciding, and retention removes it. */
  @Column({ name: 'expires_at', type: 'timestamptz' })
  expiresAt!: Date;

  @Column({ type: 'bigint', array: true })
  tags!: string[];
}
