import pg from 'pg';
import { guardConnection } from './connection-guard.js';

/** Writes one batch through `client` (inside a transaction when asked) and answers each item, in order. */
export type BatchWriter<T, R> = (client: pg.PoolClient, items: readonly T[]) => Promise<R[]>;

type Waiter<T, R> = { item: T; resolve: (result: R) => void; reject: (error: unknown) => void; timer?: NodeJS.Timeout };

/** How long a request waits for its batch's commit by default before it is answered "not now". */
export const DEFAULT_COMMIT_DEADLINE_MS = 6_000;

export type GroupCommitOptions = {
  /** At most this many items per batch; the rest wait for the next one. */
  maxBatch?: number;
  /** Wrap the writer in BEGIN/COMMIT (a writer of one statement commits on its own). */
  transaction?: boolean;
  /** Batches committing at the same time (PostgreSQL flushes their commits to disk together). */
  concurrency?: number;
  /**
   * A request waits at most this long (queueing included) for its batch: past it, it is rejected
   * ("the database did not commit in time", a 503) even though its batch may still commit later.
   * A row without its token is allowed; a token without its row never is.
   */
  deadlineMs?: number;
};

/**
 * Group commit (docs/guides/consent-withdrawal.md, "How rows are written"): the items of concurrent
 * requests go to PostgreSQL together, one multi-row statement and one durable commit per batch,
 * and each request waits for the commit of its batch. While batches commit (at most
 * `concurrency` at once, each on a connection it keeps while items wait), the next one gathers.
 * When a batch's commit returns, the next batch is sent before the finished one's requests are
 * answered, so PostgreSQL never waits for those answers. A failed batch fails each of its
 * waiters; nothing is retried behind a caller's back.
 */
export class GroupCommit<T, R> {
  private queue: Waiter<T, R>[] = [];
  private running = 0;
  private readonly maxBatch: number;
  private readonly transaction: boolean;
  private readonly concurrency: number;
  private readonly deadlineMs: number;

  constructor(
    private readonly pool: pg.Pool,
    private readonly write: BatchWriter<T, R>,
    options: GroupCommitOptions = {},
  ) {
    this.maxBatch = options.maxBatch ?? 500;
    this.transaction = options.transaction ?? false;
    this.concurrency = options.concurrency ?? 1;
    this.deadlineMs = options.deadlineMs ?? DEFAULT_COMMIT_DEADLINE_MS;
  }

  /** Resolves once the item's batch is committed; rejects when that batch failed. */
  submit(item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      const waiter: Waiter<T, R> = { item, resolve, reject };
      waiter.timer = setTimeout(() => {
        // Still queued: it never reaches the database. Already sent: its outcome is unknown.
        const queued = this.queue.indexOf(waiter);
        if (queued !== -1) this.queue.splice(queued, 1);
        waiter.reject(new Error('the database did not commit in time'));
      }, this.deadlineMs);
      waiter.timer.unref();
      this.queue.push(waiter);
      if (this.running >= this.concurrency) return;
      this.running += 1;
      // Items submitted in the same tick (one request's several rows) share a batch.
      queueMicrotask(() => void this.lane());
    });
  }

  /** One connection's loop: batch after batch while items wait, then the connection goes back. */
  private async lane(): Promise<void> {
    let client: pg.PoolClient | undefined;
    // The pool takes its own 'error' listener off a connection it lends: while this lane holds
    // one, a socket cut under it (a failover, HAProxy's shutdown-sessions, a dying postmaster)
    // must fail the batch in flight, not end the process with an unhandled 'error' event.
    const onError = () => undefined;
    const acquire = async () => {
      const connection = await this.pool.connect();
      connection.on('error', onError);
      return connection;
    };
    const giveBack = (connection: pg.PoolClient, error?: Error) => {
      // The pool adds its idle listener back before this one goes, so the socket is never without one.
      connection.release(error);
      connection.removeListener('error', onError);
    };
    try {
      let batch = this.queue.splice(0, this.maxBatch);
      // The batch's commit once its statement is on the wire.
      let sent: Promise<R[]> | undefined;
      while (batch.length > 0) {
        let outcome: Outcome<R>;
        try {
          if (sent === undefined) {
            client ??= await acquire();
            sent = this.commit(client, batch);
          }
          outcome = { results: await sent };
        } catch (error) {
          // A connection that failed mid-batch is not given back to the pool for reuse.
          if (client !== undefined) giveBack(client, error instanceof Error ? error : new Error(String(error)));
          client = undefined;
          outcome = { error };
        }
        const done = batch;
        batch = this.queue.splice(0, this.maxBatch);
        // The next statement is sent (synchronously) before the finished batch's requests are
        // answered, so PostgreSQL does not wait while they run.
        sent = batch.length > 0 && client !== undefined ? this.commit(client, batch) : undefined;
        settle(done, outcome);
      }
    } finally {
      if (client !== undefined) giveBack(client);
      this.running -= 1;
    }
  }

  /** Writes one batch; everything up to the first statement is sent before this returns. */
  private async commit(client: pg.PoolClient, items: readonly Waiter<T, R>[]): Promise<R[]> {
    const values = items.map((waiter) => waiter.item);
    if (!this.transaction) return this.write(client, values);
    await client.query('BEGIN');
    try {
      const results = await this.write(client, values);
      await client.query('COMMIT');
      return results;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    }
  }
}

type Outcome<R> = { results: R[] } | { error: unknown };

/** Answers each waiter of a batch: its own result, or the batch's error. */
function settle<T, R>(batch: readonly Waiter<T, R>[], outcome: Outcome<R>): void {
  // A waiter past its deadline was rejected already; resolving or rejecting it again does nothing.
  for (const waiter of batch) clearTimeout(waiter.timer);
  if ('error' in outcome) {
    for (const waiter of batch) waiter.reject(outcome.error);
  } else {
    batch.forEach((waiter, index) => waiter.resolve(outcome.results[index]));
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
    connectionTimeoutMillis: 3_000,
    // Client-side only: a server-side statement_timeout would cancel a COMMIT waiting for the
    // synchronous standby, and PostgreSQL then keeps the commit on the primary alone with a warning.
    query_timeout: 5_000,
    keepAlive: true,
    onConnect: guardConnection,
  });
  // An idle connection that breaks is dropped by the pool; the next batch reconnects.
  pool.on('error', () => undefined);
  return pool;
}
