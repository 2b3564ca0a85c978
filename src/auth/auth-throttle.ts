import { createHash } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';
import { DataSource } from 'typeorm';

// API.md §4: at most 20 failed authentications per client per minute (from all addresses
// together) and 100 per source address per minute.
export const FAILURES_PER_CLIENT = 20;
export const FAILURES_PER_ADDRESS = 100;
const WINDOW_SECONDS = 60;

/**
 * Counts failed client authentications in PostgreSQL (rate-limiter-flexible's store), so every
 * instance behind a load balancer shares one count. Touched only when the cheap check fails:
 * the hot path of a working client does no database write.
 */
@Injectable()
export class AuthThrottle {
  private readonly perClient: RateLimiterPostgres;
  private readonly perAddress: RateLimiterPostgres;

  constructor(@InjectDataSource() dataSource: DataSource) {
    this.perClient = failureCounter(dataSource, 'client', FAILURES_PER_CLIENT);
    this.perAddress = failureCounter(dataSource, 'address', FAILURES_PER_ADDRESS);
  }

  /** Seconds to wait when either limit is used up; undefined when attempts may go on. */
  async blockedFor(clientId: string, address: string): Promise<number | undefined> {
    const [client, source] = await Promise.all([
      this.perClient.get(keyOf(clientId)),
      this.perAddress.get(keyOf(address)),
    ]);
    const waits = [
      exhausted(client, FAILURES_PER_CLIENT),
      exhausted(source, FAILURES_PER_ADDRESS),
    ].filter((wait): wait is number => wait !== undefined);
    return waits.length > 0 ? Math.max(...waits) : undefined;
  }

  async recordFailure(clientId: string, address: string): Promise<void> {
    await Promise.all([
      this.perClient.penalty(keyOf(clientId), 1),
      this.perAddress.penalty(keyOf(address), 1),
    ]);
  }
}

/** Failures per key and minute in the `auth_failure` table (created by a migration). */
export function failureCounter(dataSource: DataSource, keyPrefix: string, points: number): RateLimiterPostgres {
  return new RateLimiterPostgres({
    storeClient: (dataSource.driver as unknown as { master: unknown }).master,
    storeType: 'pool',
    tableName: 'auth_failure',
    tableCreated: true,
    clearExpiredByTimeout: false,
    keyPrefix,
    points,
    duration: WINDOW_SECONDS,
  });
}

function exhausted(result: RateLimiterRes | null, limit: number): number | undefined {
  if (!result || result.consumedPoints < limit || result.msBeforeNext <= 0) return undefined;
  return result.msBeforeNext / 1000;
}

// Keys are hashed: client ids may be 255 arbitrary characters, and none is stored in clear.
function keyOf(value: string): string {
  return createHash('sha256').update(value).digest('base64url');
}
