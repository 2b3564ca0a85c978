import type pg from 'pg';

/**
 * pg-pool's `onConnect` hook for every pool of the server (TypeORM's and the durable-write pools):
 * each new connection gets an 'error' listener for its whole life.
 *
 * The pool takes its own listener off a connection it lends, and the borrower adds one only when
 * its code next runs (a promise continuation). A backend that sends ReadyForQuery and, at once, a
 * FATAL message (a postmaster killed during a failover: "terminating connection due to unexpected
 * postmaster exit") can have both read from one socket chunk: the FATAL is then parsed while the
 * connection has no listener at all, and Node ends the process on an unhandled 'error' event.
 * This listener only keeps the process alive; the pool and the borrowers still see the error
 * through their own listeners (a borrower's next query fails, and the connection is dropped).
 */
export function guardConnection(client: pg.ClientBase): void {
  client.on('error', ignore);
}

function ignore(): void {
  // Handled where it matters: the pool's idle listener, the borrower's listener, the failed query.
}
