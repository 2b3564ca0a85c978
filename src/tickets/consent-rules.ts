import type { EntityManager } from 'typeorm';

/**
 * The consistency rules that span several consent-ticket records
 * (docs/concepts/consent-tickets.md#the-rules-that-keep-the-records-consistent), as queries any
 * writer (the admin transport today) runs inside its transaction. Each answers whether the rule
 * is broken for the records matched by `where` (with `$1` bound to `id`).
 */

/** A combination's capability ticket and requested resource belong to different clients. */
export async function ticketAndResourceClientsDiffer(manager: EntityManager, where: string, id: number): Promise<boolean> {
  return anyRow(
    manager,
    `SELECT 1 FROM requested_resources_capability_tickets c
       JOIN capability_ticket t ON t.id = c.capability_ticket_id
       JOIN requested_resource r ON r.id = c.requested_resource_id
      WHERE t.client_id <> r.client_id AND ${where} LIMIT 1`,
    id,
  );
}

/** A requested-resource-scopes binds a scope that is not of the requested resource's definition. */
export async function scopeOutsideDefinition(manager: EntityManager, where: string, id: number): Promise<boolean> {
  return anyRow(
    manager,
    `SELECT 1 FROM requested_resource_scopes b
       JOIN scope s ON s.id = b.scope_id
       JOIN requested_resource r ON r.id = b.requested_resource_id
      WHERE s.resource_definition_id <> r.resource_definition_id AND ${where} LIMIT 1`,
    id,
  );
}

/** A data source's umaClient is not allowed `uma_protection`, so could not introspect (docs/concepts/consent-tickets.md#the-rules-that-keep-the-records-consistent). */
export async function dataSourceClientLacksProtection(manager: EntityManager, where: string, id: number): Promise<boolean> {
  return anyRow(
    manager,
    `SELECT 1 FROM data_source d
       JOIN client c ON c.id = d.client_id
       JOIN client_metadata m ON m.id = c.metadata_id
      WHERE NOT ('uma_protection' = ANY (string_to_array(m.allowed_scopes, ' '))) AND ${where} LIMIT 1`,
    id,
  );
}

/** The resource definition has a FHIR query but no FHIR type. */
export async function queryWithoutType(manager: EntityManager, id: number): Promise<boolean> {
  return anyRow(manager, 'SELECT 1 FROM resource_definition WHERE id = $1 AND fhir_query IS NOT NULL AND fhir_resource_type IS NULL', id);
}

/**
 * Another resource definition has the same FHIR type and query (both without a query counts as
 * equal). Writers of mapped definitions take one transaction lock first, so two concurrent
 * writes cannot both pass: the second sees the first once it commits.
 */
export async function fhirMappingTaken(manager: EntityManager, id: number): Promise<boolean> {
  await manager.query(`SELECT pg_advisory_xact_lock(hashtext('resource_definition.fhir_mapping'))`);
  return anyRow(
    manager,
    `SELECT 1 FROM resource_definition d JOIN resource_definition other
       ON other.id <> d.id AND other.fhir_resource_type = d.fhir_resource_type AND other.fhir_query IS NOT DISTINCT FROM d.fhir_query
      WHERE d.id = $1 LIMIT 1`,
    id,
  );
}

/** True when the rule's query matches at least one row. */
async function anyRow(manager: EntityManager, sql: string, id: number): Promise<boolean> {
  const rows: unknown[] = await manager.query(sql, [id]);
  return rows.length > 0;
}
