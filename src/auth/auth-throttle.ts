import { createHash } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';
import { DataSource } from 'typeorm';

// docs/reference/token-endpoint.md#brute-force-protection: at most 20 failed authentications
// per client per minute (from all addresses together) and 100 per source address per minute.
export const FAILURES_PER_CLIENT = 20;
export const FAILURES_PER_ADDRESS = 100;
const WINDOW_SECONDS = 60;
// While a client is over its limit, one attempt per second is still verified (docs/operations/security.md).
const VERIFICATIONS_PER_SECOND_WHEN_LOCKED = 1;

/** Seconds to wait for each limit that is used up. */
export type LimitsReached = { client?: number; address?: number };

/**
 * Counts failed client authentications in PostgreSQL (rate-limiter-flexible's store), so every
 * instance behind a load balancer shares one count. Touched only when the cheap check fails:
 * the hot path of a working client does no database write.
 */
@Injectable()
export class AuthThrottle {
  private readonly perClient: RateLimiterPostgres;
  private readonly perAddress: RateLimiterPostgres;
  private readonly lockedVerifications: RateLimiterPostgres;

  constructor(@InjectDataSource() dataSource: DataSource) {
    this.perClient = failureCounter(dataSource, 'client', FAILURES_PER_CLIENT);
    this.perAddress = failureCounter(dataSource, 'address', FAILURES_PER_ADDRESS);
    this.lockedVerifications = failureCounter(dataSource, 'locked-verification', VERIFICATIONS_PER_SECOND_WHEN_LOCKED, 1);
  }

  /** Seconds to wait when either limit is used up; undefined when attempts may go on. */
  async blockedFor(clientId: string, address: string): Promise<number | undefined> {
    const { client, address: source } = await this.limitsReached(clientId, address);
    const waits = [client, source].filter((wait): wait is number => wait !== undefined);
    return waits.length > 0 ? Math.max(...waits) : undefined;
  }

  /** Which of the two limits are used up, and for how long. */
  async limitsReached(clientId: string, address: string): Promise<LimitsReached> {
    const [client, source] = await Promise.all([this.perClient.get(keyOf(clientId)), this.perAddress.get(keyOf(address))]);
    return { client: exhausted(client, FAILURES_PER_CLIENT), address: exhausted(source, FAILURES_PER_ADDRESS) };
  }

  /**
   * Claims the one verification per second a client over its limit still gets. The claim is one
   * atomic upsert in PostgreSQL, so every worker and instance shares the same slot: an attacker
   * cannot lock the working client out, and cannot get more than one guess per second verified.
   */
  async claimLockedVerification(clientId: string): Promise<boolean> {
    try {
      await this.lockedVerifications.consume(keyOf(clientId), 1);
      return true;
    } catch (error) {
      if (error instanceof RateLimiterRes) return false;
      throw error;
    }
  }

  /** Seconds to wait when the source address's limit is used up (dynamic registration's tokens count toward it too). */
  async addressBlockedFor(address: string): Promise<number | undefined> {
    return exhausted(await this.perAddress.get(keyOf(address)), FAILURES_PER_ADDRESS);
  }

  /** A failure that concerns no client (a refused initial or registration access token): counted for the address only. */
  async recordAddressFailure(address: string): Promise<void> {
    await this.perAddress.penalty(keyOf(address), 1);
  }

  async recordFailure(clientId: string, address: string): Promise<void> {
    await Promise.all([this.perClient.penalty(keyOf(clientId), 1), this.perAddress.penalty(keyOf(address), 1)]);
  }
}

/** Failures per key and minute in the `auth_failure` table (created by a migration). */
export function failureCounter(dataSource: DataSource, keyPrefix: string, points: number, duration = WINDOW_SECONDS): RateLimiterPostgres {
  return new RateLimiterPostgres({
    storeClient: (dataSource.driver as unknown as { master: unknown }).master,
    storeType: 'pool',
    tableName: 'auth_failure',
    tableCreated: true,
    clearExpiredByTimeout: false,
    keyPrefix,
    points,
    duration,
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
