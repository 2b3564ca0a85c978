import { Index, Column, Entity, Unique } from 'typeorm';
import { RecordEntity } from '../database/record.entity.js';

/** A protected resource type, e.g. `blood-glucose-level`. */
@Entity({ name: 'resource_definition' })
// Indexes of the admin interface's filters (docs/reference/admin-filters.md), made by migration 1764500000000;
// some are expression or hash indexes TypeORM cannot describe, so the schema builder leaves them alone.
@Index('IDX_resource_definition_description', { synchronize: false })
@Index('IDX_resource_definition_search_name', { synchronize: false })
@Unique('UQ_resource_definition_name', ['name'])
export class ResourceDefinition extends RecordEntity {
  @Column({ type: 'varchar', length: 255 })
  name!: string;

  @Column({ type: 'varchar', length: 2048, nullable: true })
  description!: string | null;
}
