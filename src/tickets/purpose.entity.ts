import { Index, Column, Entity } from 'typeorm';
import { RecordEntity } from '../database/record.entity.js';

/** The message shown to an end user about why access is asked for. */
@Entity({ name: 'purpose' })
// Indexes of the admin interface's filters (docs/reference/admin-filters.md), made by migration 1764500000000;
// some are expression or hash indexes TypeORM cannot describe, so the schema builder leaves them alone.
@Index('IDX_purpose_name', { synchronize: false })
@Index('IDX_purpose_search_name', { synchronize: false })
export class Purpose extends RecordEntity {
  @Column({ type: 'varchar', length: 1024 })
  name!: string;

  /** The purpose-of-use codes a UDAP request may assert to be covered (docs/concepts/consent-tickets.md#purpose-of-use). */
  @Column({ name: 'purposes_of_use', type: 'text', array: true, default: () => "'{}'" })
  purposesOfUse!: string[];
}
