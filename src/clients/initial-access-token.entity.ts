import { Column, Entity, Index } from 'typeorm';
import { RecordEntity } from '../database/record.entity.js';

/**
 * An initial access token (JSON:API type `initial-access-token`, docs/guides/dynamic-registration.md):
 * what an administrator hands a client so that it can register itself, within ceilings. The token
 * is shown once and stored only as its SHA-256 hash.
 */
@Entity({ name: 'initial_access_token' })
// The prefix index of the name's search (migration 1765210000000), which TypeORM cannot describe.
@Index('IDX_initial_access_token_search_name', { synchronize: false })
export class InitialAccessToken extends RecordEntity {
  @Index('IDX_initial_access_token_name')
  @Column({ type: 'varchar', length: 255 })
  name!: string;

  /** SHA-256 of the token, base64url; never serialised. */
  @Index('IDX_initial_access_token_token_hash', { unique: true })
  @Column({ name: 'token_hash', type: 'varchar', length: 64, select: false })
  tokenHash!: string;

  /** Space-separated scope names a registered client may hold. */
  @Column({ name: 'scope_ceiling', type: 'text' })
  scopeCeiling!: string;

  /** Space-separated grant types a registered client may have (client_credentials always among them). */
  @Column({ name: 'grant_types', type: 'varchar', length: 255 })
  grantTypes!: string;

  /** Space-separated token endpoint authentication methods a registered client may use. */
  @Column({ name: 'auth_methods', type: 'varchar', length: 255 })
  authMethods!: string;

  /** Given to every client registered with it; null: ACCESS_TOKEN_TTL. */
  @Column({ name: 'access_token_lifetime', type: 'integer', nullable: true })
  accessTokenLifetime!: number | null;

  @Column({ name: 'max_uses', type: 'integer' })
  maxUses!: number;

  @Column({ type: 'integer', default: 0 })
  uses!: number;

  @Column({ name: 'expires_at', type: 'timestamptz' })
  expiresAt!: Date;

  @Column({ name: 'last_used_at', type: 'timestamptz', nullable: true })
  lastUsedAt!: Date | null;
}
