import { Column, Entity, Unique } from 'typeorm';
import { RecordEntity } from '../database/record.entity.js';

/** A protected resource type, e.g. `blood-glucose-level`. */
@Entity({ name: 'resource_definition' })
@Unique('UQ_resource_definition_name', ['name'])
export class ResourceDefinition extends RecordEntity {
  @Column({ type: 'varchar', length: 255 })
  name!: string;

  @Column({ type: 'varchar', length: 2048, nullable: true })
  description!: string | null;
}
