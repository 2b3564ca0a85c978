import { Column, Entity, Index } from 'typeorm';
import { RecordEntity } from '../database/record.entity.js';

/**
 * A UDAP trust community (JSON:API type `trust-community`, docs/reference/trust-communities.md):
 * the certificate authorities whose certificates vouch for its member organizations, and what a
 * member may register and ask for.
 */
@Entity({ name: 'trust_community' })
// The prefix index of the name's search (migration 1765400000000), which TypeORM cannot describe.
@Index('IDX_trust_community_search_name', { synchronize: false })
export class TrustCommunity extends RecordEntity {
  @Index('IDX_trust_community_name')
  @Column({ type: 'varchar', length: 255 })
  name!: string;

  @Index('IDX_trust_community_community_uri', { unique: true })
  @Column({ name: 'community_uri', type: 'varchar', length: 2048 })
  communityUri!: string;

  /** PEM certificates, each a CA within its validity. */
  @Column({ type: 'jsonb' })
  anchors!: string[];

  /** Space-separated scope names a member may register. */
  @Column({ name: 'scope_ceiling', type: 'text' })
  scopeCeiling!: string;

  /** Purpose-of-use codes a member may assert; empty: any. */
  @Column({ name: 'purposes_of_use', type: 'jsonb', default: () => "'[]'" })
  purposesOfUse!: string[];

  @Column({ name: 'revocation_check', type: 'varchar', length: 8, default: 'require' })
  revocationCheck!: 'require' | 'off';

  @Column({ name: 'access_token_lifetime', type: 'integer', default: 3600 })
  accessTokenLifetime!: number;

  /** The community's own server certificate for discovery: a PEM chain, leaf first; null: the server's (UDAP_CERT_FILE). */
  @Column({ name: 'server_certificate', type: 'text', nullable: true })
  serverCertificate!: string | null;

  /** Its leaf's private key, sealed with KEY_ENCRYPTION_SECRET when set (keys/key-encryption.ts); never returned. */
  @Column({ name: 'server_key', type: 'text', nullable: true })
  serverKey!: string | null;

  @Index('IDX_trust_community_enabled')
  @Column({ type: 'boolean', default: true })
  enabled!: boolean;
}
