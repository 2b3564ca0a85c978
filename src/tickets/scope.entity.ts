import { Index, Column, Entity, JoinColumn, ManyToOne, Unique, type Relation } from 'typeorm';
import { RecordEntity } from '../database/record.entity.js';
import { ResourceDefinition } from './resource-definition.entity.js';

/** A scope of a resource definition (`read` of `blood-glucose-level`). */
@Entity({ name: 'scope' })
// Indexes of the admin interface's filters (docs/reference/admin-filters.md), made by migration 1764500000000;
// some are expression or hash indexes TypeORM cannot describe, so the schema builder leaves them alone.
@Index('IDX_scope_smart_permissions', { synchronize: false })
@Index('IDX_scope_name', { synchronize: false })
@Unique('UQ_scope_name_per_definition', ['resourceDefinition', 'name'])
export class Scope extends RecordEntity {
  @Column({ type: 'varchar', length: 255 })
  name!: string;

  /** The SMART permission letters this scope grants: an in-order subset of `cruds` (docs/guides/smart-backend-services.md). */
  @Column({ name: 'smart_permissions', type: 'varchar', length: 5, nullable: true })
  smartPermissions!: string | null;

  @ManyToOne(() => ResourceDefinition, { nullable: false, onDelete: 'RESTRICT' })
  @JoinColumn({ name: 'resource_definition_id' })
  resourceDefinition!: Relation<ResourceDefinition>;
}
