import type { EntityManager } from 'typeorm';

/**
 * The one writer of the consent records' tables (docs/concepts/consent-tickets.md#the-records):
 * the admin interface's table records add, replace and remove rows through these functions, in
 * its request's transaction. Columns are validated by the caller; database errors (unique and
 * foreign key violations) reach the caller unchanged, to be answered in its format.
 */
export const CONSENT_RECORD_TABLES = [
  'purpose',
  'resource_definition',
  'scope',
  'capability_ticket',
  'requested_resource',
  'requested_resource_scopes',
  'requested_resources_capability_tickets',
  'data_source',
  'data_source_resource_definitions',
  'data_source_delegation',
] as const;
export type ConsentRecordTable = (typeof CONSENT_RECORD_TABLES)[number];

export async function insertConsentRow(manager: EntityManager, table: ConsentRecordTable, columns: ReadonlyMap<string, unknown>): Promise<void> {
  const names = [...columns.keys()];
  await manager.query(
    `INSERT INTO "${table}" (${names.map((name) => `"${name}"`).join(', ')}) VALUES (${names.map((_, index) => `$${index + 1}`).join(', ')})`,
    [...columns.values()],
  );
}

/** Sets the columns of row `id` (its version and last change too); false when there is no such row. */
export async function updateConsentRow(manager: EntityManager, table: ConsentRecordTable, id: number, columns: ReadonlyMap<string, unknown>): Promise<boolean> {
  const assignments = [...columns.keys()].map((name, index) => `"${name}" = $${index + 2}`);
  const rows = await manager.query<unknown[]>(
    `UPDATE "${table}" SET ${[...assignments, 'version = version + 1', 'last_updated = now()'].join(', ')} WHERE id = $1 RETURNING id`,
    [id, ...columns.values()],
  );
  return affected(rows) > 0;
}

/** Removes row `id`; false when there is no such row. */
export async function deleteConsentRow(manager: EntityManager, table: ConsentRecordTable, id: number): Promise<boolean> {
  return affected(await manager.query<unknown[]>(`DELETE FROM "${table}" WHERE id = $1 RETURNING id`, [id])) > 0;
}

/** TypeORM answers `[rows, count]` for UPDATE and DELETE with RETURNING. */
function affected(result: unknown[]): number {
  return Array.isArray(result[0]) ? (result[0] as unknown[]).length : result.length;
}
