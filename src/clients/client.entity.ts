import { Index, Column, Entity, JoinColumn, OneToMany, OneToOne, type Relation } from 'typeorm';
import { RecordEntity } from '../database/record.entity.js';
import { ClientMetadata } from './client-metadata.entity.js';
import { RedirectUri } from './redirect-uri.entity.js';

/** The client registration (JSON:API type `uma-client`). */
@Entity({ name: 'client' })
// Indexes of the admin interface's filters (docs/reference/admin-filters.md), made by migration 1764500000000;
// some are expression or hash indexes TypeORM cannot describe, so the schema builder leaves them alone.
@Index('IDX_client_client_name', { synchronize: false })
@Index('IDX_client_search_client_id', { synchronize: false })
@Index('IDX_client_search_client_name', { synchronize: false })
export class Client extends RecordEntity {
  @Column({ name: 'client_id', type: 'varchar', length: 255, unique: true })
  clientId!: string;

  @Column({ name: 'client_name', type: 'varchar', length: 255 })
  clientName!: string;

  @OneToOne(() => ClientMetadata, { cascade: true, nullable: false, onDelete: 'RESTRICT' })
  @JoinColumn({ name: 'metadata_id' })
  metadata!: Relation<ClientMetadata>;

  @OneToMany(() => RedirectUri, (redirectUri) => redirectUri.client, { cascade: true })
  redirectUris!: Relation<RedirectUri>[];
}
