import type pg from 'pg';
import { isReadOnlyDatabase } from '../common/database-errors.js';

type Query = pg.ClientBase['query'];

/**
 * A session that answered "read-only" (SQLSTATE 25006) reached a standby or a primary being
 * demoted: HAProxy may route there for a second or two of a failover. Such a session is not
 * given back to the pool for reuse, so the next request opens a new one, which HAProxy sends to
 * whichever node is the primary then. (HAProxy's `on-marked-down shutdown-sessions` also closes
 * them; this does not rely on it.)
 */
export function discardReadOnlySessions(pool: pg.Pool): void {
  const readOnly = new WeakSet<pg.ClientBase>();
  pool.on('connect', (client) => {
    const query = client.query.bind(client) as (...args: unknown[]) => unknown;
    const watched = (...args: unknown[]): unknown => {
      const result = query(...args);
      if (result instanceof Promise) {
        // Observes the outcome without handling it for the caller (the caller's own await still rejects).
        result.then(undefined, (error: unknown) => {
          if (isReadOnlyDatabase(error)) readOnly.add(client);
        });
      }
      return result;
    };
    client.query = watched as Query;
  });
  pool.on('release', (_error: Error | undefined, client: pg.PoolClient) => {
    // Ending it here, before the pool decides, makes the pool drop it instead of keeping it idle.
    if (readOnly.has(client)) void client.end().catch(() => undefined);
  });
}
