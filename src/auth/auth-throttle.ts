import { createHash } from 'node:crypto';
import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { Pool } from 'pg';
import { RateLimiterPostgres } from 'rate-limiter-flexible';
import { DataSource } from 'typeorm';
import { failureSourceOf } from '../common/ip-addresses.js';
import { OAuthError } from '../oauth/oauth-error.js';
import { CleanStandings } from './clean-standings.js';
import { pairOf } from './proven-sources.js';

// docs/reference/token-endpoint.md#brute-force-protection: at most 20 failed authentications
// per client per minute (from all addresses together) and 100 per source address per minute.
export const FAILURES_PER_CLIENT = 20;
export const FAILURES_PER_ADDRESS = 100;
const WINDOW_SECONDS = 60;
// While a client is over its limit, one attempt per second is still verified (docs/operations/security.md).
const VERIFICATIONS_PER_SECOND_WHEN_LOCKED = 1;
// A source from which a client authenticated is known for it this long (docs/operations/security.md, "Rotating addresses").
export const KNOWN_SOURCE_DAYS = 30;
const KNOWN_SOURCE_MS = KNOWN_SOURCE_DAYS * 24 * 60 * 60 * 1000;
// A process writes a known source again at most this often (the row's expiry moves on).
const KNOWN_SOURCE_REFRESH_MS = 24 * 60 * 60 * 1000;
const MAX_KNOWN_IN_MEMORY = 100_000;

const TABLE = 'auth_failure';

/** Seconds to wait for each limit that is used up. */
export type LimitsReached = { client?: number; address?: number };

/**
 * Where an attempt stands before any work is done for it: the limits used up, whether its
 * source address has failed for this client within the window ("failing"; else "clean"), and
 * whether the client authenticated from it in the last 30 days ("known").
 */
export type Standing = LimitsReached & { failing: boolean; known?: boolean };

/** Why an attempt was refused before any work (the reason of the throttle's warn lines). */
export type ThrottleReason = 'address over its limit' | 'client over its limit' | 'address failing for this client';

/**
 * An attempt that may be verified. `lockedFor`: the client is over its limit and this attempt
 * took its one verification of this second (a wrong answer is then 429, Retry-After this long).
 * `failing`: the address has failed for this client within the window. `claimed`: the claim
 * marked the address failing; unless the attempt proves wrong, the caller clears that mark
 * (clearFailing), also when the attempt ends in another error.
 */
export type Admission = { lockedFor?: number; failing: boolean; claimed: boolean };

export type AdmitOptions = {
  /** Runs just before the verification of a locked client is claimed (the slow-hash bound's 503 must not waste it). */
  beforeClaim?: () => void;
  /**
   * This process has seen this client authenticate from this address: while the address stays
   * clean for the client, its attempts are verified without the one-per-second claim (a working
   * private_key_jwt client keeps its rate; a secret has its own cheap path).
   */
  proven?: boolean;
};

/** What admit() needs of the store: AuthThrottle, or a stand-in in unit tests. */
export type ThrottleStore = {
  standing(clientId: string, address: string): Promise<Standing>;
  claimLockedVerification(clientId: string, address: string, known?: boolean): Promise<boolean>;
  countRefusal(address: string): Promise<void>;
};

/**
 * Decides, before any slow hash, key fetch or signature check, whether an attempt may be verified
 * (docs/operations/security.md, "Lock-out under a flood"):
 * - an address over its limit is refused;
 * - under the client's limit, every attempt is verified (undefined);
 * - over the client's limit, an address that has failed for this client in the window is refused
 *   outright, and a clean address may claim the client's one verification per second (the
 *   client's wait is returned: a wrong answer is then 429 too). A failing address therefore never
 *   uses up the verification a clean one gets.
 * Every refusal counts toward its source address's limit, so an address that floods one client
 * reaches its own limit, and is then refused before anything else is read. A source from which
 * the client authenticated in the last 30 days (known) has one verification per second of its
 * own while it is clean: a flood from any number of other addresses cannot take it.
 */
export async function admit(store: ThrottleStore, clientId: string, address: string, options: AdmitOptions = {}): Promise<Admission> {
  const standing = await store.standing(clientId, address);
  if (standing.address !== undefined) throw refusal(clientId, 'address over its limit', Math.max(standing.address, standing.client ?? 0));
  if (standing.client === undefined) return { failing: standing.failing, claimed: false };
  if (!standing.failing) {
    if (options.proven) return { lockedFor: standing.client, failing: false, claimed: false };
    options.beforeClaim?.();
    // The claim marks the address failing until it succeeds: the same address's next attempts (a
    // flood from an address still clean) cannot claim the following seconds while this one is verified.
    // A known source claims a second of its own, which no flood from elsewhere can take.
    if (await store.claimLockedVerification(clientId, address, standing.known === true)) return { lockedFor: standing.client, failing: false, claimed: true };
  }
  await store.countRefusal(address);
  throw refusal(clientId, 'client over its limit', standing.client);
}

