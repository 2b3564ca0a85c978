import pg from 'pg';

/** Writes one batch through `client` (inside a transaction when asked) and answers each item, in order. */
export type BatchWriter<T, R> = (client: pg.PoolClient, items: readonly T[]) => Promise<R[]>;

type Waiter<T, R> = { item: T; resolve: (result: R) => void; reject: (error: unknown) => void };

export type GroupCommitOptions = {
  /** At most this many items per batch; the rest wait for the next one. */
  maxBatch?: number;
  /** Wrap the writer in BEGIN/COMMIT (a writer of one statement commits on its own). */
  transaction?: boolean;
  /** Batches committing at the same time (PostgreSQL flushes their commits to disk together). */
  concurrency?: number;
};

/**
 * Group commit (docs/guides/consent-withdrawal.md, "How rows are written"): the items of concurrent
 * requests go to PostgreSQL together, one multi-row statement and one durable commit per batch,
 * and each request waits for the commit of its batch. While batches commit (at most
 * `concurrency` at once, their disk flushes shared by PostgreSQL), the next one gathers. A failed
 * batch fails each of its waiters; nothing is retried behind a caller's back.
 */
export class GroupCommit<T, R> {
  private queue: Waiter<T, R>[] = [];
  private running = 0;
  private readonly maxBatch: number;
  private readonly transaction: boolean;
  private readonly concurrency: number;

  constructor(
    private readonly pool: pg.Pool,
    private readonly write: BatchWriter<T, R>,
    options: GroupCommitOptions = {},
  ) {
    this.maxBatch = options.maxBatch ?? 500;
    this.transaction = options.transaction ?? false;
    this.concurrency = options.concurrency ?? 1;
  }

  /** Resolves once the item's batch is committed; rejects when that batch failed. */
  submit(item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      if (this.running >= this.concurrency) return;
      this.running += 1;
      // Items submitted in the same tick (one request's several rows) share a batch.
      queueMicrotask(() => void this.flush());
    });
  }

  private async flush(): Promise<void> {
    try {
      while (this.queue.length > 0) {
        const batch = this.queue.splice(0, this.maxBatch);
        try {
          const results = await this.commit(batch.map((waiter) => waiter.item));
          batch.forEach((waiter, index) => waiter.resolve(results[index]));
        } catch (error) {
          for (const waiter of batch) waiter.reject(error);
        }
      }
    } finally {
      this.running -= 1;
    }
  }

  private async commit(items: T[]): Promise<R[]> {
    const client = await this.pool.connect();
    let broken: Error | undefined;
    try {
      if (!this.transaction) return await this.write(client, items);
      await client.query('BEGIN');
      try {
        const results = await this.write(client, items);
        await client.query('COMMIT');
        return results;
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      }
    } catch (error) {
      // A connection that failed mid-batch is not given back to the pool for reuse.
      broken = error instanceof Error ? error : new Error(String(error));
      throw error;
    } finally {
      client.release(broken);
    }
  }
}

/**
 * A small pool whose sessions always commit synchronously, whatever the server's default (a
 * cluster configured with `synchronous_commit=off` still flushes these commits to disk).
 */
export function durablePool(connectionString: string | undefined, applicationName: string, max = 2): pg.Pool {
  const pool = new pg.Pool({
    connectionString,
    max,
    options: '-c synchronous_commit=on',
    application_name: applicationName,
    connectionTimeoutMillis: 5_000,
    query_timeout: 10_000,
    keepAlive: true,
  });
  // An idle connection that breaks is dropped by the pool; the next batch reconnects.
  pool.on('error', () => undefined);
  return pool;
}
