import { Column, Entity, JoinColumn, ManyToOne, Unique, type Relation } from 'typeorm';
import { RecordEntity } from '../database/record.entity.js';
import { ResourceDefinition } from './resource-definition.entity.js';

/** A scope of a resource definition (`read` of `blood-glucose-level`). */
@Entity({ name: 'scope' })
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