function refusal(clientId: string, reason: ThrottleReason, wait: number): OAuthError {
  return OAuthError.tooManyRequests(wait).refusing(clientId, reason);
}

/**
 * Counts failed client authentications in PostgreSQL (rate-limiter-flexible's store), so every
 * instance and worker behind a load balancer shares one count. Touched only when the cheap check
 * fails: the hot path of a working client does no database write.
 */
@Injectable()
export class AuthThrottle implements ThrottleStore {
  private readonly logger = new Logger('AuthThrottle');
  private readonly pool: Pool;
  /** Known sources this process wrote lately (client id NUL address → when): the hot path writes one at most once a day. */
  private readonly knownWritten = new Map<string, number>();
  private readonly cleanStandings = new CleanStandings();
  private readonly perClient: RateLimiterPostgres;
  private readonly perAddress: RateLimiterPostgres;
  private readonly perClientAddress: RateLimiterPostgres;

  constructor(@InjectDataSource() dataSource: DataSource) {
    this.pool = (dataSource.driver as unknown as { master: Pool }).master;
    this.perClient = failureCounter(dataSource, 'client', FAILURES_PER_CLIENT);
    this.perAddress = failureCounter(dataSource, 'address', FAILURES_PER_ADDRESS);
    // Any failure of this client from this address within the window makes the address "failing" for it.
    this.perClientAddress = failureCounter(dataSource, 'client-address', 1);
  }

  /**
   * See admit(). A proven pair whose counts were read clean within the last second is admitted
   * without reading them again (CleanStandings): a working key-holding client's requests read
   * nothing here in the steady state. A failure or refusal counted by this process makes every
   * pair read again at once; one counted by another process is seen within the second.
   */
  async admit(clientId: string, address: string, options: AdmitOptions = {}): Promise<Admission> {
    if (!options.proven) return admit(this, clientId, address, options);
    if (this.cleanStandings.has(clientId, address)) return { failing: false, claimed: false };
    const generation = this.cleanStandings.generation;
    const admission = await admit(this, clientId, address, options);
    if (admission.lockedFor === undefined && !admission.failing && !admission.claimed) this.cleanStandings.add(clientId, address, generation);
    return admission;
  }

  /** Which of the two limits are used up, and for how long; and whether the address is failing for the client. One read. */
  async standing(clientId: string, address: string): Promise<Standing> {
    const pair = pairKey(clientId, address);
    const keys = { client: `client:${keyOf(clientId)}`, address: `address:${addressKey(address)}`, pair: `client-address:${pair}`, known: `known:${pair}` };
    const now = Date.now();
    const { rows } = await this.pool.query<{ key: string; points: number; expire: string | null }>({
      name: 'auth-throttle-standing',
      text: `SELECT key, points, expire FROM ${TABLE} WHERE key = ANY($1) AND (expire > $2 OR expire IS NULL)`,
      values: [[keys.client, keys.address, keys.pair, keys.known], now],
    });
    const row = (key: string) => rows.find((candidate) => candidate.key === key);
    return {
      client: exhausted(row(keys.client), FAILURES_PER_CLIENT, now),
      address: exhausted(row(keys.address), FAILURES_PER_ADDRESS, now),
      failing: (row(keys.pair)?.points ?? 0) > 0,
      known: row(keys.known) !== undefined,
    };
  }

  /**
   * Claims the one verification per second a client over its limit still gets, for an address
   * that is not failing for it, and marks that address failing (until recordSuccess). One SQL
   * statement: the check of the address, the claim and the mark see the same moment, so every
   * worker and instance shares the one slot, and an address cannot claim a second time on a
   * count it read before its first claim. An attacker cannot lock the working client out, and
   * gets at most one guess per second verified.
   */
  async claimLockedVerification(clientId: string, address: string, known = false): Promise<boolean> {
    const now = Date.now();
    const { rows } = await this.pool.query<{ claimed: number | null }>({
      name: 'auth-throttle-claim',
      text: `WITH failing AS (
          SELECT 1 FROM ${TABLE} WHERE key = $1 AND points > 0 AND (expire > $3 OR expire IS NULL)
        ), claim AS (
          INSERT INTO ${TABLE} AS f (key, points, expire)
          SELECT $2, 1, $3::bigint + $4::bigint WHERE NOT EXISTS (SELECT 1 FROM failing)
          ON CONFLICT (key) DO UPDATE SET
            points = CASE WHEN f.expire <= $3::bigint THEN 1 ELSE f.points + 1 END,
            expire = CASE WHEN f.expire <= $3::bigint THEN $3::bigint + $4::bigint ELSE f.expire END
          RETURNING points
        ), mark AS (
          INSERT INTO ${TABLE} AS f (key, points, expire)
          SELECT $1, 1, $3::bigint + $5::bigint FROM claim WHERE claim.points = 1
          ON CONFLICT (key) DO UPDATE SET
            points = CASE WHEN f.expire <= $3::bigint THEN 1 ELSE f.points + 1 END,
            expire = CASE WHEN f.expire <= $3::bigint THEN $3::bigint + $5::bigint ELSE f.expire END
          RETURNING points
        )
        SELECT (SELECT points FROM claim) AS claimed, (SELECT count(*) FROM mark) AS marked`,
      values: [
        `client-address:${pairKey(clientId, address)}`,
        known ? `known-verification:${pairKey(clientId, address)}` : `locked-verification:${keyOf(clientId)}`,
        now,
        1000 / VERIFICATIONS_PER_SECOND_WHEN_LOCKED,
        WINDOW_SECONDS * 1000,
      ],
    });
    return rows[0]?.claimed === 1;
  }

