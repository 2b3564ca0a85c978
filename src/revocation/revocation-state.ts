import { Injectable, Optional } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { ChangeFeed } from '../database/change-feed.js';
import { FeedCache } from '../database/feed-cache.js';
import { MetricsService } from '../metrics/metrics.service.js';
import { isRevoked, revokeTokens, type Revocation } from './revoked-tokens.js';

const REVOCATION_TABLES = new Set(['revoked_token']);

/**
 * Whether a token is revoked or withdrawn, from memory in the steady state
 * (docs/reference/token-endpoint.md#revocations-from-memory): each `jti`'s answer is kept, at
 * most 100,000 of them, and all are dropped when `revoked_token` changes on any instance (the
 * change feed) and at once on the instance that revoked. While the feed is not listening, every
 * answer is read from the database, and nothing read then is kept: an instance that may have
 * missed a revocation never answers from memory.
 */
@Injectable()
export class RevocationState {
  private readonly answers: FeedCache<string, boolean>;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly changes: ChangeFeed,
    // Absent in the CLI, which counts nothing.
    @Optional() metrics?: MetricsService,
  ) {
    this.answers = new FeedCache(changes, REVOCATION_TABLES, metrics?.cacheCounter('revocations'));
  }

  isRevoked(jti: string): Promise<boolean> {
    return this.answers.get(jti, (key) => isRevoked(this.dataSource, key));
  }

  /** Revokes the tokens; this instance's answers see it at once, every other instance's within a second. */
  async revoke(tokens: Revocation[]): Promise<void> {
    await revokeTokens(this.dataSource, tokens);
    this.changes.committedHere();
  }

  /** After a transaction of the caller's that revoked tokens (revokeTokens with its manager) has committed. */
  revokedHere(): void {
    this.changes.committedHere();
  }
}
