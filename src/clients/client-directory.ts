import { Injectable, Optional } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { ChangeFeed } from '../database/change-feed.js';
import { FeedCache } from '../database/feed-cache.js';
import { MetricsService } from '../metrics/metrics.service.js';
import { splitSpaced, type ClientRecord } from './client-record.js';
import type { SubjectRule } from '../certificates/subject-rules.js';
import type { ClientRow } from './client-rows.js';

const CLIENT_TABLES = new Set(['client', 'client_metadata', 'redirect_uri']);

/** The columns the token endpoint needs (a ClientRow's, and the secret's hash, which only it reads). */
type Row = Pick<
  ClientRow,
  | 'id'
  | 'client_id'
  | 'client_name'
  | 'client_type'
  | 'grant_types'
  | 'allowed_scopes'
  | 'jwks_raw'
  | 'jwks_uri'
  | 'dpop_bound_access_tokens'
  | 'access_token_lifetime'
  | 'tls_client_auth_subject_dn'
  | 'tls_client_auth_san_dns'
  | 'tls_client_auth_san_uri'
  | 'tls_client_auth_san_ip'
  | 'tls_client_auth_san_email'
  | 'tls_client_auth_issuer_dn'
  | 'tls_client_certificate_bound_access_tokens'
  | 'date_created'
> & {
  client_authentication_type: ClientRecord['authenticationType'];
  client_secret_hash: string | null;
  trust_community_id: number | null;
  udap_issuer: string | null;
};

/**
 * The token endpoint's view of clients: an in-process cache (unknown ids included) kept fresh
 * by the change feed, from any process.
 */
@Injectable()
export class ClientDirectory {
  private readonly cache: FeedCache<string, ClientRecord | null>;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    changes: ChangeFeed,
    // Absent in the CLI, which counts nothing.
    @Optional() metrics?: MetricsService,
  ) {
    this.cache = new FeedCache(changes, CLIENT_TABLES, metrics?.cacheCounter('clients'));
  }

  find(clientId: string): Promise<ClientRecord | null> {
    return this.cache.get(clientId, (key) => this.load(key));
  }

  private async load(clientId: string): Promise<ClientRecord | null> {
    const rows: Row[] = await this.dataSource.query(
      `SELECT c.id, c.client_id, c.client_name, m.client_authentication_type, m.client_type,
              m.grant_types, m.allowed_scopes, m.client_secret_hash,
              m.jwks_raw, m.jwks_uri, m.dpop_bound_access_tokens, m.access_token_lifetime,
              m.tls_client_auth_subject_dn, m.tls_client_auth_san_dns, m.tls_client_auth_san_uri, m.tls_client_auth_san_ip,
              m.tls_client_auth_san_email, m.tls_client_auth_issuer_dn, m.tls_client_certificate_bound_access_tokens, c.date_created,
              c.trust_community_id, c.udap_issuer
         FROM client c JOIN client_metadata m ON m.id = c.metadata_id
        WHERE c.client_id = $1`,
      [clientId],
    );
    const row = rows[0];
    if (!row) return null;
    return {
      id: row.id,
      clientId: row.client_id,
      clientName: row.client_name,
      authenticationType: row.client_authentication_type,
      clientType: row.client_type,
      grantTypes: splitSpaced(row.grant_types),
      allowedScopes: splitSpaced(row.allowed_scopes),
      secretHash: row.client_secret_hash ?? '',
      jwksRaw: row.jwks_raw,
      jwksUri: row.jwks_uri,
      dpopBound: row.dpop_bound_access_tokens,
      accessTokenLifetime: row.access_token_lifetime,
      tlsSubject: subjectRuleOf(row),
      tlsIssuer: row.tls_client_auth_issuer_dn,
      certificateBound: row.tls_client_certificate_bound_access_tokens,
      createdAt: row.date_created.getTime(),
      trustCommunityId: row.trust_community_id,
      udapIssuer: row.udap_issuer,
    };
  }
}

/** The one registered tls_client_auth value (registration allows no more than one). */
function subjectRuleOf(row: Row): SubjectRule | null {
  if (row.tls_client_auth_subject_dn !== null) return { kind: 'subjectDn', value: row.tls_client_auth_subject_dn };
  if (row.tls_client_auth_san_dns !== null) return { kind: 'sanDns', value: row.tls_client_auth_san_dns };
  if (row.tls_client_auth_san_uri !== null) return { kind: 'sanUri', value: row.tls_client_auth_san_uri };
  if (row.tls_client_auth_san_ip !== null) return { kind: 'sanIp', value: row.tls_client_auth_san_ip };
  if (row.tls_client_auth_san_email !== null) return { kind: 'sanEmail', value: row.tls_client_auth_san_email };
  return null;
}
