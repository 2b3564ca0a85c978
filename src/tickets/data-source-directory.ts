import { Injectable, Optional } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { ChangeFeed } from '../database/change-feed.js';
import { FeedCache } from '../database/feed-cache.js';
import { MetricsService } from '../metrics/metrics.service.js';
import type { DataSourceFacts, DefinitionFacts, MappedDefinition } from './access-decision.js';

// What each cache is derived from; a write to any of them (from any process) empties it.
const DEFINITION_TABLES = new Set(['resource_definition', 'scope', 'data_source', 'data_source_resource_definitions']);
const DATA_SOURCE_TABLES = new Set(['resource_definition', 'data_source', 'data_source_resource_definitions']);
const INTROSPECTION_TABLES = new Set(['data_source']);
const MAPPING_TABLES = new Set(['resource_definition', 'scope']);
const DELEGATION_TABLES = new Set(['data_source', 'data_source_delegation']);

/** A delegation (docs/guides/token-exchange.md#delegations): the resource scopes it allows; empty: every scope `to` serves. */
export type DelegationFacts = { scopes: string[] };

/**
 * Resource definitions (their scopes and the data sources serving them) by name, data sources by
 * resourceUri, and the data sources each client introspects for: cached per key, so the token
 * endpoint pays a map lookup per requested definition, however many data sources are enrolled.
 */
@Injectable()
export class DataSourceDirectory {
  private readonly definitions: FeedCache<string, DefinitionFacts | null>;
  private readonly dataSources: FeedCache<string, DataSourceFacts | null>;
  private readonly introspection: FeedCache<number, string[]>;
  private readonly mapping: FeedCache<'all', MappedDefinition[]>;
  private readonly delegations: FeedCache<string, DelegationFacts | null>;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    changes: ChangeFeed,
    @Optional() metrics?: MetricsService,
  ) {
    this.definitions = new FeedCache(changes, DEFINITION_TABLES, metrics?.cacheCounter('resource_definitions'));
    this.dataSources = new FeedCache(changes, DATA_SOURCE_TABLES, metrics?.cacheCounter('data_sources'));
    this.introspection = new FeedCache(changes, INTROSPECTION_TABLES, metrics?.cacheCounter('introspecting_data_sources'));
    this.mapping = new FeedCache(changes, MAPPING_TABLES, metrics?.cacheCounter('fhir_mappings'));
    this.delegations = new FeedCache(changes, DELEGATION_TABLES, metrics?.cacheCounter('delegations'));
  }

  /**
   * Every definition mapped to a FHIR type with its scopes that have SMART permissions, by type,
   * then query (no query first): what SMART scopes resolve against.
   */
  mappedDefinitions(fresh = false): Promise<MappedDefinition[]> {
    return fresh ? this.loadMapped() : this.mapping.get('all', () => this.loadMapped());
  }

  /** A definition by name, with its scopes and the resourceUri of every data source serving it (null: none of that name). */
  definition(name: string, fresh = false): Promise<DefinitionFacts | null> {
    return fresh ? this.loadDefinition(name) : this.definitions.get(name, (key) => this.loadDefinition(key));
  }

  /** An enrolled data source by resourceUri (null: none). */
  byResourceUri(uri: string, fresh = false): Promise<DataSourceFacts | null> {
    return fresh ? this.loadDataSource(uri) : this.dataSources.get(uri, (key) => this.loadDataSource(key));
  }

  /** The resourceUri of every data source whose umaClient is the client with this row id. */
  introspectedBy(clientKey: number): Promise<string[]> {
    return this.introspection.get(clientKey, async (key) => {
      const rows: { resource_uri: string }[] = await this.dataSource.query('SELECT resource_uri FROM data_source WHERE client_id = $1 ORDER BY id', [key]);
      return rows.map((row) => row.resource_uri);
    });
  }

  /** The delegation from the data source `fromUri` to `toUri` (both resourceUris), or null when that pair is not delegated. */
  delegation(fromUri: string, toUri: string): Promise<DelegationFacts | null> {
    return this.delegations.get(`${fromUri}\n${toUri}`, async () => {
      const [row]: { scopes: string[] }[] = await this.dataSource.query(
        `SELECT g.scopes FROM data_source_delegation g JOIN data_source f ON f.id = g.from_id JOIN data_source t ON t.id = g.to_id
          WHERE f.resource_uri = $1 AND t.resource_uri = $2`,
        [fromUri, toUri],
      );
      return row ? { scopes: row.scopes } : null;
    });
  }

  private async loadDefinition(name: string): Promise<DefinitionFacts | null> {
    const [row]: { name: string; scopes: string[]; served_by: string[] }[] = await this.dataSource.query(
      `SELECT d.name,
              ARRAY(SELECT s.name FROM scope s WHERE s.resource_definition_id = d.id) AS scopes,
              ARRAY(SELECT ds.resource_uri FROM data_source_resource_definitions x JOIN data_source ds ON ds.id = x.data_source_id
                     WHERE x.resource_definition_id = d.id ORDER BY ds.id) AS served_by
         FROM resource_definition d WHERE d.name = $1`,
      [name],
    );
    return row ? { name: row.name, scopes: new Set(row.scopes), servedBy: row.served_by } : null;
  }

  private async loadMapped(): Promise<MappedDefinition[]> {
    const rows: { name: string; fhir_resource_type: string; fhir_query: string | null; scopes: { name: string; smartPermissions: string }[] }[] =
      await this.dataSource.query(
        `SELECT d.name, d.fhir_resource_type, d.fhir_query,
              COALESCE((SELECT json_agg(json_build_object('name', s.name, 'smartPermissions', s.smart_permissions) ORDER BY s.name)
                          FROM scope s WHERE s.resource_definition_id = d.id AND s.smart_permissions IS NOT NULL), '[]') AS scopes
         FROM resource_definition d
        WHERE d.fhir_resource_type IS NOT NULL
        ORDER BY d.fhir_resource_type COLLATE "C", d.fhir_query COLLATE "C" NULLS FIRST, d.id`,
      );
    return rows.map((row) => ({ name: row.name, fhirResourceType: row.fhir_resource_type, fhirQuery: row.fhir_query, scopes: row.scopes }));
  }

  private async loadDataSource(uri: string): Promise<DataSourceFacts | null> {
    const [row]: { resource_uri: string; serves: string[] }[] = await this.dataSource.query(
      `SELECT ds.resource_uri,
              ARRAY(SELECT d.name FROM data_source_resource_definitions x JOIN resource_definition d ON d.id = x.resource_definition_id
                     WHERE x.data_source_id = ds.id) AS serves
         FROM data_source ds WHERE ds.resource_uri = $1`,
      [uri],
    );
    return row ? { resourceUri: row.resource_uri, serves: new Set(row.serves) } : null;
  }
}
