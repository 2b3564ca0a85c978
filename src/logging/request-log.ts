import { randomUUID } from 'node:crypto';
import type { Request, Response } from 'express';
import type { Level, Logger } from 'pino';
import { isRefusal } from './refusal-log.js';

export const REQUEST_ID_HEADER = 'X-Request-Id';

// A caller's request id is kept when it is short and plain; anything else is replaced, so a
// client cannot inject text into log lines or grow them without bound.
const ACCEPTED_REQUEST_ID = /^[\w.:@/+=-]{1,128}$/;

type IdentifiedRequest = Request & { id?: string };

const failedChecks = new WeakMap<object, string>();

/**
 * The response refuses a client that is not authenticated: its line names the check that failed
 * (`failedCheck`), which the response itself never says (docs/reference/token-endpoint.md#errors).
 */
export function noteFailedCheck(response: object, check: string): void {
  failedChecks.set(response, check);
}

/** The request id: the caller's `X-Request-Id` when acceptable, else a new UUID. */
export function requestIdOf(request: Request): string | undefined {
  return (request as IdentifiedRequest).id;
}

/**
 * A request hook (src/http/request-hooks.ts) that gives every request an id (returned in X-Request-Id) and writes one line when its response is
 * finished. Written for the token endpoint's hot path: no child logger, no per-request context,
 * nothing serialised unless the line's level is enabled; successful token and introspection requests are `debug`.
 * What a line holds is chosen field by field: never a body, a query string or a header but
 * User-Agent (so no Authorization, no admin token, no client_secret).
 */
export function requestLog(logger: Logger) {
  return {
    onRequest(request: Request, response: Response): boolean {
      const given = request.headers['x-request-id'];
      const id = typeof given === 'string' && ACCEPTED_REQUEST_ID.test(given) ? given : randomUUID();
      (request as IdentifiedRequest).id = id;
      response.setHeader(REQUEST_ID_HEADER, id);
      return true;
    },
    onFinish(request: Request, response: Response, startedAt: number): void {
      const path = request.url.split('?', 1)[0];
      // A refusal that protects the server has its own rate-limited warn lines (refusal-log.ts).
      const level = isRefusal(response) ? 'debug' : levelOf(path, response.statusCode);
      if (level === undefined || !logger.isLevelEnabled(level)) return;
      logger[level](
        {
          req: {
            id: requestIdOf(request),
            method: request.method,
            url: path,
            remoteAddress: request.socket.remoteAddress,
            userAgent: request.headers['user-agent'],
          },
          res: { statusCode: response.statusCode },
          responseTime: Math.round(performance.now() - startedAt),
          ...(failedChecks.has(response) ? { failedCheck: failedChecks.get(response) } : {}),
        },
        'request completed',
      );
    },
  };
}

function levelOf(path: string, status: number): Level | undefined {
  if (path === '/metrics' || path.startsWith('/health/')) return undefined;
  // 501 answers what a client asked for and this server does not offer: the client's doing, never an error line on demand.
  if (status >= 500 && status !== 501) return 'error';
  if (status >= 400) return 'info';
  // The token endpoint's and introspection's successes are their bulk (a resource server may
  // introspect on every request it serves); the metrics count them.
  return path === '/oauth2/token' || path === '/oauth2/introspect' ? 'debug' : 'info';
}
