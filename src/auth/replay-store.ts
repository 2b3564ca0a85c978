import { createHash } from 'node:crypto';
import { Inject, Injectable, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import pg from 'pg';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { connectionBudget } from '../database/connection-budget.js';

const PURGE_INTERVAL_MS = 60_000;

/** A single-use identifier: `jti` within `namespace` (the client, or the DPoP key) until `expiresAt` (seconds). */
export type SingleUse = { kind: string; namespace: string; jti: string; expiresAt: number };

/**
 * Single-use identifiers (client assertion and DPoP proof `jti`s) shared by every instance:
 * one row per identifier in PostgreSQL until it expires. The primary key decides a race between
 * two instances; an expired row may be reused, and a timer purges them.
 *
 * The rows are written through a small pool of their own whose sessions commit asynchronously
 * (`synchronous_commit=off`): a token request does not wait for a WAL flush per jti, which
 * halved the proof-of-possession throughput. The price, only if PostgreSQL itself crashes: the
 * jtis recorded in the last fraction of a second (at most 3 × wal_writer_delay, 600 ms by
 * default) may be forgotten. The rows are still WAL-logged and replicated.
 */
@Injectable()
export class ReplayStore implements OnModuleInit, OnApplicationShutdown {
  private purgeTimer?: NodeJS.Timeout;
  private readonly pool: pg.Pool;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.pool = new pg.Pool({
      connectionString: config.databaseUrl,
      max: connectionBudget(config).replayStore,
      options: '-c synchronous_commit=off',
      application_name: 'authorization-server-replay',
      connectionTimeoutMillis: 5_000,
      query_timeout: 10_000,
      keepAlive: true,
    });
    // An idle connection that breaks is dropped by the pool; the next query reconnects.
    this.pool.on('error', () => undefined);
  }

  onModuleInit(): void {
    this.purgeTimer = setInterval(() => void this.purge().catch(() => undefined), PURGE_INTERVAL_MS);
    this.purgeTimer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.purgeTimer);
    await this.pool.end().catch(() => undefined);
  }

  /** True the first time (kind, namespace, jti) is seen before `expiresAt` (seconds); false for a replay. */
  async firstUse(kind: string, namespace: string, jti: string, expiresAt: number): Promise<boolean> {
    return (await this.useOnce([{ kind, namespace, jti, expiresAt }])) === -1;
  }

  /**
   * Records every identifier in one statement, all or none: -1 when all were new, else the index
   * of the first one already used. The new ones of a refused set are given back at once (only a
   * lost race between two instances can leave one behind). One multi-row INSERT per token
   * request keeps PostgreSQL's share of the work small (it measured 2.5x cheaper than a CTE
   * that checks before inserting).
   */
  async useOnce(entries: SingleUse[]): Promise<number> {
    const keys = entries.map(keyOf);
    // A named statement per row count: parsed and planned once per connection.
    const result = await this.pool.query<{ key: string }>({
      name: `use-jti-${entries.length}`,
      text: `INSERT INTO used_jti (key, expires_at)
             VALUES ${entries.map((_, index) => `($${2 * index + 1}, to_timestamp($${2 * index + 2}))`).join(', ')}
             ON CONFLICT (key) DO UPDATE SET expires_at = EXCLUDED.expires_at WHERE used_jti.expires_at <= now()
             RETURNING key`,
      values: entries.flatMap((entry, index) => [keys[index], entry.expiresAt]),
    });
    const fresh = new Set(result.rows.map((row) => row.key));
    const replayed = keys.findIndex((key) => !fresh.has(key));
    if (replayed !== -1 && fresh.size > 0) await this.pool.query('DELETE FROM used_jti WHERE key = ANY($1)', [[...fresh]]);
    return replayed;
  }

  async purge(): Promise<void> {
    await this.pool.query('DELETE FROM used_jti WHERE expires_at < now()');
  }
}

// Digests: nothing a client sent is stored in clear, and every key fits the column.
function keyOf({ kind, namespace, jti }: SingleUse): string {
  return createHash('sha256').update(`${kind}\u0000${namespace}\u0000${jti}`).digest('base64url');
}
