import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { ChangeFeed } from '../database/change-feed.js';
import { splitSpaced, type ClientRecord } from './client-record.js';

const CLIENT_TABLES = new Set(['client', 'client_metadata', 'redirect_uri']);
// Bounded, so that a flood of random client ids cannot grow memory without limit.
const MAX_ENTRIES = 100_000;

type Row = {
  id: number;
  client_id: string;
  client_name: string;
  client_authentication_type: ClientRecord['authenticationType'];
  client_type: string;
  grant_types: string;
  allowed_scopes: string;
  client_secret_hash: string;
};

/**
 * The token endpoint's view of clients: an in-process cache (unknown ids included) that the
 * change feed empties on any write to the client tables, from any process. While the feed is
 * down the cache is bypassed, so a change is never missed for more than the feed's ping.
 */
@Injectable()
export class ClientDirectory {
  private readonly entries = new Map<string, ClientRecord | null>();
  private generation = 0;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly changes: ChangeFeed,
  ) {
    changes.subscribe((table) => {
      if (table === undefined || CLIENT_TABLES.has(table)) this.clear();
    });
  }

  async find(clientId: string): Promise<ClientRecord | null> {
    const cached = this.changes.live ? this.entries.get(clientId) : undefined;
    if (cached !== undefined) return cached;
    const generation = this.generation;
    const record = await this.load(clientId);
    // A change heard while loading may postdate what was read: do not keep it.
    if (this.changes.live && generation === this.generation) this.remember(clientId, record);
    return record;
  }

  private clear(): void {
    this.generation += 1;
    this.entries.clear();
  }

  private remember(clientId: string, record: ClientRecord | null): void {
    if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(clientId, record);
  }

  private async load(clientId: string): Promise<ClientRecord | null> {
    const rows: Row[] = await this.dataSource.query(
      `SELECT c.id, c.client_id, c.client_name, m.client_authentication_type, m.client_type,
              m.grant_types, m.allowed_scopes, m.client_secret_hash
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
      secretHash: row.client_secret_hash,
    };
  }
}
