import { Index, Column, Entity, JoinColumn, ManyToOne, type Relation } from 'typeorm';
import { Client } from '../clients/client.entity.js';
import { RecordEntity } from '../database/record.entity.js';
import { ResourceDefinition } from './resource-definition.entity.js';

/** Links a client to a resource definition, with the longest permission it may get. */
@Entity({ name: 'requested_resource' })
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
