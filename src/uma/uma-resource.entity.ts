import { Column, Entity, Index, JoinColumn, ManyToOne, Unique, type Relation } from 'typeorm';
import { Client } from '../clients/client.entity.js';
import { RecordEntity } from '../database/record.entity.js';
import { ResourceDefinition } from '../tickets/resource-definition.entity.js';

/**
 * A resource a data source's umaClient registered at the protection API (docs/guides/uma.md):
 * its opaque `_id` (`resourceId`), the client that owns it, the resource definition its `type`
 * names, and its optional description. Its scopes are UmaResourceScope rows. The client, the
 * definition and the scopes cannot be removed while a resource uses them.
 */
@Entity({ name: 'uma_resource' })
@Unique('UQ_uma_resource_resource_id', ['resourceId'])
@Index('IDX_uma_resource_client', ['client'])
@Index('IDX_uma_resource_definition', ['resourceDefinition'])
export class UmaResource extends RecordEntity {
  @Column({ name: 'resource_id', type: 'varchar', length: 64 })
  resourceId!: string;

  @ManyToOne(() => Client, { nullable: false, onDelete: 'RESTRICT' })
  @JoinColumn({ name: 'client_id' })
  client!: Relation<Client>;

  @ManyToOne(() => ResourceDefinition, { nullable: false, onDelete: 'RESTRICT' })
  @JoinColumn({ name: 'resource_definition_id' })
  resourceDefinition!: Relation<ResourceDefinition>;

  @Column({ type: 'varchar', length: 255, nullable: true })
  name!: string | null;

  @Column({ type: 'varchar', length: 2000, nullable: true })
  description!: string | null;

  @Column({ name: 'icon_uri', type: 'varchar', length: 2048, nullable: true })
  iconUri!: string | null;
}
