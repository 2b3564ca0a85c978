import type { AppConfig } from '../config/app-config.js';

/** How many connections each user of the database may hold in one server process. */
export type ConnectionBudget = {
  /** This process's share of DATABASE_POOL_SIZE. */
  process: number;
  /** The change feed's LISTEN session: one, always open. */
  changeFeed: 1;
  /** The replay store's pool (single-use `jti`s). */
  replayStore: number;
  /** The disclosure writer's session: one batch commits at a time (docs/guides/consent-withdrawal.md). */
  disclosures: 1;
  /** TypeORM's pool: every other query, the throttles' counters and the migrations included (at least 2). */
  typeorm: number;
};

const MOST_REPLAY_CONNECTIONS = 4;

/**
 * DATABASE_POOL_SIZE is the host's; each of the WORKERS processes gets an equal whole share (the
 * remainder of the division is left unused). Within a share: one for the change feed, a quarter
 * (at least 1, at most 4) for the replay store, one for the disclosure writer, the rest for TypeORM. docs/operations/database.md
 * says the same to operators.
 */
export function connectionBudget(config: Pick<AppConfig, 'databasePoolSize' | 'workers'>): ConnectionBudget {
  const share = Math.floor(config.databasePoolSize / config.workers);
  const replayStore = Math.min(MOST_REPLAY_CONNECTIONS, Math.max(1, Math.floor(share / 4)));
  return { process: share, changeFeed: 1, replayStore, disclosures: 1, typeorm: share - 2 - replayStore };
}
