import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The admin interface's filters on the SMART attributes (docs/reference/admin-filters.md), as
 * migration 1764500000000 serves the others: fhirQuery may be long (hash), the rest are btree.
 * fhirResourceType is served by the index migration 1764600000000 made.
 */
const SMART_FILTER_INDEXES: [name: string, table: string, definition: string][] = [
  ['IDX_resource_definition_fhir_query', 'resource_definition', 'USING hash ("fhir_query")'],
  ['IDX_scope_smart_permissions', 'scope', '("smart_permissions")'],
  ['IDX_client_metadata_access_token_lifetime', 'client_metadata', '("access_token_lifetime")'],
];

export class SmartFilterIndexes1764650000000 implements MigrationInterface {
  name = 'SmartFilterIndexes1764650000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    for (const [name, table, definition] of SMART_FILTER_INDEXES) await queryRunner.query(`CREATE INDEX "${name}" ON "${table}" ${definition}`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const [name] of SMART_FILTER_INDEXES) await queryRunner.query(`DROP INDEX "${name}"`);
  }
}
