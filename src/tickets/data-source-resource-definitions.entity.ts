import { Entity, Index, JoinColumn, ManyToOne, Unique, type Relation } from 'typeorm';
import { RecordEntity } from '../database/record.entity.js';
import { DataSourceEntity } from './data-source.entity.js';
import { ResourceDefinition } from './resource-definition.entity.js';

/** A resource type a data source serves; one pair at most once. */
@Entity({ name: 'data_source_resource_definitions' })
@Unique('UQ_data_source_resource_definition', ['dataSource', 'resourceDefinition'])
@Index('IDX_data_source_resource_definitions_definition', ['resourceDefinition'])
export class DataSourceResourceDefinitions extends RecordEntity {
  @ManyToOne(() => DataSourceEntity, { nullable: false, onDelete: 'RESTRICT' })
  @JoinColumn({ name: 'data_source_id' })
  dataSource!: Relation<DataSourceEntity>;

  @ManyToOne(() => ResourceDefinition, { nullable: false, onDelete: 'RESTRICT' })
  @JoinColumn({ name: 'resource_definition_id' })
  resourceDefinition!: Relation<ResourceDefinition>;
}
