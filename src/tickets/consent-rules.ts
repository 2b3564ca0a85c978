import type { EntityManager } from 'typeorm';
import { asResourceScope } from '../oauth/scope.js';

/**
 * The consistency rules that span several consent-ticket records
 * (docs/concepts/consent-tickets.md#the-rules-that-keep-the-records-consistent), as queries any
 * writer (the admin transport today) runs inside its transaction. Each answers whether the rule
 * is broken for the record just written: the writer names which record it wrote and its id, and
 * the query (all SQL of these rules lives here) starts from that record.
 */

/** The records a combination rule starts from: a capability ticket, a requested resource or the combination itself. */
export type CombinationAnchor = 'capability-ticket' | 'requested-resource' | 'combination';

/** The records a binding rule starts from: a requested resource or the requested-resource-scopes record itself. */
export type BindingAnchor = 'requested-resource' | 'binding';

/** The records a data-source rule starts from: the data source, or the client that introspects for data sources. */
export type DataSourceAnchor = 'data-source' | 'client';

const COMBINATION_WHERE: Record<CombinationAnchor, string> = { 'capability-ticket': 't.id = $1', 'requested-resource': 'r.id = $1', combination: 'c.id = $1' };
const BINDING_WHERE: Record<BindingAnchor, string> = { 'requested-resource': 'r.id = $1', binding: 'b.id = $1' };
const DATA_SOURCE_WHERE: Record<DataSourceAnchor, string> = { 'data-source': 'd.id = $1', client: 'd.client_id = $1' };

/** A combination's capability ticket and requested resource belong to different clients. */
export async function ticketAndResourceClientsDiffer(manager: EntityManager, anchor: CombinationAnchor, id: number): Promise<boolean> {
  return anyRow(
    manager,
    `SELECT 1 FROM requested_resources_capability_tickets c
       JOIN capability_ticket t ON t.id = c.capability_ticket_id
       JOIN requested_resource r ON r.id = c.requested_resource_id
      WHERE t.client_id <> r.client_id AND ${COMBINATION_WHERE[anchor]} LIMIT 1`,
    id,
  );
}

/** A requested-resource-scopes binds a scope that is not of the requested resource's definition. */
export async function scopeOutsideDefinition(manager: EntityManager, anchor: BindingAnchor, id: number): Promise<boolean> {
  return anyRow(
    manager,
    `SELECT 1 FROM requested_resource_scopes b
       JOIN scope s ON s.id = b.scope_id
       JOIN requested_resource r ON r.id = b.requested_resource_id
      WHERE s.resource_definition_id <> r.resource_definition_id AND ${BINDING_WHERE[anchor]} LIMIT 1`,
    id,
  );
}

/** A data source's umaClient is not allowed `uma_protection`, so could not introspect (docs/concepts/consent-tickets.md#the-rules-that-keep-the-records-consistent). */
export async function dataSourceClientLacksProtection(manager: EntityManager, anchor: DataSourceAnchor, id: number): Promise<boolean> {
  return anyRow(
    manager,
    `SELECT 1 FROM data_source d
       JOIN client c ON c.id = d.client_id
       JOIN client_metadata m ON m.id = c.metadata_id
      WHERE NOT ('uma_protection' = ANY (string_to_array(m.allowed_scopes, ' '))) AND ${DATA_SOURCE_WHERE[anchor]} LIMIT 1`,
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

/**
 * The first resource scope (`<definition>:<scope>`) of `names` that names no scope record, with
 * what is defined instead (docs/concepts/consent-tickets.md#the-rules-that-keep-the-records-consistent):
 * undefined when every one is defined. Plain names (`uma_protection`, SMART scopes) are not looked up.
 */
export async function firstUndefinedResourceScope(
  manager: EntityManager,
  names: readonly string[],
): Promise<{ name: string; defined: string[] | null } | undefined> {
  const wanted = names.map(asResourceScope).filter((scope) => scope !== undefined);
  if (wanted.length === 0) return undefined;
  const rows: { definition: string; scope: string | null }[] = await manager.query(
    `SELECT d.name AS definition, s.name AS scope FROM resource_definition d LEFT JOIN scope s ON s.resource_definition_id = d.id
      WHERE d.name = ANY($1) ORDER BY s.name`,
    [[...new Set(wanted.map((scope) => scope.definition))]],
  );
  for (const scope of wanted) {
    const ofDefinition = rows.filter((row) => row.definition === scope.definition);
    const defined = ofDefinition.flatMap((row) => (row.scope === null ? [] : [row.scope]));
    if (!defined.includes(scope.scope)) return { name: scope.name, defined: ofDefinition.length === 0 ? null : defined };
  }
  return undefined;
}

/**
 * docs/concepts/consent-tickets.md#the-rules-that-keep-the-records-consistent: every resource scope
 * (`<definition>:<scope>`) a client is allowed names a scope record, so that a misspelling
 * (`blood-glucose-level:raed`) is refused naming it, not a client that silently never gets a token.
 * Answers the refusal's text, or undefined when every resource scope is defined.
 */
export async function undefinedResourceScopeRefusal(manager: EntityManager, allowedScopes: string): Promise<string | undefined> {
  const missing = await firstUndefinedResourceScope(manager, allowedScopes.split(/\s+/).filter(Boolean));
  if (!missing) return undefined;
  const [definition] = missing.name.split(':');
  const instead =
    missing.defined === null
      ? `no resource-definition is named "${definition}"`
      : missing.defined.length === 0
        ? `resource-definition "${definition}" has no scopes yet`
        : `resource-definition "${definition}" has ${missing.defined.map((name) => `"${name}"`).join(', ')}`;
  return `"${missing.name}" names no defined scope (${instead}); define the scope first`;
}
