const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH', 'EAI_AGAIN']);

/**
 * True when an error means the database cannot be reached or is shutting down (SQLSTATE class
 * 08, 57P01-57P03, 53300), as opposed to a query the server got wrong.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  for (let cause: unknown = error, depth = 0; cause && depth < 5; depth += 1) {
    const { code, message } = cause as { code?: unknown; message?: unknown };
    if (typeof code === 'string') {
      if (NETWORK_CODES.has(code) || code.startsWith('08') || /^57P0[1-3]$/.test(code) || code === '53300') return true;
    }
    if (typeof message === 'string' && /Connection terminated|timeout exceeded when trying to connect|Query read timeout|connection is closed|Cannot use a pool after calling end/i.test(message)) {
      return true;
    }
    cause = (cause as { driverError?: unknown; cause?: unknown }).driverError ?? (cause as { cause?: unknown }).cause;
  }
  return false;
}
