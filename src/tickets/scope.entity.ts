import { Column, Entity, JoinColumn, ManyToOne, Unique, type Relation } from 'typeorm';
import { RecordEntity } from '../database/record.entity.js';
import { ResourceDefinition } from './resource-definition.entity.js';

/** A scope of a resource definition (`read` of `blood-glucose-level`). */
@Entity({ name: 'scope' })
@Unique('UQ_scope_name_per_definition', ['resourceDefinition', 'name'])
export class Scope extends RecordEntity {
  @Column({ type: 'varchar', length: 255 })
  name!: string;

  @ManyToOne(() => ResourceDefinition, { nullable: false, onDelete: 'RESTRICT' })
  @JoinColumn({ name: 'resource_definition_id' })
  resourceDefinition!: Relation<ResourceDefinition>;
}
