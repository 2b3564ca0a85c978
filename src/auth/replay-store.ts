import { createHash } from 'node:crypto';
import { Inject, Injectable, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import pg from 'pg';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { connectionBudget } from '../database/connection-budget.js';
import { durablePool, GroupCommit } from '../database/group-commit.js';
import { runEvery } from '../common/run-every.js';

const PURGE_INTERVAL_MS = 60_000;
// Batches committing at once: a commit waits for its disk flush, and PostgreSQL flushes concurrent commits together.
const CONCURRENT_BATCHES = 4;

/** A single-use identifier: `jti` within `namespace` (the client, or the DPoP key) until `expiresAt` (seconds). */
export type SingleUse = { kind: string; namespace: string; jti: string; expiresAt: number };

type Row = { key: string; expiresAt: number };

/**
 * Single-use identifiers (client assertion and DPoP proof `jti`s) shared by every instance:
 * one row per identifier in PostgreSQL until it expires. The primary key decides a race between
 * two instances; an expired row may be reused, and a timer purges them.
 *
 * Every row is committed durably before the token is answered, so a jti accepted just before a
 * database crash is still refused after it (docs/guides/consent-withdrawal.md, "How rows are
 * written"). The rows of concurrent requests share one INSERT and one commit (group commit), so
 * the WAL flush is paid once per batch, not once per request.
 */
@Injectable()
export class ReplayStore implements OnModuleInit, OnApplicationShutdown {
  private stopPurging?: () => void;
  private readonly pool: pg.Pool;
  private readonly batches: GroupCommit<Row, boolean>;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    const size = connectionBudget(config).replayStore;
    this.pool = durablePool(config.databaseUrl, 'authorization-server-replay', size);
    this.batches = new GroupCommit(this.pool, insertFirstUses, { concurrency: Math.min(CONCURRENT_BATCHES, size) });
  }

  onModuleInit(): void {
    this.stopPurging = runEvery(PURGE_INTERVAL_MS, () => this.purge());
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopPurging?.();
    await this.pool.end().catch(() => undefined);
  }

  /** True the first time (kind, namespace, jti) is seen before `expiresAt` (seconds); false for a replay. */
  async firstUse(kind: string, namespace: string, jti: string, expiresAt: number): Promise<boolean> {
    return (await this.useOnce([{ kind, namespace, jti, expiresAt }])) === -1;
  }

  /**
   * Records every identifier, all or none: -1 when all were new, else the index of the first one
   * already used. The new ones of a refused set are given back at once (only a lost race between
   * two instances can leave one behind).
   */
  async useOnce(entries: SingleUse[]): Promise<number> {
    const keys = entries.map(keyOf);
    const fresh = await Promise.all(keys.map((key, index) => this.batches.submit({ key, expiresAt: entries[index].expiresAt })));
    const replayed = fresh.indexOf(false);
    const given = keys.filter((_, index) => fresh[index]);
    if (replayed !== -1 && given.length > 0) await this.pool.query('DELETE FROM used_jti WHERE key = ANY($1)', [given]);
    return replayed;
  }

  async purge(): Promise<void> {
    await this.pool.query('DELETE FROM used_jti WHERE expires_at < now()');
  }
}

/**
 * One statement per batch: true for each row inserted now (or reusing an expired one), false for
 * a replay. A key twice in one batch is new only the first time: one INSERT cannot touch a row
 * twice, and the second one is a replay of the first.
 */
async function insertFirstUses(client: pg.PoolClient, rows: readonly Row[]): Promise<boolean[]> {
  const firstIndex = new Map<string, number>();
  rows.forEach((row, index) => {
    if (!firstIndex.has(row.key)) firstIndex.set(row.key, index);
  });
  const unique = [...firstIndex.values()].map((index) => rows[index]);
  const result = await client.query<{ key: string }>({
    name: 'use-jti-batch',
    text: `INSERT INTO used_jti (key, expires_at)
           SELECT key, to_timestamp(expires_at) FROM unnest($1::text[], $2::float8[]) AS fresh(key, expires_at)
           ON CONFLICT (key) DO UPDATE SET expires_at = EXCLUDED.expires_at WHERE used_jti.expires_at <= now()
           RETURNING key`,
    values: [unique.map((row) => row.key), unique.map((row) => row.expiresAt)],
  });
  const inserted = new Set(result.rows.map((row) => row.key));
  return rows.map((row, index) => inserted.has(row.key) && firstIndex.get(row.key) === index);
}

// Digests: nothing a client sent is stored in clear, and every key fits the column.
function keyOf({ kind, namespace, jti }: SingleUse): string {
  return createHash('sha256').update(`${kind}\u0000${namespace}\u0000${jti}`).digest('base64url');
}
