import { Column, Entity, Index, JoinColumn, ManyToOne, Unique, type Relation } from 'typeorm';
import { Client } from '../clients/client.entity.js';
import { RecordEntity } from '../database/record.entity.js';

export const DATA_SOURCE_KINDS = ['resource-server', 'identity-provider'] as const;
export type DataSourceKind = (typeof DATA_SOURCE_KINDS)[number];

/**
 * A data source (docs/concepts/consent-tickets.md#data-sources, docs/concepts/audience.md): a
 * resource server holding the data, or an identity provider. Its `resourceUri` is the RFC 8707
 * resource indicator and the `aud` of tokens meant for it. Named `DataSourceEntity` so as not to
 * shadow TypeORM's `DataSource`.
 */
@Entity({ name: 'data_source' })
// Indexes of the admin interface's filters (docs/reference/admin-filters.md), made by migration 1764500000000;
// some are expression or hash indexes TypeORM cannot describe, so the schema builder leaves them alone.
@Index('IDX_data_source_name', { synchronize: false })
@Index('IDX_data_source_kind', { synchronize: false })
@Index('IDX_data_source_search_name', { synchronize: false })
@Index('IDX_data_source_search_resource_uri', { synchronize: false })
@Unique('UQ_data_source_resource_uri', ['resourceUri'])
@Index('IDX_data_source_client', ['umaClient'])
export class DataSourceEntity extends RecordEntity {
  @Column({ type: 'varchar', length: 255 })
  name!: string;

  @Column({ type: 'varchar', length: 32 })
  kind!: DataSourceKind;

  @Column({ name: 'resource_uri', type: 'varchar', length: 2048 })
  resourceUri!: string;

  /** The client it introspects with (allowed `uma_protection`). */
  @ManyToOne(() => Client, { nullable: true, onDelete: 'RESTRICT' })
  @JoinColumn({ name: 'client_id' })
  umaClient!: Relation<Client> | null;
}
