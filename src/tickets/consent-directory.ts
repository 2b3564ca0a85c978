import { Injectable, Optional } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { ChangeFeed } from '../database/change-feed.js';
import { FeedCache } from '../database/feed-cache.js';
import { MetricsService } from '../metrics/metrics.service.js';
import type { CoveredResource } from './consent-coverage.js';

const TICKET_TABLES = new Set([
  'client', 'purpose', 'capability_ticket', 'resource_definition', 'requested_resource', 'scope',
  'requested_resource_scopes', 'requested_resources_capability_tickets',
]);

type Row = {
  requested_resource_key: number;
  requested_resource_id: string;
  max_permission_duration: number;
  definition: string;
  scope: string | null;
  ticket_id: string;
  purpose: string;
};

/** What each client's consent tickets cover, cached per client and kept fresh by the change feed. */
@Injectable()
export class ConsentDirectory {
  private readonly cache: FeedCache<number, CoveredResource[]>;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    changes: ChangeFeed,
    // Absent in the CLI, which counts nothing.
    @Optional() metrics?: MetricsService,
  ) {
    this.cache = new FeedCache(changes, TICKET_TABLES, metrics?.cacheCounter('consent_coverage'));
  }

  /** What the consent tickets of the client with this row id cover. */
  coveredFor(clientKey: number): Promise<CoveredResource[]> {
    return this.cache.get(clientKey, (key) => this.load(key));
  }

  /** One row per (combination, bound scope); a requested resource is kept once, with its first ticket. */
  private async load(clientKey: number): Promise<CoveredResource[]> {
    const rows: Row[] = await this.dataSource.query(
      `SELECT r.id AS requested_resource_key, r.requested_resource_id, r.max_permission_duration,
              d.name AS definition, s.name AS scope, t.ticket_id, p.name AS purpose
         FROM requested_resources_capability_tickets c
         JOIN capability_ticket t ON t.id = c.capability_ticket_id
         JOIN requested_resource r ON r.id = c.requested_resource_id
         JOIN resource_definition d ON d.id = r.resource_definition_id
         JOIN purpose p ON p.id = t.purpose_id
         LEFT JOIN requested_resource_scopes b ON b.requested_resource_id = r.id
         LEFT JOIN scope s ON s.id = b.scope_id AND s.resource_definition_id = r.resource_definition_id
        WHERE t.client_id = $1 AND r.client_id = $1
        ORDER BY r.id, c.id`,
      [clientKey],
    );
    const byResource = new Map<number, CoveredResource & { scopes: Set<string> }>();
    for (const row of rows) {
      let resource = byResource.get(row.requested_resource_key);
      if (!resource) {
        resource = {
          requestedResourceId: row.requested_resource_id,
          definition: row.definition,
          maxPermissionDuration: row.max_permission_duration,
          scopes: new Set(),
          ticketId: row.ticket_id,
          purpose: row.purpose,
        };
        byResource.set(row.requested_resource_key, resource);
      }
      if (row.scope !== null) resource.scopes.add(row.scope);
    }
    return [...byResource.values()];
  }
}
