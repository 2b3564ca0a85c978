import type { AdministratorCeilings } from './administrator-ceilings.js';
import { Index, Column, Entity, JoinColumn, ManyToOne, OneToMany, OneToOne, type Relation } from 'typeorm';
import { InitialAccessToken } from './initial-access-token.entity.js';
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
@Index('IDX_client_udap_member', ['trustCommunityId', 'udapIssuer'], { unique: true })
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

  /** How the client came to be (docs/guides/dynamic-registration.md): `admin`, `cli` or `dcr`. */
  @Index('IDX_client_registered_via')
  @Column({ name: 'registered_via', type: 'varchar', length: 8, default: 'admin' })
  registeredVia!: string;

  /** The initial access token a dynamically registered client used; null once that token is removed. */
  @Index('IDX_client_initial_access_token_id')
  @ManyToOne(() => InitialAccessToken, { nullable: true, onDelete: 'SET NULL' })
  @JoinColumn({ name: 'initial_access_token_id' })
  initialAccessToken!: Relation<InitialAccessToken> | null;

  /** false: an administrator froze the client's own management of its registration (RFC 7592 PUT and DELETE). */
  @Column({ name: 'registration_management', type: 'boolean', default: true })
  registrationManagement!: boolean;

  /** What an administrator set on a dynamically registered client since: ceilings of its RFC 7592 updates; null: nothing. */
  @Column({ name: 'administrator_ceilings', type: 'jsonb', nullable: true })
  administratorCeilings!: AdministratorCeilings | null;

  /** The contacts a dynamically registered client gave, as a JSON array of strings; null: none. */
  @Column({ type: 'text', nullable: true })
  contacts!: string | null;

  @Column({ name: 'software_id', type: 'varchar', length: 255, nullable: true })
  softwareId!: string | null;

  @Column({ name: 'software_version', type: 'varchar', length: 255, nullable: true })
  softwareVersion!: string | null;

  /** A UDAP client's trust community (its row id; no foreign key, migration 1765410000000); null: not UDAP. */
  @Column({ name: 'trust_community_id', type: 'integer', nullable: true })
  trustCommunityId!: number | null;

  /** A UDAP client's identity in its community: the SAN URI its software statement's `iss` named. */
  @Column({ name: 'udap_issuer', type: 'varchar', length: 2048, nullable: true })
  udapIssuer!: string | null;

  /** A UDAP client's organization: its certificate's subject DN. */
  @Column({ type: 'text', nullable: true })
  organization!: string | null;
}
