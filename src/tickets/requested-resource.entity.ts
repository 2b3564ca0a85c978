import { Index, Column, Entity, JoinColumn, ManyToOne, type Relation } from 'typeorm';
import { Client } from '../clients/client.entity.js';
import { RecordEntity } from '../database/record.entity.js';
import { ResourceDefinition } from './resource-definition.entity.js';

/** Links a client to a resource definition, with the longest permission it may get. */
@Entity({ name: 'requested_resource' })
// Indexes of the admin interface's filters (docs/reference/admin-filters.md), made by migration 1764500000000;
// some are expression or hash indexes TypeORM cannot describe, so the schema builder leaves them alone.
@Index('IDX_requested_resource_max_duration', { synchronize: false })
@Index('IDX_requested_resource_requested_id', { synchronize: false })
@Index('IDX_requested_resource_definition', { synchronize: false })
@Index('IDX_requested_resource_client', ['umaClient'])
export class RequestedResource extends RecordEntity {
  /** Seconds. */
  @Column({ name: 'max_permission_duration', type: 'integer' })
  maxPermissionDuration!: number;

  @Column({ name: 'requested_resource_id', type: 'varchar', length: 255 })
  requestedResourceId!: string;

  @ManyToOne(() => ResourceDefinition, { nullable: false, onDelete: 'RESTRICT' })
  @JoinColumn({ name: 'resource_definition_id' })
  resourceDefinition!: Relation<ResourceDefinition>;

  @ManyToOne(() => Client, { nullable: false, onDelete: 'RESTRICT' })
  @JoinColumn({ name: 'client_id' })
  umaClient!: Relation<Client>;
}
