import type { MigrationInterface, QueryRunner } from 'typeorm';

const search = (column: string) => `(lower(left("${column}", 100)) text_pattern_ops)`;
const hash = (column: string) => `USING hash ("${column}")`;
const btree = (column: string) => `("${column}")`;

/**
 * Every filter, search and sort of the admin interface's collections is served by an index
 * (docs/reference/admin-filters.md). Prefix search: `lower(left(x, 100))` with text_pattern_ops,
 * whatever the collation. Exact match on values that may be longer than a btree entry allows: hash.
 * Existing unique constraints and foreign-key indexes already serve the other members.
 */
export const ADMIN_FILTER_INDEXES: [name: string, table: string, definition: string][] = [
  ['IDX_client_client_name', 'client', btree('client_name')],
  ['IDX_client_search_client_id', 'client', search('client_id')],
  ['IDX_client_search_client_name', 'client', search('client_name')],
  ['IDX_client_metadata_client_type', 'client_metadata', btree('client_type')],
  ['IDX_client_metadata_authentication_type', 'client_metadata', btree('client_authentication_type')],
  ['IDX_client_metadata_grant_types', 'client_metadata', btree('grant_types')],
  ['IDX_client_metadata_allowed_scopes', 'client_metadata', hash('allowed_scopes')],
  ['IDX_client_metadata_issuer_uri', 'client_metadata', hash('issuer_uri')],
  ['IDX_client_metadata_jwks_uri', 'client_metadata', hash('jwks_uri')],
  ['IDX_client_metadata_jwks_raw', 'client_metadata', hash('jwks_raw')],
  ['IDX_client_metadata_meta_data_raw', 'client_metadata', hash('meta_data_raw')],
  ['IDX_client_metadata_dpop_bound', 'client_metadata', btree('dpop_bound_access_tokens')],
  ['IDX_resource_definition_description', 'resource_definition', hash('description')],
  ['IDX_resource_definition_search_name', 'resource_definition', search('name')],
  ['IDX_scope_name', 'scope', btree('name')],
  ['IDX_purpose_name', 'purpose', hash('name')],
  ['IDX_purpose_search_name', 'purpose', search('name')],
  ['IDX_capability_ticket_ticket_name', 'capability_ticket', btree('ticket_name')],
  ['IDX_capability_ticket_purpose', 'capability_ticket', btree('purpose_id')],
  ['IDX_capability_ticket_search_ticket_id', 'capability_ticket', search('ticket_id')],
  ['IDX_capability_ticket_search_ticket_name', 'capability_ticket', search('ticket_name')],
  ['IDX_requested_resource_max_duration', 'requested_resource', btree('max_permission_duration')],
  ['IDX_requested_resource_requested_id', 'requested_resource', btree('requested_resource_id')],
  ['IDX_requested_resource_definition', 'requested_resource', btree('resource_definition_id')],
  ['IDX_requested_resource_scopes_scope', 'requested_resource_scopes', btree('scope_id')],
  ['IDX_requested_resource_scopes_purpose', 'requested_resource_scopes', btree('purpose_id')],
  ['IDX_data_source_name', 'data_source', btree('name')],
  ['IDX_data_source_kind', 'data_source', btree('kind')],
  ['IDX_data_source_search_name', 'data_source', search('name')],
  ['IDX_data_source_search_resource_uri', 'data_source', search('resource_uri')],
  ['IDX_audit_event_actor', 'audit_event', btree('actor')],
  ['IDX_audit_event_operation', 'audit_event', btree('operation')],
  ['IDX_audit_event_record', 'audit_event', '("record_type", "record_id")'],
  ['IDX_audit_event_record_id', 'audit_event', btree('record_id')],
  ['IDX_audit_event_occurred_at', 'audit_event', btree('occurred_at')],
];

export class AdminFilterIndexes1764500000000 implements MigrationInterface {
  name = 'AdminFilterIndexes1764500000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    for (const [name, table, definition] of ADMIN_FILTER_INDEXES) await queryRunner.query(`CREATE INDEX "${name}" ON "${table}" ${definition}`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const [name] of ADMIN_FILTER_INDEXES) await queryRunner.query(`DROP INDEX "${name}"`);
  }
}