  /**
   * A refused attempt (429), or a failure that concerns no client (a refused initial or
   * registration access token), counts toward its source address's limit.
   */
  async countRefusal(address: string): Promise<void> {
    this.cleanStandings.clear();
    await this.perAddress.penalty(addressKey(address), 1);
  }

  /** Seconds to wait when the source address's limit is used up (dynamic registration's tokens count toward it too). */
  async addressBlockedFor(address: string): Promise<number | undefined> {
    const state = await this.perAddress.get(addressKey(address));
    if (!state || state.consumedPoints < FAILURES_PER_ADDRESS) return undefined;
    return state.msBeforeNext > 0 ? state.msBeforeNext / 1000 : WINDOW_SECONDS;
  }

  async recordFailure(clientId: string, address: string): Promise<void> {
    this.cleanStandings.clear();
    await Promise.all([
      this.perClient.penalty(keyOf(clientId), 1),
      this.perAddress.penalty(addressKey(address), 1),
      this.perClientAddress.penalty(pairKey(clientId, address), 1),
    ]);
  }

  /**
   * The client authenticated from this address: its source is known for the client for 30 days,
   * in PostgreSQL, so that every instance, worker and a restart give it its own verification per
   * second while the client is over its limit. Never awaited by the token path: a process writes
   * a pair at most once a day (an upsert that moves the expiry on), and a failed write is a
   * `warn` line, not a failed request.
   */
  rememberSuccess(clientId: string, address: string): void {
    // Keyed by the raw pair: a token request that finds it pays one map lookup, no hash and no
    // address parsing; the row's key (pairKey) is computed only for a write.
    const seen = pairOf(clientId, address);
    const now = Date.now();
    const written = this.knownWritten.get(seen);
    if (written !== undefined && now - written < KNOWN_SOURCE_REFRESH_MS) return;
    if (written === undefined && this.knownWritten.size >= MAX_KNOWN_IN_MEMORY) this.knownWritten.delete(this.knownWritten.keys().next().value!);
    this.knownWritten.set(seen, now);
    this.pool
      .query({
        name: 'auth-throttle-known',
        text: `INSERT INTO ${TABLE} (key, points, expire) VALUES ($1, 1, $2) ON CONFLICT (key) DO UPDATE SET points = 1, expire = EXCLUDED.expire`,
        values: [`known:${pairKey(clientId, address)}`, now + KNOWN_SOURCE_MS],
      })
      .catch((error: unknown) => {
        this.knownWritten.delete(seen);
        this.logger.warn(`a known source address could not be recorded: ${error instanceof Error ? error.message : 'unknown error'}`);
      });
  }

  /** The right credentials from this address (or a claim that did not end in a failure): it is clean again for this client. Only on the slow path. */
  async clearFailing(clientId: string, address: string): Promise<void> {
    await this.perClientAddress.delete(pairKey(clientId, address));
  }
}

/** Failures per key and minute in the `auth_failure` table (created by a migration). */
export function failureCounter(dataSource: DataSource, keyPrefix: string, points: number, duration = WINDOW_SECONDS): RateLimiterPostgres {
  return new RateLimiterPostgres({
    storeClient: (dataSource.driver as unknown as { master: unknown }).master,
    storeType: 'pool',
    tableName: TABLE,
    tableCreated: true,
    clearExpiredByTimeout: false,
    keyPrefix,
    points,
    duration,
  });
}

function exhausted(row: { points: number; expire: string | null } | undefined, limit: number, now: number): number | undefined {
  if (!row || row.points < limit) return undefined;
  // No expiry: rate-limiter-flexible's "for ever"; a minute is what a caller is told to wait.
  const msBeforeNext = row.expire === null ? WINDOW_SECONDS * 1000 : Number(row.expire) - now;
  return msBeforeNext > 0 ? msBeforeNext / 1000 : undefined;
}

// Keys are hashed: client ids may be 255 arbitrary characters, and none is stored in clear.
function keyOf(value: string): string {
  return createHash('sha256').update(value).digest('base64url');
}

/** An address's failures are counted for its source: the IPv4 address, or the IPv6 /64 (failureSourceOf). */
function addressKey(address: string): string {
  return keyOf(failureSourceOf(address));
}

function pairKey(clientId: string, address: string): string {
  return createHash('sha256').update(clientId).update('\u0000').update(failureSourceOf(address)).digest('base64url');
}
