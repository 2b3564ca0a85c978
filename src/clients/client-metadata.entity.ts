import { Index, Column, Entity } from 'typeorm';
import { RecordEntity } from '../database/record.entity.js';

import type { ClientAuthenticationType } from '../oauth/client-authentication-methods.js';
export {
  CLIENT_AUTHENTICATION_METHODS as CLIENT_AUTHENTICATION_TYPES,
  holdsNoSecret,
  type ClientAuthenticationType,
} from '../oauth/client-authentication-methods.js';

@Entity({ name: 'client_metadata' })
// Indexes of the admin interface's filters (docs/reference/admin-filters.md), made by migration 1764500000000;
// some are expression or hash indexes TypeORM cannot describe, so the schema builder leaves them alone.
@Index('IDX_client_metadata_access_token_lifetime', { synchronize: false })
@Index('IDX_client_metadata_client_type', { synchronize: false })
@Index('IDX_client_metadata_authentication_type', { synchronize: false })
@Index('IDX_client_metadata_grant_types', { synchronize: false })
@Index('IDX_client_metadata_allowed_scopes', { synchronize: false })
@Index('IDX_client_metadata_issuer_uri', { synchronize: false })
@Index('IDX_client_metadata_jwks_uri', { synchronize: false })
@Index('IDX_client_metadata_jwks_raw', { synchronize: false })
@Index('IDX_client_metadata_meta_data_raw', { synchronize: false })
@Index('IDX_client_metadata_dpop_bound', { synchronize: false })
@Index('IDX_client_metadata_subject_dn', { synchronize: false })
@Index('IDX_client_metadata_san_dns', { synchronize: false })
@Index('IDX_client_metadata_san_uri', { synchronize: false })
@Index('IDX_client_metadata_san_ip', { synchronize: false })
@Index('IDX_client_metadata_san_email', { synchronize: false })
@Index('IDX_client_metadata_issuer_dn', { synchronize: false })
@Index('IDX_client_metadata_certificate_bound', { synchronize: false })
export class ClientMetadata extends RecordEntity {
  @Column({ name: 'issuer_uri', type: 'varchar', length: 2048, nullable: true })
  issuerUri!: string | null;

  @Column({ name: 'client_authentication_type', type: 'varchar', length: 32 })
  clientAuthenticationType!: ClientAuthenticationType;

  @Column({ name: 'client_type', type: 'varchar', length: 32, default: 'CONFIDENTIAL' })
  clientType!: string;

  /** Space-separated, as stored by the original service. */
  @Column({ name: 'grant_types', type: 'varchar', length: 255 })
  grantTypes!: string;

  @Column({ name: 'jwks_raw', type: 'text', nullable: true })
  jwksRaw!: string | null;

  @Column({ name: 'jwks_uri', type: 'varchar', length: 2048, nullable: true })
  jwksUri!: string | null;

  @Column({ name: 'meta_data_raw', type: 'text', nullable: true })
  metaDataRaw!: string | null;

  /** Space-separated scope names. */
  @Column({ name: 'allowed_scopes', type: 'text' })
  allowedScopes!: string;

  /** A scrypt hash (see client-secrets.ts); never the secret, never serialised. Null for private_key_jwt. */
  @Column({ name: 'client_secret_hash', type: 'varchar', length: 255, nullable: true, select: false })
  clientSecretHash!: string | null;

  /** docs/reference/token-endpoint.md#dpop-proofs: every token request of this client must carry a DPoP proof. */
  @Column({ name: 'dpop_bound_access_tokens', type: 'boolean', default: false })
  dpopBoundAccessTokens!: boolean;

  /** Seconds an access token of this client lives at most, instead of ACCESS_TOKEN_TTL; null: the default. */
  @Column({ name: 'access_token_lifetime', type: 'integer', nullable: true })
  accessTokenLifetime!: number | null;

  /** docs/guides/mtls.md#registering-a-client: a tls_client_auth client's one registered subject value (RFC 8705 §2.1.2). */
  @Column({ name: 'tls_client_auth_subject_dn', type: 'varchar', length: 2048, nullable: true })
  tlsClientAuthSubjectDn!: string | null;

  @Column({ name: 'tls_client_auth_san_dns', type: 'varchar', length: 2048, nullable: true })
  tlsClientAuthSanDns!: string | null;

  @Column({ name: 'tls_client_auth_san_uri', type: 'varchar', length: 2048, nullable: true })
  tlsClientAuthSanUri!: string | null;

  @Column({ name: 'tls_client_auth_san_ip', type: 'varchar', length: 2048, nullable: true })
  tlsClientAuthSanIp!: string | null;

  @Column({ name: 'tls_client_auth_san_email', type: 'varchar', length: 2048, nullable: true })
  tlsClientAuthSanEmail!: string | null;

  /** docs/guides/mtls.md#the-ca-file: a tls_client_auth client's issuer binding, the DN of the CA that must have issued its certificate; null: any CA of the file. */
  @Column({ name: 'tls_client_auth_issuer_dn', type: 'varchar', length: 2048, nullable: true })
  tlsClientAuthIssuerDn!: string | null;

  /** docs/guides/mtls.md#certificate-bound-tokens: access tokens carry cnf.x5t#S256 (RFC 8705 §3). */
  @Column({ name: 'tls_client_certificate_bound_access_tokens', type: 'boolean', default: false })
  tlsClientCertificateBoundAccessTokens!: boolean;
}
