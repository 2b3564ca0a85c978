import { createHash } from 'node:crypto';
import { Inject, Injectable, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import pg from 'pg';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';

const PURGE_INTERVAL_MS = 60_000;

/** A single-use identifier: `jti` within `namespace` (the client, or the DPoP key) until `expiresAt` (seconds). */
export type SingleUse = { kind: string; namespace: string; jti: string; expiresAt: number };
const POOL_SIZE = 4;

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
      max: POOL_SIZE,
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
   * of the first one already used (then nothing is recorded, but for a lost race between two
   * instances). One statement per token request keeps PostgreSQL's share of the work small.
   */
  async useOnce(entries: SingleUse[]): Promise<number> {
    const keys = entries.map(keyOf);
    // A named statement: parsed and planned once per connection.
    const result = await this.pool.query<{ taken: string[]; fresh: string[] }>({
      name: 'use-jtis',
      text: `WITH input AS (SELECT * FROM unnest($1::text[], $2::float8[]) AS i(key, expires_at)),
                  live AS (SELECT u.key FROM used_jti u JOIN input i ON i.key = u.key WHERE u.expires_at > now()),
                  inserted AS (
                    INSERT INTO used_jti (key, expires_at)
                    SELECT key, to_timestamp(expires_at) FROM input WHERE NOT EXISTS (SELECT 1 FROM live)
                    ON CONFLICT (key) DO UPDATE SET expires_at = EXCLUDED.expires_at WHERE used_jti.expires_at <= now()
                    RETURNING key)
             SELECT ARRAY(SELECT key FROM live) AS taken, ARRAY(SELECT key FROM inserted) AS fresh`,
      values: [keys, entries.map((entry) => entry.expiresAt)],
    });
    const { taken, fresh } = result.rows[0]!;
    const replayed = keys.findIndex((key) => taken.includes(key));
    return replayed !== -1 ? replayed : keys.findIndex((key) => !fresh.includes(key));
  }

  async purge(): Promise<void> {
    await this.pool.query('DELETE FROM used_jti WHERE expires_at < now()');
  }
}

// Digests: nothing a client sent is stored in clear, and every key fits the column.
function keyOf({ kind, namespace, jti }: SingleUse): string {
  return createHash('sha256').update(`${kind}\u0000${namespace}\u0000${jti}`).digest('base64url');
}
