import { Column, Entity, Index, Unique } from 'typeorm';
import { RecordEntity } from '../database/record.entity.js';

/** A protected resource type, e.g. `blood-glucose-level`. */
@Entity({ name: 'resource_definition' })
// Indexes of the admin interface's filters (docs/reference/admin-filters.md), made by migration 1764500000000;
// some are expression or hash indexes TypeORM cannot describe, so the schema builder leaves them alone.
@Index('IDX_resource_definition_fhir_query', { synchronize: false })
@Index('IDX_resource_definition_description', { synchronize: false })
@Index('IDX_resource_definition_search_name', { synchronize: false })
@Unique('UQ_resource_definition_name', ['name'])
@Index('IDX_resource_definition_fhir_resource_type', ['fhirResourceType'])
export class ResourceDefinition extends RecordEntity {
  @Column({ type: 'varchar', length: 255 })
  name!: string;

  @Column({ type: 'varchar', length: 2048, nullable: true })
  description!: string | null;

  /** The FHIR resource type this definition stands for in SMART scopes (docs/guides/smart-backend-services.md). */
  @Column({ name: 'fhir_resource_type', type: 'varchar', length: 64, nullable: true })
  fhirResourceType!: string | null;

  /** A FHIR search query narrowing the type (`category=laboratory`), compared as an exact string. */
  @Column({ name: 'fhir_query', type: 'varchar', length: 512, nullable: true })
  fhirQuery!: string | null;
}
