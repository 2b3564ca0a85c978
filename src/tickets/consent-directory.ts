import { Injectable, Optional } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { ChangeFeed } from '../database/change-feed.js';
import { FeedCache } from '../database/feed-cache.js';
import { MetricsService } from '../metrics/metrics.service.js';
import type { HeldCombination, HeldResource } from './access-decision.js';

const TICKET_TABLES = new Set([
  'client',
  'purpose',
  'capability_ticket',
  'resource_definition',
  'requested_resource',
  'scope',
  'requested_resource_scopes',
  'requested_resources_capability_tickets',
]);

type Row = {
  id: number;
  requested_resource_id: string;
  max_permission_duration: number;
  definition: string;
  bindings: { id: number; scope: string }[];
  combinations: { id: number; ticket_key: number; ticket_id: string; ticket_name: string; purpose_key: number; purpose: string; purposes_of_use: string[] }[];
};

/** The requested resources of each client with their bindings and combinations, cached per client and kept fresh by the change feed. */
@Injectable()
export class ConsentDirectory {
  private readonly cache: FeedCache<number, HeldResource[]>;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    changes: ChangeFeed,
    // Absent in the CLI, which counts nothing.
    @Optional() metrics?: MetricsService,
  ) {
    this.cache = new FeedCache(changes, TICKET_TABLES, metrics?.cacheCounter('consent_coverage'));
  }

  /** What the client with this row id holds; `fresh` reads the database and counts nothing (explain). */
  heldBy(clientKey: number, fresh = false): Promise<HeldResource[]> {
    return fresh ? this.load(clientKey) : this.cache.get(clientKey, (key) => this.load(key));
  }

  /**
   * Every requested resource of the client, its scope bindings (scopes of its own definition) and
   * its combinations with capability tickets of the same client, each in id order.
   */
  private async load(clientKey: number): Promise<HeldResource[]> {
    const rows: Row[] = await this.dataSource.query(
      `SELECT r.id, r.requested_resource_id, r.max_permission_duration, d.name AS definition,
              COALESCE((SELECT json_agg(json_build_object('id', b.id, 'scope', s.name) ORDER BY b.id)
                          FROM requested_resource_scopes b
                          JOIN scope s ON s.id = b.scope_id AND s.resource_definition_id = r.resource_definition_id
                         WHERE b.requested_resource_id = r.id), '[]') AS bindings,
              COALESCE((SELECT json_agg(json_build_object('id', c.id, 'ticket_key', t.id, 'ticket_id', t.ticket_id,
                                 'ticket_name', t.ticket_name, 'purpose_key', p.id, 'purpose', p.name,
                                 'purposes_of_use', p.purposes_of_use) ORDER BY c.id)
                          FROM requested_resources_capability_tickets c
                          JOIN capability_ticket t ON t.id = c.capability_ticket_id
                          JOIN purpose p ON p.id = t.purpose_id
                         WHERE c.requested_resource_id = r.id AND t.client_id = $1), '[]') AS combinations
         FROM requested_resource r
         JOIN resource_definition d ON d.id = r.resource_definition_id
        WHERE r.client_id = $1
        ORDER BY r.id`,
      [clientKey],
    );
    return rows.map((row) => {
      const bindings = new Map<string, number[]>();
      for (const binding of row.bindings) bindings.set(binding.scope, [...(bindings.get(binding.scope) ?? []), binding.id]);
      const combinations: HeldCombination[] = row.combinations.map((combination) => ({
        id: combination.id,
        ticket: { id: combination.ticket_key, ticketId: combination.ticket_id, ticketName: combination.ticket_name },
        purpose: { id: combination.purpose_key, name: combination.purpose, purposesOfUse: combination.purposes_of_use },
      }));
      return {
        id: row.id,
        requestedResourceId: row.requested_resource_id,
        definition: row.definition,
        maxPermissionDuration: row.max_permission_duration,
        bindings,
        combinations,
      };
    });
  }
}
