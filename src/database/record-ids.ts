import type { EntityManager } from 'typeorm';

/** Ids are positive 32-bit integers (docs/operations/security.md, "Record ids"). */
export const MAX_RECORD_ID = 2_147_483_647;

/**
 * A server-assigned id that no caller-chosen id holds. The table's sequence is never moved by a
 * caller's id (one at 2147483647 would otherwise exhaust it for good): it counts on, and when its
 * value is taken, jumps to the first free id after it; past the top it starts again from 1.
 */
export async function allocateId(manager: EntityManager, table: string): Promise<number> {
  const candidate = await nextValue(manager, table);
  if (!(await isTaken(manager, table, candidate))) return candidate;
  const free = (await firstFreeFrom(manager, table, candidate)) ?? (await firstFreeFrom(manager, table, 1));
  if (free === undefined) throw new Error(`no id is free in ${table}`);
  await manager.query(`SELECT setval(pg_get_serial_sequence($1, 'id'), $2)`, [table, free]);
  return free;
}

/**
 * The sequence's next value; a sequence at its end (moved there by an older version of this
 * server after a caller chose 2147483647) starts again from 1 instead of failing.
 */
async function nextValue(manager: EntityManager, table: string): Promise<number> {
  const [{ id }]: { id: string }[] = await manager.query(
    `WITH s AS (SELECT pg_get_serial_sequence($1, 'id')::regclass AS seq)
     SELECT CASE WHEN coalesce(pg_sequence_last_value(s.seq), 0) >= p.seqmax THEN setval(s.seq, 1) ELSE nextval(s.seq) END AS id
     FROM s JOIN pg_sequence p ON p.seqrelid = s.seq`,
    [table],
  );
  return Number(id);
}

async function isTaken(manager: EntityManager, table: string, id: number): Promise<boolean> {
  const rows: unknown[] = await manager.query(`SELECT 1 FROM "${table}" WHERE id = $1`, [id]);
  return rows.length > 0;
}

/** The first id at or after `start` that no row holds, within the 32-bit range; one index scan. */
async function firstFreeFrom(manager: EntityManager, table: string, start: number): Promise<number | undefined> {
  if (!(await isTaken(manager, table, start))) return start;
  const rows: { free: string }[] = await manager.query(
    `SELECT t.id::bigint + 1 AS free FROM "${table}" t
     WHERE t.id >= $1 AND NOT EXISTS (SELECT 1 FROM "${table}" u WHERE u.id = t.id::bigint + 1)
     ORDER BY t.id LIMIT 1`,
    [start],
  );
  const free = rows.length > 0 ? Number(rows[0].free) : undefined;
  return free !== undefined && free <= MAX_RECORD_ID ? free : undefined;
}
