import { Injectable, Optional, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { ChangeFeed } from '../database/change-feed.js';
import type { CacheCounter } from '../metrics/metrics.service.js';
import { MetricsService } from '../metrics/metrics.service.js';
import { isRevoked, readRevocations, revokeTokens, type Revocation } from './revoked-tokens.js';

/** The most live revocations one process keeps (about 10 MB); past it, a token not among them is read from the database. */
export const MAX_REVOCATIONS_IN_MEMORY = 100_000;
// How often expired revocations are forgotten (and an overfull memory tries again to hold them all).
const PRUNE_INTERVAL_MS = 60_000;

/**
 * Whether a token is revoked or withdrawn, from memory in the steady state
 * (docs/reference/token-endpoint.md#revocations-from-memory). Each process holds the `jti` of
 * every live revoked token (at most MAX_REVOCATIONS_IN_MEMORY), read whole when its change feed
 * (re)connects, then kept current: on each change to `revoked_token` anywhere, it reads the
 * revocations committed since its last read (readRevocations' horizon), and a revocation made
 * here is added at once. While the feed is not listening, or before the first read after a
 * (re)connection has completed, every answer is read from the database: an instance that may have
 * missed a revocation never answers from memory.
 */
@Injectable()
export class RevocationState implements OnModuleInit, OnApplicationShutdown {
  /** jti → when the token expires (ms): once it has, its `exp` refuses it and the entry goes. */
  private revoked = new Map<string, number>();
  /** Whether `revoked` holds every live revocation (false: more than the bound; a token not in it is read from the database). */
  private complete = false;
  /** The feed's connection the memory is current for (-1: none yet); memory answers only while it is the feed's live one. */
  private syncedConnection = -1;
  private horizon?: string;
  /** Whether the next read is of every live revocation (after an overflow, to hold them all again once they fit). */
  private wholeWanted = false;
  // One read at a time, and at most one waiting behind it, which every caller meanwhile shares.
  private reading: Promise<void> = Promise.resolve();
  private queued?: Promise<void>;
  private pruneTimer?: NodeJS.Timeout;
  private readonly counter?: CacheCounter;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly changes: ChangeFeed,
    // Absent in the CLI, which counts nothing.
    @Optional() metrics?: MetricsService,
  ) {
    this.counter = metrics?.cacheCounter('revocations');
    // A change to revoked_token anywhere, or the feed (re)connecting (undefined): read what is new.
    changes.subscribe((table) => {
      if (table === undefined || table === 'revoked_token') void this.refresh();
    });
  }

  onModuleInit(): void {
    this.pruneTimer = setInterval(() => this.prune(), PRUNE_INTERVAL_MS);
    this.pruneTimer.unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.pruneTimer);
  }

  /** Whether memory may answer: the feed is listening and every revocation since it connected has been read. */
  private get current(): boolean {
    return this.changes.live && this.syncedConnection === this.changes.connections;
  }

  isRevoked(jti: string): Promise<boolean> {
    if (this.current && (this.complete || this.revoked.has(jti))) {
      this.counter?.hit();
      return Promise.resolve(this.revoked.has(jti));
    }
    this.counter?.miss();
    return isRevoked(this.dataSource, jti);
  }

  /** Revokes the tokens; resolves once this instance's answers see it (every other instance's within a second). */
  async revoke(tokens: Revocation[]): Promise<void> {
    await revokeTokens(this.dataSource, tokens);
    await this.revokedHere();
  }

  /** After a transaction of the caller's that revoked tokens (revokeTokens with its manager) has committed: resolves once this instance's memory holds them. */
  async revokedHere(): Promise<void> {
    this.changes.committedHere('revoked_token');
    await this.refresh();
  }

  /** Reads the revocations committed since the last read (all of them after a reconnection); resolves once a read started after this call is done. */
  refresh(): Promise<void> {
    if (this.queued) return this.queued;
    const next = this.reading.then(() => {
      this.queued = undefined;
      return this.read();
    });
    this.queued = next;
    this.reading = next;
    return next;
  }

  private async read(): Promise<void> {
    const connection = this.changes.connections;
    if (!this.changes.live) return;
    const whole = this.wholeWanted || this.syncedConnection !== connection;
    try {
      const { horizon, revoked } = await readRevocations(this.dataSource, whole ? undefined : this.horizon, MAX_REVOCATIONS_IN_MEMORY + 1);
      if (whole) {
        this.revoked = new Map();
        this.complete = true;
      }
      for (const [jti, expiresAt] of revoked) this.remember(jti, expiresAt);
      this.horizon = horizon;
      this.syncedConnection = connection;
      if (whole) this.wholeWanted = false;
    } catch {
      // The database is unreachable: memory stays unused until a read succeeds (the next change or reconnection).
      this.syncedConnection = -1;
    }
  }

  private remember(jti: string, expiresAt: number): void {
    if (this.revoked.has(jti)) return;
    if (this.revoked.size >= MAX_REVOCATIONS_IN_MEMORY) {
      this.complete = false;
      return;
    }
    this.revoked.set(jti, expiresAt);
  }

  private prune(): void {
    const now = Date.now();
    for (const [jti, expiresAt] of this.revoked) if (expiresAt <= now) this.revoked.delete(jti);
    if (this.complete) return;
    this.wholeWanted = true;
    void this.refresh();
  }
}
