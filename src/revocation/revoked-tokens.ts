import type { EntityManager } from 'typeorm';

/** What runs SQL: the data source, or a transaction's manager. */
type Queryable = Pick<EntityManager, 'query'>;

/** A token to revoke: its `jti`, its client, when it expires, and its status-list entry (the list's row id and index) when it has one. */
export type Revocation = { jti: string; clientId: string; expiresAt: Date; statusListId: number | null; statusIdx: number | null };

/**
 * The owner of `revoked_token` (docs/reference/token-endpoint.md#revocation-post-oauth2revoke):
 * a revoked access token, by `jti`, kept until it would have expired anyway, with its status-list
 * entry, which then reads 1. Revoking twice changes nothing.
 */
export async function revokeTokens(db: Queryable, tokens: Revocation[]): Promise<void> {
  if (tokens.length === 0) return;
  await db.query(
    `INSERT INTO revoked_token (jti, client_id, expires_at, status_list_id, status_idx, txid)
     SELECT *, pg_current_xact_id()::text::bigint FROM unnest($1::varchar[], $2::varchar[], $3::timestamptz[], $4::int[], $5::int[])
         ON CONFLICT (jti) DO NOTHING`,
    [
      tokens.map((token) => token.jti),
      tokens.map((token) => token.clientId),
      tokens.map((token) => token.expiresAt),
      tokens.map((token) => token.statusListId),
      tokens.map((token) => token.statusIdx),
    ],
  );
}

/** The row id of a status list named by its public id (a token's `status.status_list.uri` tail); null for none. */
export async function statusListIdOf(db: Queryable, publicId: string | undefined): Promise<number | null> {
  if (publicId === undefined) return null;
  const [row] = await db.query<{ id: number }[]>('SELECT id FROM status_list WHERE public_id = $1', [publicId]);
  return row?.id ?? null;
}

/** Live revocations (not yet expired) as read by one statement, with that statement's snapshot horizon. */
export type RevocationsRead = { horizon: string; revoked: Array<[jti: string, expiresAtMs: number]> };

/**
 * The live revocations committed since `horizon` (a previous read's; none: all of them, at most
 * `limit`), and the horizon of this read: the oldest transaction still running when it read
 * (`pg_snapshot_xmin`). A revocation committed later belongs to a transaction at or above it, so
 * the next read from it misses none.
 */
export async function readRevocations(db: Queryable, horizon: string | undefined, limit: number): Promise<RevocationsRead> {
  const [row]: { horizon: string; revoked: Array<[string, number]> }[] = await db.query(
    `SELECT pg_snapshot_xmin(pg_current_snapshot())::text AS horizon,
            coalesce((SELECT json_agg(json_build_array(r.jti, floor(extract(epoch FROM r.expires_at) * 1000)))
                        FROM (SELECT jti, expires_at FROM revoked_token
                               WHERE expires_at > now() AND ($1::bigint IS NULL OR txid >= $1::bigint) LIMIT $2) r), '[]') AS revoked`,
    [horizon ?? null, limit],
  );
  return row;
}

export async function isRevoked(db: Queryable, jti: string): Promise<boolean> {
  const rows: unknown[] = await db.query('SELECT 1 FROM revoked_token WHERE jti = $1', [jti]);
  return rows.length > 0;
}

/** Forgets revocations of tokens that have expired since: they are refused by their `exp` now. */
export async function purgeExpiredRevocations(db: Queryable): Promise<void> {
  await db.query('DELETE FROM revoked_token WHERE expires_at < now()');
}

/**
 * The SQL of a status list's set indices: those of its live revoked tokens (`listId` is the
 * outer query's expression for the list's row id). For the status-list publisher, which reads
 * the list and its revocations in one statement.
 */
export function revokedIndicesOf(listId: string): string {
  return `coalesce((SELECT array_agg(r.status_idx) FROM revoked_token r WHERE r.status_list_id = ${listId} AND r.expires_at > now()), '{}')`;
}
