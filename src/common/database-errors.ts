// PostgreSQL's SQLSTATE codes (appendix A of its manual) and the ways a connection fails below it.
const UNIQUE_VIOLATION = '23505';
const FOREIGN_KEY_VIOLATION = '23503';
/**
 * 57P01 admin_shutdown, 57P02 crash_shutdown, 57P03 cannot_connect_now, 53300 too_many_connections,
 * 25006 read_only_sql_transaction (a node being demoted, or a standby, still reached for a second
 * or two during a failover), 57P05 idle_session_timeout, 40001 serialization_failure (also what a
 * standby answers on a conflict with recovery): all say "try again", none says the request is wrong.
 */
const NOT_NOW_CODES = new Set(['57P01', '57P02', '57P03', '53300', '25006', '57P05', '40001']);
const READ_ONLY_CODE = '25006';
const CONNECTION_EXCEPTION_CLASS = '08';
// A database with ALLOW_CONNECTIONS false refuses a new session with FATAL 55000 "is not currently
// accepting connections" (not 57P03); 55000 raised by a statement (not FATAL) is a real error.
const REFUSED_SESSION_CODE = '55000';
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN']);
// What pg and TypeORM say, without a code, when a connection is lost, closed or not to be had in time.
const NOT_NOW_MESSAGES =
  /Connection terminated|timeout exceeded when trying to connect|Query read timeout|connection is closed|Cannot use a pool after calling end|is not queryable|did not commit in time/i;

/** Seconds a client is told to wait (Retry-After) when the database says "not now". */
export const DATABASE_RETRY_AFTER_SECONDS = 1;

/** A unique constraint refused the write (SQLSTATE 23505): two writers raced for one key. */
export function isUniqueViolation(error: unknown): boolean {
  return sqlState(error) === UNIQUE_VIOLATION;
}

/** A foreign key refused the write (SQLSTATE 23503): a record referenced is missing or still referenced. */
export function isForeignKeyViolation(error: unknown): boolean {
  return sqlState(error) === FOREIGN_KEY_VIOLATION;
}

/**
 * True when PostgreSQL says "not now", as opposed to a query the server got wrong: it cannot be
 * reached or the connection broke (SQLSTATE class 08, refused, reset, unreachable), it is shutting
 * down or starting (57P01-57P03), the database takes no new sessions (ALLOW_CONNECTIONS false), it has no
 * connection slot left (53300), it is read-only (25006: a standby, or a primary being demoted during
a failover), or the pool had no connection to give in time. Such requests are
 * answered 503 temporarily_unavailable with Retry-After (docs/operations/database.md).
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  for (const cause of causes(error)) {
    const { code, message, severity } = cause as { code?: unknown; message?: unknown; severity?: unknown };
    if (typeof code === 'string') {
      if (NETWORK_CODES.has(code) || code.startsWith(CONNECTION_EXCEPTION_CLASS) || NOT_NOW_CODES.has(code)) return true;
      if (code === REFUSED_SESSION_CODE && severity === 'FATAL') return true;
    }
    if (typeof message === 'string' && NOT_NOW_MESSAGES.test(message)) return true;
  }
  return false;
}

/** The database took the session but refuses writes (SQLSTATE 25006): it is, or is becoming, a standby. */
export function isReadOnlyDatabase(error: unknown): boolean {
  return sqlState(error) === READ_ONLY_CODE;
}

function sqlState(error: unknown): string | undefined {
  for (const cause of causes(error)) {
    const { code } = cause as { code?: unknown };
    if (typeof code === 'string') return code;
  }
  return undefined;
}

// The error, then what it wraps: TypeORM's driverError, an Error's cause, an AggregateError's errors
// (Node's connect tries every address of a host name and reports them together).
function* causes(error: unknown): Generator<object> {
  const pending: unknown[] = [error];
  for (let seen = 0; pending.length > 0 && seen < 10; seen += 1) {
    const cause = pending.shift();
    if (!cause || typeof cause !== 'object') continue;
    yield cause;
    const { driverError, cause: inner, errors } = cause as { driverError?: unknown; cause?: unknown; errors?: unknown };
    const grouped: unknown[] = Array.isArray(errors) ? errors : [];
    pending.push(driverError, inner, ...grouped);
  }
}
