import { Column, Entity, JoinColumn, OneToOne, PrimaryColumn, type Relation } from 'typeorm';
import { Client } from '../clients/client.entity.js';

/**
 * What a dynamically registered client keeps of its registration (docs/guides/dynamic-registration.md):
 * the hash of its registration access token (one per client, replaced by every update) and the
 * ceilings of the initial access token it registered with, copied so that they outlive that token.
 * Removed with the client.
 */
@Entity({ name: 'client_registration' })
export class ClientRegistrationRecord {
  @PrimaryColumn({ name: 'client_id', type: 'integer' })
  clientId!: number;

  @OneToOne(() => Client, { onDelete: 'CASCADE', nullable: false })
  @JoinColumn({ name: 'client_id' })
  client!: Relation<Client>;

  /** SHA-256 of the registration access token, base64url; never serialised. */
  @Column({ name: 'token_hash', type: 'varchar', length: 64 })
  tokenHash!: string;

  @Column({ name: 'scope_ceiling', type: 'text' })
  scopeCeiling!: string;

  @Column({ name: 'grant_types', type: 'varchar', length: 255 })
  grantTypes!: string;

  @Column({ name: 'auth_methods', type: 'varchar', length: 255 })
  authMethods!: string;

  @Column({ name: 'access_token_lifetime', type: 'integer', nullable: true })
  accessTokenLifetime!: number | null;
}
