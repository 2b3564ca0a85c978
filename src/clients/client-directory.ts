import { Injectable, Optional } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { ChangeFeed } from '../database/change-feed.js';
import { FeedCache } from '../database/feed-cache.js';
import { MetricsService } from '../metrics/metrics.service.js';
import { splitSpaced, type ClientRecord } from './client-record.js';

const CLIENT_TABLES = new Set(['client', 'client_metadata', 'redirect_uri']);

type Row = {
  id: number;
  client_id: string;
  client_name: string;
  client_authentication_type: ClientRecord['authenticationType'];
  client_type: string;
  grant_types: string;
  allowed_scopes: string;
  client_secret_hash: string | null;
  jwks_raw: string | null;
  jwks_uri: string | null;
  dpop_bound_access_tokens: boolean;
  access_token_lifetime: number | null;
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
              m.jwks_raw, m.jwks_uri, m.dpop_bound_access_tokens, m.access_token_lifetime
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
    };
  }
}
