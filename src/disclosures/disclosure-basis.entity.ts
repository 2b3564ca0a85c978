import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import type { CoveringChain } from '../tickets/access-decision.js';

/**
 * What disclosures' coverage rests on, one row per distinct basis, shared by every disclosure that
 * names its key: the covering chains as they were at issue time, and the tags
 * (src/disclosures/basis-tags.ts) of the client, the records of the chains and the data sources
 * the `aud` names. A change to a record finds the bases it touches through the GIN index on
 * `tags`, then their outstanding disclosures through `disclosure (basis, expires_at)`, never by
 * scanning every disclosure (docs/guides/consent-withdrawal.md).
 */
@Entity({ name: 'disclosure_basis' })
// TypeORM cannot declare a GIN index; the migration creates it and the schema diff leaves it alone.
@Index('IDX_disclosure_basis_tags', { synchronize: false })
export class DisclosureBasis {
  /** The first 128 bits of the SHA-256 of the chains and tags (src/disclosures/disclosures.service.ts). */
  @PrimaryColumn({ type: 'uuid', primaryKeyConstraintName: 'PK_disclosure_basis' })
  key!: string;

  @Column({ type: 'json' })
  chains!: CoveringChain[];

  @Column({ type: 'bigint', array: true })
  tags!: string[];
}
