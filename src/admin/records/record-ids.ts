import type { EntityManager } from 'typeorm';

/**
 * A server-assigned id that no caller-chosen id holds: the next value of the table's sequence,
 * skipping values a caller has already taken.
 */
export async function allocateId(manager: EntityManager, table: string): Promise<number> {
  for (;;) {
    const [{ id }]: { id: number }[] = await manager.query(`SELECT nextval(pg_get_serial_sequence($1, 'id'))::int AS id`, [table]);
    const taken: unknown[] = await manager.query(`SELECT 1 FROM "${table}" WHERE id = $1`, [id]);
    if (taken.length === 0) return id;
  }
}

/** After a caller-chosen id, move the sequence past it so later server ids do not run into it. */
export async function keepIdsAhead(manager: EntityManager, table: string, id: number): Promise<void> {
  await manager.query(
    `SELECT setval(pg_get_serial_sequence($1, 'id'), $2) WHERE $2 > (SELECT last_value FROM "${table}_id_seq")`,
    [table, id],
  );
}
