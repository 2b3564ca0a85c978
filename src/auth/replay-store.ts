import { createHash } from 'node:crypto';
import { Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';

const PURGE_INTERVAL_MS = 60_000;

/**
 * Single-use identifiers (client assertion and DPoP proof `jti`s) shared by every instance:
 * one row per identifier in PostgreSQL until it expires. The primary key decides a race between
 * two instances; an expired row may be reused, and a timer purges them.
 */
@Injectable()
export class ReplayStore implements OnModuleInit, OnModuleDestroy {
  private purgeTimer?: NodeJS.Timeout;

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  onModuleInit(): void {
    this.purgeTimer = setInterval(() => void this.purge().catch(() => undefined), PURGE_INTERVAL_MS);
    this.purgeTimer.unref();
  }

  onModuleDestroy(): void {
    clearInterval(this.purgeTimer);
  }

  /** True the first time (kind, namespace, jti) is seen before `expiresAt` (seconds); false for a replay. */
  async firstUse(kind: string, namespace: string, jti: string, expiresAt: number): Promise<boolean> {
    const key = createHash('sha256').update(`${kind}\u0000${namespace}\u0000${jti}`).digest('base64url');
    const rows: unknown[] = await this.dataSource.query(
      `INSERT INTO used_jti (key, expires_at) VALUES ($1, to_timestamp($2))
       ON CONFLICT (key) DO UPDATE SET expires_at = EXCLUDED.expires_at WHERE used_jti.expires_at <= now()
       RETURNING 1`,
      [key, expiresAt],
    );
    return rows.length > 0;
  }

  async purge(): Promise<void> {
    await this.dataSource.query('DELETE FROM used_jti WHERE expires_at < now()');
  }
}
